/**
 * Shared builders for the governance acceptance suites: a controllable clock, a started embedded server
 * in a temp dir, request helpers, a valid evidence body, and a log verifier that checks every answer
 * with merkle-core's verifiers (never with the server's own code paths).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Logger } from 'pino';
import { changeTier } from '../../cli/tenant-tier';
import { validBody } from '../../domain/governance/test-fixtures';
import { type JsonSth, leafHashOfRecord, verifySth } from '../../domain/log';
import {
  fromHex,
  loadVerifierKey,
  toHex,
  type VerifierKey,
  verifyCheckpoint,
  verifyConsistency,
  verifyInclusion,
} from '../../merkle-core';
import { loadConfig } from '../../runtime/config/config';
import { createLogger } from '../../runtime/support/logger';
import { type RunningServer, startEmbedded } from '../../runtime/wiring/embedded';
import { tempDir } from './temp-dir';

export const HOUR_MS = 3_600_000;
export const MINUTE_MS = 60_000;

// ---- Clock -----------------------------------------------------------------------------------------

/** A clock the test moves by hand; it only goes forward, unless a fault test steps it back. */
export class TestClock {
  private time: number;

  /** Starts at 06:00 UTC of the current day, so a few days of moves never cross midnight by surprise. */
  constructor(start: number = startOfUtcDay(Date.now()) + 6 * HOUR_MS) {
    this.time = start;
  }

  readonly fn = (): Date => new Date(this.time);

  now(): number {
    return this.time;
  }

  advance(ms: number): void {
    if (ms < 0) throw new Error('the test clock only goes forward');
    this.time += ms;
  }

  set(time: number): void {
    if (time < this.time) throw new Error('the test clock only goes forward');
    this.time = time;
  }

  /** Steps the clock back, as an NTP correction or a VM restored from a snapshot does (fault tests). */
  stepBack(ms: number): void {
    if (ms < 0) throw new Error('stepBack takes how far back, a positive number');
    this.time -= ms;
  }
}

export function startOfUtcDay(time: number): number {
  return time - (time % (24 * HOUR_MS));
}

// ---- Server ----------------------------------------------------------------------------------------

export interface TestServer {
  server: RunningServer;
  dataDir: string;
  clock: TestClock;
  client: GovClient;
  /** Stops the server (if running) and removes the temp dir. */
  dispose(): Promise<void>;
  /** Stops the server (gracefully); the data dir stays. */
  stop(): Promise<void>;
  /** Starts a new server on the same data dir and clock (after `stop`). */
  start(): Promise<void>;
  /** `stop` then `start`. */
  restart(): Promise<void>;
}

/** Suites register many tenants from 127.0.0.1: the per-address limit is raised unless a test sets it. */
export function testConfig(dataDir: string, env: Record<string, string> = {}) {
  return loadConfig({
    GOV_PORT: '0',
    GOV_PLATFORM_PORT: '0',
    GOV_HOST: '127.0.0.1',
    GOV_DATA_DIR: dataDir,
    GOV_REGISTRATIONS_PER_IP_HOUR: '1000000',
    // Anchors would add shared-log leaves at a moment no test chooses; tests of anchoring set it.
    GOV_ANCHOR_INTERVAL_MS: '3600000',
    ...env,
  });
}

export async function startTestServer(
  prefix: string,
  options: { clock?: TestClock; env?: Record<string, string>; logger?: Logger } = {},
): Promise<TestServer> {
  const temp = tempDir(prefix);
  const dataDir = path.join(temp.dir, 'data');
  const clock = options.clock ?? new TestClock();
  const start = () =>
    startEmbedded(testConfig(dataDir, options.env), options.logger ?? createLogger('silent'), {
      clock: clock.fn,
    });
  let running: RunningServer | null = await start();
  const handle: TestServer = {
    server: running,
    dataDir,
    clock,
    client: new GovClient(running.url),
    async dispose() {
      await running?.close();
      running = null;
      temp.remove();
    },
    async stop() {
      await running?.close();
      running = null;
    },
    async start() {
      if (running) throw new Error('the server is already running');
      running = await start();
      handle.server = running;
      handle.client = new GovClient(running.url);
    },
    async restart() {
      await handle.stop();
      await handle.start();
    },
  };
  return handle;
}

/**
 * Operator tier change (with the tenant's own daily leaf and request allowances, if given), then waits
 * until the read models (auth, tier gating) see it.
 */
export async function setTier(
  server: RunningServer,
  tenantId: string,
  tier: 'L1' | 'L2' | 'L2+' | 'L4',
  dailyLeafLimit?: string,
  requestsPerMinute?: string,
): Promise<void> {
  const result = await changeTier(server.services.eventStore, {
    keysDir: path.join(server.services.config.dataDir, 'keys'),
    tenantId,
    tier,
    ...(dailyLeafLimit === undefined ? {} : { dailyLeafLimit }),
    ...(requestsPerMinute === undefined ? {} : { requestsPerMinute }),
  });
  if (!result.ok) throw new Error(`changeTier failed: ${result.message}`);
  // The change's own position: the sequencer may sign a new dedicated log's first head after it.
  await server.supervisor.waitForPosition(
    await server.services.eventStore.headPosition({ eventTypes: ['TenantTierChanged'] }),
    ['TenantTierChanged'],
  );
}

// ---- HTTP ------------------------------------------------------------------------------------------

export interface Answer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body (undefined when the body is not JSON). */
  body: T;
}

export interface ErrorAnswer {
  error: string;
  message: string;
  fields?: { pointer: string; reason: string }[];
  correlation_id?: string;
}

export interface Registration {
  api_key: string;
  tenant_id: string;
  node_id: string;
  log_url: string;
  dashboard_url: string;
  tier: string;
  mode: string;
}

export interface AdmittedEvidence {
  leaf_index: number;
  leaf_hash: string;
  artifact_hash: string;
  compliance_url: string;
  replay_url: string;
  /** The log the leaf is in (`shared`, `test`, `dedicated-<24 hex>`), whose head `sth` is. */
  log: string;
  sth: JsonSth & { log: string };
}

export interface GateFailure {
  error: string;
  message: string;
  gates_failed: string[];
  details: Record<string, string>;
  action: string;
}

export interface RequestOptions {
  key?: string;
  /** A JSON value to send (serialized here). */
  json?: unknown;
  /** Raw body text, sent as application/json. */
  raw?: string;
  headers?: Record<string, string>;
}

let registrations = 0;

export class GovClient {
  constructor(readonly url: string) {}

  async request<T = Record<string, unknown>>(
    method: string,
    route: string,
    options: RequestOptions = {},
  ): Promise<Answer<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
    let body: string | undefined;
    if (options.json !== undefined) body = JSON.stringify(options.json);
    if (options.raw !== undefined) body = options.raw;
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(`${this.url}${route}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed as T };
  }

  get<T = Record<string, unknown>>(route: string, key?: string): Promise<Answer<T>> {
    return this.request<T>('GET', route, key === undefined ? {} : { key });
  }

  post<T = Record<string, unknown>>(route: string, json: unknown, key?: string): Promise<Answer<T>> {
    return this.request<T>('POST', route, { json, ...(key === undefined ? {} : { key }) });
  }

  /** Registers a fresh tenant (201 expected) and returns its credentials. */
  async register(body: Record<string, unknown> = {}): Promise<Registration> {
    const res = await this.post<Registration>('/auto-register', {
      email: `user${++registrations}@example.com`,
      ...body,
    });
    if (res.status !== 201) throw new Error(`registration answered ${res.status}: ${res.text}`);
    return res.body;
  }

  submitEvidence(key: string, body: unknown = validEvidence()) {
    return this.post<AdmittedEvidence & ErrorAnswer & GateFailure>('/governance/evidence', body, key);
  }

  /** Submits evidence that must be admitted; returns the 201 body. */
  async admit(key: string, body: unknown = validEvidence()): Promise<AdmittedEvidence> {
    const res = await this.submitEvidence(key, body);
    if (res.status !== 201) throw new Error(`evidence answered ${res.status}: ${res.text}`);
    return res.body;
  }
}

// ---- Evidence --------------------------------------------------------------------------------------

/** A 64-hex SHA-256 digest of a label. */
export function digest(label: string): string {
  return createHash('sha256').update(label).digest('hex');
}

export interface EvidenceBody {
  subject_id: string;
  gate_results: {
    G1: {
      result: string;
      confidence_interval_lower: unknown;
      confidence_interval_upper: unknown;
      bootstrap_iterations: unknown;
    };
    G2: { result: string; causal_attribution: unknown; ablation_delta: unknown };
    G3: { result: string; protected_metrics: unknown };
    G4: { result: string; evidence_class: unknown };
    G5: { result: string; operator_id: unknown };
  };
  evidence: {
    dataset_provenance_hash: string;
    evaluation_trace_hash: string;
    ablation_execution_log_hash: string;
    capability_certificate_hash: string;
  };
  replay_seed: string;
  state_before_hash: string;
  state_after_hash: string;
}

let evidenceCount = 0;

/** A body that passes every default gate; each call differs (fresh state hashes). */
export function validEvidence(subjectId = 'model-1'): EvidenceBody {
  const n = ++evidenceCount;
  return {
    ...validBody(),
    subject_id: subjectId,
    evidence: {
      dataset_provenance_hash: digest(`dataset-${n}`),
      evaluation_trace_hash: digest(`trace-${n}`),
      ablation_execution_log_hash: digest(`ablation-${n}`),
      capability_certificate_hash: digest(`certificate-${n}`),
    },
    state_before_hash: digest(`before-${n}`),
    state_after_hash: digest(`after-${n}`),
  };
}

/** Evidence whose G1 lower bound is below the default 0.80 minimum: a GATE_FAILURE. */
export function failingEvidence(subjectId = 'model-1'): EvidenceBody {
  const body = validEvidence(subjectId);
  body.gate_results.G1.confidence_interval_lower = 0.5;
  return body;
}

// ---- Log verification ------------------------------------------------------------------------------

interface ProofAnswer {
  leaf_index: number;
  leaf_hash: string;
  tree_size: number;
  root_hash: string;
  audit_path: string[];
}

interface LeafAnswer {
  leaf_index: number;
  leaf_hash: string;
  record: unknown;
  payload_uri: string | null;
}

interface ConsistencyAnswer {
  from: number;
  to: number;
  proof: string[];
}

/**
 * Checks everything the public log says with merkle-core's verifiers and the published key, and keeps
 * every tree head it has seen so their pairwise consistency can be checked at the end.
 */
export class LogVerifier {
  private key: VerifierKey | null = null;
  /** Signed tree heads seen, by tree size (a size signed twice must have the same root). */
  readonly heads = new Map<number, JsonSth>();

  /** `base`: the log's path, `/gov/v1/log` (the shared log) or `/gov/v1/logs/<name>`. */
  constructor(
    private readonly getClient: () => GovClient,
    readonly base = '/gov/v1/log',
  ) {}

  private get client(): GovClient {
    return this.getClient();
  }

  /** The log key from GET {base}/keys, loaded (its key ID checked) by merkle-core. */
  async logKey(): Promise<VerifierKey> {
    if (this.key) return this.key;
    const res = await this.client.get<{ log: string }>(`${this.base}/keys`);
    if (res.status !== 200) throw new Error(`GET /keys answered ${res.status}`);
    this.key = loadVerifierKey(res.body.log);
    return this.key;
  }

  /** Verifies an STH's signature with the published key and remembers it. */
  async checkSth(sth: JsonSth): Promise<void> {
    const key = await this.logKey();
    expect(sth.log_id).toBe(key.text);
    const verdict = await verifySth(sth, key);
    if (!verdict.ok) throw new Error(`STH of size ${sth.tree_size} does not verify: ${verdict.reason}`);
    expect(verdict.checkpoint.size).toBe(sth.tree_size);
    expect(toHex(verdict.checkpoint.rootHash)).toBe(sth.root_hash);
    const known = this.heads.get(sth.tree_size);
    if (known) expect(known.root_hash).toBe(sth.root_hash);
    else this.heads.set(sth.tree_size, sth);
  }

  /** The latest STH and the checkpoint note, both verified and saying the same thing. */
  async latest(): Promise<JsonSth> {
    const res = await this.client.get<JsonSth>(`${this.base}/sth`);
    expect(res.status).toBe(200);
    await this.checkSth(res.body);
    const checkpoint = await this.client.get(`${this.base}/checkpoint`);
    expect(checkpoint.status).toBe(200);
    const verdict = await verifyCheckpoint(checkpoint.text, await this.logKey());
    if (!verdict.ok) throw new Error(`checkpoint does not verify: ${verdict.reason}`);
    expect(verdict.checkpoint.size).toBe(res.body.tree_size);
    expect(toHex(verdict.checkpoint.rootHash)).toBe(res.body.root_hash);
    return res.body;
  }

  /** Leaf `leafIndex` with hash `leafHash` is in the tree of `sth` (proof fetched at that size). */
  async checkInclusion(leafIndex: number, leafHash: string, sth: JsonSth): Promise<void> {
    const res = await this.client.get<ProofAnswer>(
      `${this.base}/proof?leaf_hash=${leafHash}&tree_size=${sth.tree_size}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.leaf_index).toBe(leafIndex);
    expect(res.body.tree_size).toBe(sth.tree_size);
    this.checkAuditPath(leafIndex, leafHash, res.body.audit_path, sth);
  }

  /** Verifies an audit path against the root of a (verified) STH. */
  checkAuditPath(leafIndex: number, leafHash: string, auditPath: readonly string[], sth: JsonSth): void {
    const verdict = verifyInclusion(
      leafIndex,
      sth.tree_size,
      fromHex(leafHash),
      auditPath.map(fromHex),
      fromHex(sth.root_hash),
    );
    if (!verdict.ok)
      throw new Error(`inclusion of leaf ${leafIndex} in tree ${sth.tree_size} fails: ${verdict.reason}`);
  }

  /** The record served at `leafIndex` hashes (RFC 9162 over its canonical JSON) to `leafHash`. */
  async checkLeafRecord(leafIndex: number, leafHash: string): Promise<LeafAnswer> {
    const res = await this.client.get<LeafAnswer>(`${this.base}/leaf?index=${leafIndex}`);
    expect(res.status).toBe(200);
    expect(res.body.leaf_hash).toBe(leafHash);
    expect(toHex(leafHashOfRecord(res.body.record))).toBe(leafHash);
    return res.body;
  }

  /** Everything a 201 from POST /governance/evidence promises, checked independently. */
  async checkAdmission(admitted: AdmittedEvidence): Promise<void> {
    expect(admitted).toMatchObject({
      leaf_index: expect.any(Number),
      leaf_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      artifact_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      compliance_url: expect.stringMatching(new RegExp(`/governance/report/${admitted.artifact_hash}$`)),
      replay_url: expect.any(String),
      sth: {
        tree_size: expect.any(Number),
        root_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/),
        log_signature: expect.any(String),
      },
    });
    expect(admitted.leaf_index).toBeLessThan(admitted.sth.tree_size);
    await this.checkSth(admitted.sth);
    await this.checkInclusion(admitted.leaf_index, admitted.leaf_hash, admitted.sth);
    const leaf = await this.checkLeafRecord(admitted.leaf_index, admitted.leaf_hash);
    expect(leaf.record).toMatchObject({ artifact_hash: admitted.artifact_hash });
    // The replay bundle: its SHA-256 over the served bytes is the artifact hash.
    const replay = await fetch(admitted.replay_url);
    expect(replay.status).toBe(200);
    const bytes = Buffer.from(await replay.arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(admitted.artifact_hash);
  }

  /** The tree heads seen, smallest first. */
  sortedHeads(): JsonSth[] {
    return [...this.heads.values()].sort((a, b) => a.tree_size - b.tree_size);
  }

  /** Consistency proofs between every pair of tree heads seen, verified against their own roots. */
  async checkAllConsistency(): Promise<number> {
    const heads = this.sortedHeads();
    const pairs: [JsonSth, JsonSth][] = [];
    for (let i = 0; i < heads.length; i++)
      for (let j = i + 1; j < heads.length; j++) pairs.push([heads[i]!, heads[j]!]);
    return this.checkConsistency(pairs);
  }

  /**
   * Consistency proofs from each tree head seen to the next larger one: a chain that covers them all
   * (the empty tree is consistent with every tree, and has no proof to ask for).
   */
  async checkConsistencyChain(): Promise<number> {
    const heads = this.sortedHeads().filter((head) => head.tree_size > 0);
    return this.checkConsistency(heads.slice(1).map((newer, i): [JsonSth, JsonSth] => [heads[i]!, newer]));
  }

  private async checkConsistency(pairs: readonly [JsonSth, JsonSth][]): Promise<number> {
    const failures: string[] = [];
    await inParallel(pairs, 16, async ([older, newer]) => {
      const res = await this.client.get<ConsistencyAnswer>(
        `${this.base}/consistency?from=${older.tree_size}&to=${newer.tree_size}`,
      );
      if (res.status !== 200) {
        failures.push(`${older.tree_size}→${newer.tree_size}: HTTP ${res.status}`);
        return;
      }
      const verdict = verifyConsistency(
        older.tree_size,
        newer.tree_size,
        res.body.proof.map(fromHex),
        fromHex(older.root_hash),
        fromHex(newer.root_hash),
      );
      if (!verdict.ok) failures.push(`${older.tree_size}→${newer.tree_size}: ${verdict.reason}`);
    });
    expect(failures).toEqual([]);
    return pairs.length;
  }
}

/** Runs `work` over `items` with at most `limit` at a time. */
export async function inParallel<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}

// ---- DOMAIN.md arithmetic (independent of the product's code) --------------------------------------

export interface Hce {
  H: number;
  C: number;
  E: number;
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** DOMAIN.md: the execution state derived from the authorization state when exec_state is absent. */
export function expectedExecState(auth: Hce, outcome: 'EXECUTED' | 'FAILED' | 'DEVIATED'): Hce {
  const shift = {
    EXECUTED: { H: 0, C: 0, E: 0 },
    FAILED: { H: -0.15, C: -0.2, E: 0.25 },
    DEVIATED: { H: -0.1, C: -0.15, E: 0.15 },
  }[outcome];
  return { H: clamp01(auth.H + shift.H), C: clamp01(auth.C + shift.C), E: clamp01(auth.E + shift.E) };
}

/** DOMAIN.md: Euclidean distance in [H, C, 1 − E]. */
export function expectedL2(a: Hce, b: Hce): number {
  return Math.hypot(b.H - a.H, b.C - a.C, 1 - b.E - (1 - a.E));
}

/** DOMAIN.md: NOMINAL if ≤ 0.05, DRIFT if ≤ 0.20, else BREACH. */
export function expectedClassification(l2: number): 'NOMINAL' | 'DRIFT' | 'BREACH' {
  if (l2 <= 0.05) return 'NOMINAL';
  if (l2 <= 0.2) return 'DRIFT';
  return 'BREACH';
}

/** DOMAIN.md: Ω is H ≥ 0.40, C ≥ 0.40, E ≤ 0.60. */
export function inOmega(s: Hce): boolean {
  return s.H >= 0.4 && s.C >= 0.4 && s.E <= 0.6;
}

/** DOMAIN.md: improved / degraded / stable with a ±0.01 band; for E a rise is degraded. */
export function expectedDirection(before: number, after: number, higherIsBetter: boolean): string {
  const change = higherIsBetter ? after - before : before - after;
  if (change > 0.01) return 'improved';
  if (change < -0.01) return 'degraded';
  return 'stable';
}
