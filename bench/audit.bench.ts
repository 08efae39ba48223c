/**
 * The audit: `runAudit` over the embedded store file of a fixture holding N admitted leaves and the
 * tree heads the log sequencer signed for them (bench/audit-fixture.ts; N = GOV_BENCH_AUDIT_LEAVES,
 * default a million), in every mode the engine offers. Each audit runs in a fresh process
 * (bench/audit-measure.ts) so its memory is its own; running it again at N/10 shows whether peak
 * memory grows with the number of leaves. The fixture was written by the server's own code, so any
 * discrepancy fails the benchmark.
 */
import { fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { type AuditFixture, auditLeavesFromEnv, ensureAuditFixture, formatBytes } from './audit-fixture';
import type { AuditMeasurement, MeasureAnswer, MeasureRequest } from './audit-measure';
import type { BenchRow, BenchSuite } from './report';

const SUITE = 'audit';
const TARGET_LEAVES_PER_SECOND = 100_000;
/** Peak RSS at N may exceed the peak at N/10 by this factor and still count as flat. */
const FLAT_RSS_RATIO = 1.25;

interface AuditMode {
  name: string;
  options: NonNullable<MeasureRequest['mode']>;
}

/** The engine's modes, one row each: today it has one, every check (signatures included). */
const MODES: readonly AuditMode[] = [{ name: 'all checks', options: {} }];

export const auditBench: BenchSuite = async () => {
  const leaves = auditLeavesFromEnv();
  const tenth = Math.max(1, Math.round(leaves / 10));
  const workers = auditWorkersFromEnv();
  const full = await ensureAuditFixture({ leaves });
  const small = await ensureAuditFixture({ leaves: tenth });

  const rows: BenchRow[] = [...fixtureRows(full), ...fixtureRows(small)];
  let fullPeak = 0;
  for (const [i, mode] of MODES.entries()) {
    const run = await measure(full, mode, workers);
    rows.push(...auditRows(run, full, mode, workers));
    if (i === 0) {
      fullPeak = run.rss.peak;
      rows.push(...rssProgressRows(run, full, mode));
    }
  }
  const [fullMode] = MODES;
  const smallRun = await measure(small, fullMode!, workers);
  rows.push(...auditRows(smallRun, small, fullMode!, workers));
  const growth = fullPeak / smallRun.rss.peak;
  rows.push({
    suite: SUITE,
    metric: `peak RSS at ${count(leaves)} leaves ÷ peak RSS at ${count(tenth)} leaves (${fullMode!.name})`,
    value: Math.round(growth * 100) / 100,
    unit: 'x',
    target: `<= ${FLAT_RSS_RATIO} (flat in the number of leaves)`,
    met: growth <= FLAT_RSS_RATIO,
    notes: `${mib(fullPeak)} MiB vs ${mib(smallRun.rss.peak)} MiB for 10× the leaves`,
  });
  return rows;
};

/** GOV_BENCH_AUDIT_WORKERS, default one per available core (as the engine's own default). */
function auditWorkersFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.GOV_BENCH_AUDIT_WORKERS;
  if (raw === undefined || raw === '') return os.availableParallelism();
  const workers = Number(raw);
  if (!Number.isInteger(workers) || workers < 0)
    throw new Error(`GOV_BENCH_AUDIT_WORKERS must be a whole number of threads ≥ 0 (got '${raw}')`);
  return workers;
}

/** Audits the fixture in a fresh process and insists that it comes out clean. */
async function measure(fixture: AuditFixture, mode: AuditMode, workers: number): Promise<AuditMeasurement> {
  const label = `audit ${count(fixture.manifest.leaves)} leaves (${mode.name})`;
  const run = await inChildProcess({
    eventStoreFile: fixture.eventStoreFile,
    keysDir: fixture.keysDir,
    workers,
    label,
    mode: mode.options,
  });
  if (run.discrepancy_count > 0) {
    throw new Error(
      `${label} found ${run.discrepancy_count} discrepancies in ${fixture.eventStoreFile}, a store written by ` +
        "the server's own code: the audit engine (or the fixture) is wrong. The first ones:\n" +
        run.first_discrepancies.map((d) => `  ${JSON.stringify(d)}`).join('\n'),
    );
  }
  const { manifest } = fixture;
  if (
    run.leaves !== manifest.leaves ||
    run.tree_heads !== manifest.tree_heads ||
    run.events !== manifest.events
  )
    throw new Error(
      `${label} saw ${run.leaves} leaves, ${run.tree_heads} tree heads and ${run.events} events, but the fixture ` +
        `holds ${manifest.leaves}, ${manifest.tree_heads} and ${manifest.events}: the audit skipped part of the store`,
    );
  return run;
}

function inChildProcess(request: MeasureRequest): Promise<AuditMeasurement> {
  // The same extension as this file: .js when built, .ts under a TypeScript loader.
  const entry = path.join(__dirname, `audit-measure${path.extname(__filename)}`);
  const child = fork(entry, [], {
    execArgv: entry.endsWith('.ts') ? ['--import', 'tsx'] : ['--enable-source-maps'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    let answer: MeasureAnswer | null = null;
    child.once('message', (message: MeasureAnswer) => {
      answer = message;
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (!answer)
        reject(new Error(`${request.label}: the audit process exited (${signal ?? code}) without an answer`));
      else if (!answer.ok) reject(new Error(`${request.label} failed: ${answer.error}`));
      else resolve(answer.measurement);
    });
    child.send(request);
  });
}

function fixtureRows(fixture: AuditFixture): BenchRow[] {
  const { manifest } = fixture;
  const leaves = count(manifest.leaves);
  return [
    {
      suite: SUITE,
      metric: `fixture build: ${leaves} leaves, ${count(manifest.tree_heads)} tree heads, ${count(manifest.events)} events`,
      value: manifest.build_seconds,
      unit: 's',
      notes:
        `${fixture.built ? 'built by this run' : `reused (built ${manifest.built_at})`} in ${fixture.dir}; ` +
        `${manifest.tenants} tenants, mean ${Math.round(manifest.leaves / Math.max(1, manifest.tree_heads - 1))} leaves per tree head`,
    },
    {
      suite: SUITE,
      metric: `fixture size on disk: ${leaves} leaves`,
      value: mib(fixture.bytes),
      unit: 'MiB',
      notes: formatBytes(fixture.bytes),
    },
  ];
}

function auditRows(
  run: AuditMeasurement,
  fixture: AuditFixture,
  mode: AuditMode,
  workers: number,
): BenchRow[] {
  const what = `${count(fixture.manifest.leaves)} leaves, ${mode.name}`;
  return [
    {
      suite: SUITE,
      metric: `audit throughput (${what})`,
      value: Math.round(run.leaves_per_second),
      unit: 'leaves/s',
      target: `>= ${count(TARGET_LEAVES_PER_SECOND)}`,
      met: run.leaves_per_second >= TARGET_LEAVES_PER_SECOND,
      notes:
        `${count(run.leaves)} leaves, ${count(run.tree_heads)} tree heads, ${count(run.events)} events in ` +
        `${run.seconds.toFixed(1)} s with ${workers} worker threads; 0 discrepancies` +
        (run.notices.length > 0 ? `; notices: ${run.notices.join(' | ')}` : ''),
    },
    { suite: SUITE, metric: `audit time (${what})`, value: round1(run.seconds), unit: 's' },
    {
      suite: SUITE,
      metric: `peak RSS (${what})`,
      value: mib(run.rss.peak),
      unit: 'MiB',
      notes: `${mib(run.rss.before)} MiB before the audit started`,
    },
  ];
}

/** RSS at 10%, 50% and 100% of the positions: flat means the audit holds no per-leaf state. */
function rssProgressRows(run: AuditMeasurement, fixture: AuditFixture, mode: AuditMode): BenchRow[] {
  const what = `${count(fixture.manifest.leaves)} leaves, ${mode.name}`;
  return (
    [
      ['10%', run.rss.at10],
      ['50%', run.rss.at50],
      ['100%', run.rss.at100],
    ] as const
  ).map(([at, bytes]) => ({
    suite: SUITE,
    metric: `RSS at ${at} of the audit (${what})`,
    value: bytes === null ? Number.NaN : mib(bytes),
    unit: 'MiB',
  }));
}

function mib(bytes: number): number {
  return round1(bytes / 2 ** 20);
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}
