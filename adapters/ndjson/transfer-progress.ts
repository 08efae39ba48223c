import type { Progress } from '../../runtime/support/progress-bar';

/**
 * Progress of an export or import towards a target position: events so far, rate and ETA. Reports
 * are rate-limited (`due`), so a caller can ask after every event without flooding a terminal.
 */
export class TransferProgress {
  private events = 0;
  private position = 0;
  private lastReport = Number.NEGATIVE_INFINITY;
  private readonly started: number;

  constructor(
    private target: number,
    private readonly reportEveryMs = 200,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.started = now();
  }

  /** The target is known late for an import (it is in the file's header). */
  setTarget(target: number): void {
    this.target = target;
  }

  /** Counts one event; true when a report is due. */
  record(position: number): boolean {
    this.events += 1;
    this.position = position;
    const now = this.now();
    if (now - this.lastReport < this.reportEveryMs) return false;
    this.lastReport = now;
    return true;
  }

  snapshot(): Progress {
    const seconds = Math.max((this.now() - this.started) / 1000, 1e-3);
    const positionRate = this.position / seconds;
    return {
      events: this.events,
      position: this.position,
      target: this.target,
      rate: this.events / seconds,
      etaSeconds: positionRate > 0 ? Math.max(0, this.target - this.position) / positionRate : null,
    };
  }
}
