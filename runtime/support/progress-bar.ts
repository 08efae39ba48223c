/** Progress of a long operation (a rebuild): what is done, out of what, how fast. */
export interface Progress {
  /** Events applied so far. */
  events: number;
  /** Position reached and position to reach. */
  position: number;
  target: number;
  /** Events per second since the start. */
  rate: number;
  /** Seconds left at the current pace; null when unknown. */
  etaSeconds: number | null;
}

/**
 * A one-line terminal progress bar, redrawn in place on a TTY and printed at most every few seconds
 * otherwise (so CI logs stay readable).
 */
export class ProgressBar {
  private lastPrint = 0;

  constructor(
    private readonly label: string,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  update(progress: Progress): void {
    const now = Date.now();
    if (!this.out.isTTY && now - this.lastPrint < 5000) return;
    this.lastPrint = now;
    const line = formatProgress(this.label, progress, this.out.isTTY ? (this.out.columns ?? 100) : 100);
    if (this.out.isTTY) this.out.write(`\r\x1b[2K${line}`);
    else this.out.write(`${line}\n`);
  }

  finish(progress: Progress): void {
    const line = formatProgress(this.label, progress, this.out.isTTY ? (this.out.columns ?? 100) : 100);
    this.out.write(this.out.isTTY ? `\r\x1b[2K${line}\n` : `${line}\n`);
  }
}

function formatProgress(label: string, p: Progress, columns: number): string {
  const fraction = p.target > 0 ? Math.min(1, p.position / p.target) : 1;
  const stats =
    ` ${(fraction * 100).toFixed(1).padStart(5)}% ${p.events.toLocaleString('en-US')} events` +
    ` (position ${p.position.toLocaleString('en-US')}/${p.target.toLocaleString('en-US')})` +
    ` ${Math.round(p.rate).toLocaleString('en-US')} ev/s ETA ${formatEta(p.etaSeconds)}`;
  const width = Math.max(10, Math.min(40, columns - label.length - stats.length - 4));
  const filled = Math.round(fraction * width);
  return `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}]${stats}`;
}

function formatEta(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '--';
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m${String(Math.ceil(seconds % 60)).padStart(2, '0')}s`;
}
