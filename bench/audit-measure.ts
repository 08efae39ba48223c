/**
 * One audit of a fixture, measured in a process of its own so its memory figures are its own: the
 * benchmark forks this file, sends a MeasureRequest, and gets back the report's figures and the
 * resident set size (RSS) before the audit, at 10%, 50% and 100% of the positions, and at its peak.
 */
import {
  type AuditOptions,
  type AuditReport,
  type Discrepancy,
  runAudit,
  sqliteAuditSource,
  trustFromPublishedKeys,
} from '../audit';
import { readPublishedKeys } from '../runtime/keys/key-history';
import { ProgressBar } from '../runtime/support/progress-bar';
import { ownPeakRss } from './process-memory';

export interface MeasureRequest {
  eventStoreFile: string;
  keysDir: string;
  /** Worker threads of the audit. */
  workers: number;
  /** Names the run in progress lines. */
  label: string;
  /** Engine options of the mode measured (besides trust, workers and hooks). */
  mode?: Partial<Omit<AuditOptions, 'trust' | 'workers' | 'onProgress'>>;
}

/** Bytes of RSS at the checkpoints of one run; a checkpoint the run never reported is null. */
interface RssProfile {
  before: number;
  at10: number | null;
  at50: number | null;
  at100: number | null;
  /** Highest RSS the process reached (the kernel's high-water mark, or a higher sample). */
  peak: number;
}

export interface AuditMeasurement {
  checks: AuditReport['checks'];
  events: number;
  leaves: number;
  tree_heads: number;
  tree_size: number;
  seconds: number;
  leaves_per_second: number;
  discrepancy_count: number;
  /** The first few, in report order, when the audit is not clean. */
  first_discrepancies: Discrepancy[];
  notices: string[];
  /** Ed25519 signatures the audit checked. */
  signatures: number;
  /** CPU time of the audit, all threads together (user + system): what it costs whatever the load. */
  cpu_seconds: number;
  rss: RssProfile;
}

export type MeasureAnswer = { ok: true; measurement: AuditMeasurement } | { ok: false; error: string };

/** RSS checkpoints by the fraction of positions audited. */
const CHECKPOINTS = [
  { fraction: 0.1, key: 'at10' },
  { fraction: 0.5, key: 'at50' },
  { fraction: 1, key: 'at100' },
] as const;
const SAMPLE_EVERY_MS = 25;
const DISCREPANCIES_SHOWN = 10;

async function measureAudit(request: MeasureRequest): Promise<AuditMeasurement> {
  const trust = trustFromPublishedKeys(readPublishedKeys(request.keysDir));
  const rss: RssProfile = { before: process.memoryUsage.rss(), at10: null, at50: null, at100: null, peak: 0 };
  const sample = () => {
    const now = process.memoryUsage.rss();
    if (now > rss.peak) rss.peak = now;
    return now;
  };
  // The main thread is busy during the audit, so the timer only adds samples between chunks.
  const sampler = setInterval(sample, SAMPLE_EVERY_MS);
  const bar = new ProgressBar(request.label);
  const cpuBefore = process.cpuUsage();
  try {
    const report = await runAudit(sqliteAuditSource(request.eventStoreFile), {
      ...request.mode,
      trust,
      workers: request.workers,
      onProgress: (progress) => {
        // Reading the RSS takes the process's memory map lock, which the audit threads contend for:
        // only at the checkpoints here (the timer and the kernel's high-water mark catch the peak).
        const fraction = progress.target > 0 ? progress.position / progress.target : 1;
        for (const { fraction: at, key } of CHECKPOINTS)
          if (fraction >= at && rss[key] === null) rss[key] = sample();
        bar.update(progress);
      },
    });
    const cpu = process.cpuUsage(cpuBefore);
    rss.at100 ??= sample();
    // The kernel's high-water mark of this process's own memory (not getrusage: see ownPeakRss).
    const highWater = ownPeakRss();
    if (!Number.isNaN(highWater)) rss.peak = Math.max(rss.peak, highWater);
    process.stderr.write(
      `${request.label}: ${report.leaves.toLocaleString('en-US')} leaves in ${report.seconds.toFixed(1)} s\n`,
    );
    return {
      checks: report.checks,
      events: report.events,
      leaves: report.leaves,
      tree_heads: report.tree_heads,
      tree_size: report.tree_size,
      seconds: report.seconds,
      leaves_per_second: report.leaves_per_second,
      discrepancy_count: report.discrepancies.length,
      first_discrepancies: report.discrepancies.slice(0, DISCREPANCIES_SHOWN),
      notices: report.notices,
      signatures: report.signatures,
      cpu_seconds: (cpu.user + cpu.system) / 1e6,
      rss,
    };
  } finally {
    clearInterval(sampler);
  }
}

if (require.main === module && process.send) {
  const answer = (message: MeasureAnswer) => process.send!(message, () => process.disconnect());
  process.once('message', (request: MeasureRequest) => {
    measureAudit(request).then(
      (measurement) => answer({ ok: true, measurement }),
      (error: unknown) => answer({ ok: false, error: (error as Error)?.stack ?? String(error) }),
    );
  });
}
