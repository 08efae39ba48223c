/**
 * The audit benchmark's fixture: a data folder indistinguishable from one the embedded server wrote
 * after admitting N leaves. Tenants register, have their limits lifted by the operator (their leaves
 * staying in the shared log) and submit evidence
 * (now and then failing a gate, executing an authorization) through the command handlers' domain
 * functions, signed with the keyring of the folder; the events go through the schema-validating
 * SQLite event store in group commits while the real LogSequencer follows them and signs the tree heads,
 * exactly as in the server. Signing (five Ed25519 signatures per admission) runs on worker threads.
 *
 * Building a million leaves takes minutes, so the folder is kept under the OS temp dir, named by N and
 * the fixture version, and reused while its manifest (written last) says it is complete.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import pino from 'pino';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { ValidatingEventStore } from '../event-schemas';
import type { EventStore } from '../ports/event-store';
import { LOG_STREAM, LogSequencer } from '../projectors/log/log-sequencer';
import { loadConfig } from '../runtime/config/config';
import { loadOrCreateKeyring } from '../runtime/keys/keyring';
import { createLogger } from '../runtime/support/logger';
import { startWorker } from '../runtime/support/worker-entry';
import {
  AUDIT_FIXTURE_VERSION,
  CONCURRENT_CLIENTS,
  tenantQuotas,
  tenantsOfThread,
} from './audit-fixture-plan';
import type { StreamAppend } from './audit-fixture-tenant';
import type { SignerThreadMessage, SignerThreadSettings } from './audit-fixture-worker';

export const DEFAULT_AUDIT_LEAVES = 1_000_000;
/** The public URL the fixture's server "ran" at: it appears in replay links and the log origin. */
const FIXTURE_PUBLIC_URL = 'https://audit-fixture.example';
/** Written last: a fixture folder without it is incomplete and rebuilt. */
export const MANIFEST_FILE = 'fixture.json';
/** Rounds a signing thread may run ahead of the appends. */
const ROUND_CREDITS = 4;
/** How long the sequencer may go without integrating anything before the build gives up. */
const SEQUENCER_STALL_MS = 120_000;
const PROGRESS_EVERY_MS = 5000;

interface FixtureManifest {
  version: number;
  leaves: number;
  tree_heads: number;
  events: number;
  tenants: number;
  build_seconds: number;
  built_at: string;
  log_origin: string;
  public_url: string;
  /** Relative to the fixture folder. */
  data_dir: string;
  event_store_file: string;
}

export interface AuditFixture {
  dir: string;
  /** The server's data folder (GOV_DATA_DIR): `keys/` and `events.db`. */
  dataDir: string;
  keysDir: string;
  eventStoreFile: string;
  manifest: FixtureManifest;
  /** False when a complete fixture was found and reused. */
  built: boolean;
  /** Bytes on disk of the whole folder. */
  bytes: number;
}

export interface FixtureOptions {
  leaves: number;
  /** Folder the fixture folder lives in; default the OS temp dir. */
  root?: string;
  /** Signing threads; default one per available core. */
  threads?: number;
  /** Where progress and the built/reused line go; default stderr. */
  out?: NodeJS.WriteStream;
}

/** N from GOV_BENCH_AUDIT_LEAVES, default a million. */
export function auditLeavesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.GOV_BENCH_AUDIT_LEAVES;
  if (raw === undefined || raw === '') return DEFAULT_AUDIT_LEAVES;
  const leaves = Number(raw.replaceAll('_', ''));
  if (!Number.isSafeInteger(leaves) || leaves < 1)
    throw new Error(`GOV_BENCH_AUDIT_LEAVES must be a whole number of leaves ≥ 1 (got '${raw}')`);
  return leaves;
}

export function auditFixtureDir(leaves: number, root: string = os.tmpdir()): string {
  return path.join(root, `gov-audit-fixture-v${AUDIT_FIXTURE_VERSION}-${leaves}`);
}

/** The manifest of a complete fixture of this version and size, or null. */
function readFixtureManifest(dir: string, leaves: number): FixtureManifest | null {
  let manifest: FixtureManifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST_FILE), 'utf8')) as FixtureManifest;
  } catch {
    return null;
  }
  return manifest.version === AUDIT_FIXTURE_VERSION && manifest.leaves === leaves ? manifest : null;
}

/** Reuses the complete fixture of `leaves` leaves, or builds it (removing an incomplete one). */
export async function ensureAuditFixture(options: FixtureOptions): Promise<AuditFixture> {
  const out = options.out ?? process.stderr;
  const dir = auditFixtureDir(options.leaves, options.root);
  removeAbandonedBuilds(dir);
  let manifest = readFixtureManifest(dir, options.leaves);
  const built = manifest === null;
  if (!manifest) {
    out.write(`audit fixture: building ${options.leaves.toLocaleString('en-US')} leaves in ${dir}\n`);
    manifest = await buildAuditFixture(dir, options);
  }
  const fixture = fixtureAt(dir, manifest, built);
  out.write(
    `audit fixture: ${built ? 'built' : 'reused'} ${dir}: ${manifest.leaves.toLocaleString('en-US')} leaves, ` +
      `${manifest.tree_heads.toLocaleString('en-US')} tree heads, ${manifest.events.toLocaleString('en-US')} events, ` +
      `${formatBytes(fixture.bytes)} on disk, built in ${manifest.build_seconds.toFixed(1)} s\n`,
  );
  return fixture;
}

function fixtureAt(dir: string, manifest: FixtureManifest, built: boolean): AuditFixture {
  const dataDir = path.join(dir, manifest.data_dir);
  return {
    dir,
    dataDir,
    keysDir: path.join(dataDir, 'keys'),
    eventStoreFile: path.join(dir, manifest.event_store_file),
    manifest,
    built,
    bytes: diskBytes(dir),
  };
}

/**
 * Builds into a staging folder named after this process and renames it into place once the manifest
 * is written, so a reader never sees half a fixture.
 */
async function buildAuditFixture(dir: string, options: FixtureOptions): Promise<FixtureManifest> {
  const started = performance.now();
  const staging = `${dir}.building-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  const dataDir = path.join(staging, 'data');
  const config = loadConfig({ GOV_DATA_DIR: dataDir, GOV_PUBLIC_URL: FIXTURE_PUBLIC_URL });
  const keyring = loadOrCreateKeyring(config.dataDir, config.logOrigin);
  const eventStore = new ValidatingEventStore(
    new SqliteEventStore({ file: config.eventStoreFile, maxEventBytes: config.maxEventBytes }),
  );
  const sequencer = new LogSequencer({
    eventStore,
    signer: keyring.logSigner,
    // Warnings and errors only, on stderr: stdout carries the benchmark table.
    logger: createLogger('warn', pino.destination({ dest: 2, sync: true })),
  });
  const quotas = tenantQuotas(options.leaves);
  try {
    await sequencer.start();
    await runSigningThreads(eventStore, {
      dataDir: config.dataDir,
      logOrigin: config.logOrigin,
      publicUrl: config.publicUrl,
      quotas,
      threads: Math.min(quotas.length, options.threads ?? os.availableParallelism()),
      progress: progressPrinter(options.leaves, sequencer, options.out ?? process.stderr),
    });
    await awaitIntegration(sequencer, options.leaves);
    await sequencer.stop();
    const treeHeads = await countTreeHeads(eventStore);
    const events = await eventStore.headPosition();
    await eventStore.close();
    const manifest: FixtureManifest = {
      version: AUDIT_FIXTURE_VERSION,
      leaves: options.leaves,
      tree_heads: treeHeads,
      events,
      tenants: quotas.length,
      build_seconds: Math.round((performance.now() - started) / 100) / 10,
      built_at: new Date().toISOString(),
      log_origin: config.logOrigin,
      public_url: config.publicUrl,
      data_dir: path.relative(staging, config.dataDir),
      event_store_file: path.relative(staging, config.eventStoreFile),
    };
    fs.writeFileSync(path.join(staging, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(staging, dir);
    return manifest;
  } catch (error) {
    await sequencer.stop().catch(() => undefined);
    await eventStore.close().catch(() => undefined);
    fs.rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

interface SigningPlan {
  dataDir: string;
  logOrigin: string;
  publicUrl: string;
  quotas: number[];
  threads: number;
  /** Called after each committed round with the leaves committed so far. */
  progress(leaves: number, final: boolean): void;
}

/**
 * Starts the signing threads and appends every round they post in one group commit (each append at
 * the tenant stream's expected revision), until every thread has decided its tenants' quotas.
 */
function runSigningThreads(eventStore: EventStore, plan: SigningPlan): Promise<void> {
  let leaves = 0;
  return new Promise<void>((resolve, reject) => {
    const workers: Worker[] = [];
    const finished = new Set<number>();
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      for (const worker of workers) void worker.terminate();
      reject(error);
    };
    for (let thread = 0; thread < plan.threads; thread++) {
      const settings: SignerThreadSettings = {
        dataDir: plan.dataDir,
        logOrigin: plan.logOrigin,
        publicUrl: plan.publicUrl,
        tenants: tenantsOfThread(plan.quotas.length, thread, plan.threads).map((index) => ({
          index,
          quota: plan.quotas[index]!,
        })),
        clientsPerRound: Math.ceil(CONCURRENT_CLIENTS / plan.threads),
        credits: ROUND_CREDITS,
      };
      const worker = startSignerThread(settings);
      workers.push(worker);
      worker.on('error', fail);
      worker.on('exit', (code) => {
        if (!finished.has(thread))
          fail(new Error(`audit fixture signing thread ${thread} exited (code ${code}) before finishing`));
      });
      worker.on('message', (message: SignerThreadMessage) => {
        if (failed) return;
        if (message.type === 'failed') {
          fail(
            new Error(`audit fixture signing thread ${thread} failed: ${message.stack ?? message.message}`),
          );
        } else if (message.type === 'done') {
          // Its last round is committed: the thread posts `done` only once it has every credit back.
          finished.add(thread);
          void worker.terminate();
          if (finished.size === plan.threads) {
            plan.progress(leaves, true);
            resolve();
          }
        } else {
          commitRound(eventStore, message.appends).then(() => {
            leaves += message.leaves;
            plan.progress(leaves, false);
            worker.postMessage({ type: 'credit' });
          }, fail);
        }
      });
    }
  });
}

/** All appends issued in one turn of the event loop: the store commits them in one transaction. */
async function commitRound(eventStore: EventStore, appends: readonly StreamAppend[]): Promise<void> {
  await Promise.all(
    appends.map((append) =>
      eventStore.append(append.stream, append.events, { expectedRevision: append.expectedRevision }),
    ),
  );
}

/** A progress line on `out` every few seconds: leaves committed, rate, tree heads signed, time left. */
function progressPrinter(target: number, sequencer: LogSequencer, out: NodeJS.WriteStream) {
  const started = performance.now();
  let lastPrint = started;
  return (leaves: number, final: boolean) => {
    const now = performance.now();
    if (!final && now - lastPrint < PROGRESS_EVERY_MS) return;
    lastPrint = now;
    const seconds = (now - started) / 1000;
    const rate = leaves / Math.max(seconds, 1e-3);
    const eta = rate > 0 ? Math.ceil((target - leaves) / rate) : Number.NaN;
    out.write(
      `audit fixture: ${leaves.toLocaleString('en-US')}/${target.toLocaleString('en-US')} leaves ` +
        `(${((leaves / target) * 100).toFixed(1)}%), ${Math.round(rate).toLocaleString('en-US')} leaves/s, ` +
        `tree size ${sequencer.latest().sth.tree_size.toLocaleString('en-US')} signed, ` +
        `${final ? `${seconds.toFixed(1)} s` : `ETA ${eta} s`}\n`,
    );
  };
}

function startSignerThread(settings: SignerThreadSettings): Worker {
  return startWorker(__dirname, __filename, 'audit-fixture-worker', { auditFixtureSigner: settings });
}

/** Waits until the sequencer has signed a tree head covering every leaf. */
async function awaitIntegration(sequencer: LogSequencer, leaves: number): Promise<void> {
  let size = sequencer.latest().sth.tree_size;
  let lastChange = Date.now();
  while (size < leaves) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    const now = sequencer.latest().sth.tree_size;
    if (now !== size) {
      size = now;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > SEQUENCER_STALL_MS) {
      throw new Error(
        `the log sequencer stopped at ${size} of ${leaves} leaves for ${SEQUENCER_STALL_MS / 1000} s; ` +
          'its errors are logged above',
      );
    }
  }
  if (size !== leaves) throw new Error(`the log holds ${size} leaves, but the fixture admitted ${leaves}`);
}

async function countTreeHeads(eventStore: EventStore): Promise<number> {
  for await (const last of eventStore.readStream(LOG_STREAM, { direction: 'backwards', maxCount: 1 }))
    return last.revision + 1;
  return 0;
}

/** Staging folders of builds whose process is gone (killed midway) are removed. */
function removeAbandonedBuilds(dir: string): void {
  const parent = path.dirname(dir);
  const prefix = `${path.basename(dir)}.building-`;
  let names: string[];
  try {
    names = fs.readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (Number.isInteger(pid) && pid !== process.pid && isAlive(pid)) continue;
    fs.rmSync(path.join(parent, name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Total size of the files under `dir`. */
function diskBytes(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += diskBytes(full);
    else if (entry.isFile()) total += fs.statSync(full).size;
  }
  return total;
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}
