/**
 * A consistent event stream built the way the service writes one — real bundles, validator votes,
 * signed envelopes, closed-loop leaves and signed tree heads — for tests and benchmarks of the audit
 * (no Jest here). Faults are then injected by editing the returned events. Besides the shared log,
 * it can create other logs (`createLog`), each with its own key, tree and heads, as issue 32's
 * contract writes them: admissions and heads of those logs carry their `log`.
 */
import { createPublicKey, generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto';
import { artifactHashOf, buildProofBundle } from '../domain/governance/bundle';
import {
  buildExecutionTrace,
  computeVariance,
  type ExecutionOutcome,
  execStateFor,
} from '../domain/governance/closed-loop';
import { authorityNodeIdOf, buildEnvelope } from '../domain/governance/envelope';
import {
  DEFAULT_POLICY_IN_FORCE,
  type PolicyInForce,
  policyHash,
  policyInForce,
} from '../domain/governance/policy';
import { legacyFormOf, validBody } from '../domain/governance/test-fixtures';
import {
  createLocalValidators,
  type LocalValidator,
  runValidatorRound,
} from '../domain/governance/validators';
import {
  anchorStreamOf,
  type LogAnchorRecord,
  leafHashOfRecord,
  logAnchorRecord,
  logStreamOf,
  SHARED_LOG_NAME,
  timestampExtension,
  treeHeadStreamOf,
} from '../domain/log';
import type {
  EvidenceAdmitted,
  ExecutionAdmitted,
  LogAnchored,
  LogCreated,
  Observables,
  SubmitEvidenceBody,
  TenantPolicy,
  TenantPolicyChanged,
  TreeHeadSigned,
  VarianceRecorded,
} from '../event-schemas';
import {
  CompactRange,
  fromHex,
  generateKeyPair,
  loadSignerKey,
  type NoteSigner,
  signCheckpoint,
  toHex,
} from '../merkle-core';
import type { RecordedEvent } from '../ports/event-store';
import { SYSTEM_TENANT } from '../projectors/log/log-sequencer';
import type { AuditTrust } from './trust';

export interface SyntheticLogOptions {
  /** The log origin (name of the log key). */
  origin?: string;
  /** The first event's time; every event is one second after the previous one. */
  start?: Date;
}

/** How an admission is made: its certificate's form, and gate results other than the fixture's. */
export interface AdmitOptions {
  certificates?: 'current' | 'earlier';
  gateResults?: SubmitEvidenceBody['gate_results'];
  /** The log it is admitted to (default: shared); another must have been created with createLog. */
  log?: string;
  /** The log whose key and URL the envelope's log_binding names (default: `log`; another is a fault). */
  bindTo?: string;
}

/** One log of the stream: its key, its tree and the admissions its next head integrates. */
interface SyntheticLogTree {
  signer: NoteSigner;
  url: string;
  tree: CompactRange;
  pending: RecordedEvent[];
}

export class SyntheticLog {
  readonly events: RecordedEvent[] = [];
  readonly logSigner: NoteSigner;
  readonly authority: { privateKey: KeyObject; publicKey: KeyObject; nodeId: string };
  readonly validators: LocalValidator[];
  /** Every log, by name: `shared` from the start, the others as createLog makes them. */
  private readonly logs = new Map<string, SyntheticLogTree>();
  private readonly revisions = new Map<string, number>();
  private readonly lastBundle = new Map<string, string>();
  private readonly policies = new Map<string, PolicyInForce>();
  private time: number;

  constructor(options: SyntheticLogOptions = {}) {
    this.logSigner = loadSignerKey(generateKeyPair(options.origin ?? 'audit.example/log').signerKey);
    this.logs.set(SHARED_LOG_NAME, {
      signer: this.logSigner,
      url: 'https://audit.example/gov/v1/log',
      tree: new CompactRange(),
      pending: [],
    });
    const { privateKey } = generateKeyPairSync('ed25519');
    const publicKey = createPublicKey(privateKey);
    this.authority = { privateKey, publicKey, nodeId: authorityNodeIdOf(publicKey) };
    this.validators = createLocalValidators(
      Array.from({ length: 4 }, () => generateKeyPairSync('ed25519').privateKey),
    );
    this.time = (options.start ?? new Date('2025-06-01T12:00:00.000Z')).getTime();
  }

  /** The keys an auditor of this log trusts. */
  get trust(): AuditTrust {
    return {
      logVerifierKeys: [this.logSigner.verifierKey],
      authorityPublicKeys: [this.authority.publicKey],
      validatorPublicKeys: this.validators.map((v) => v.publicKey),
    };
  }

  /**
   * Creates log `name` (`test` or `dedicated-<24 hex>`) as the service does: a key of origin
   * `<shared origin>/<name>` and a LogCreated, the first event of stream `log-<name>`.
   */
  createLog(name: string): RecordedEvent<LogCreated> {
    if (this.logs.has(name)) throw new Error(`log ${name} exists`);
    const origin = `${this.logSigner.name}/${name}`;
    const signer = loadSignerKey(generateKeyPair(origin).signerKey);
    this.logs.set(name, {
      signer,
      url: `https://audit.example/gov/v1/logs/${name}`,
      tree: new CompactRange(),
      pending: [],
    });
    const dedicated = name.startsWith('dedicated-');
    const tenantId = dedicated ? `ten_${name.slice('dedicated-'.length)}` : null;
    return this.append<LogCreated>(
      logStreamOf(name),
      'LogCreated',
      {
        log: name,
        kind: dedicated ? 'dedicated' : 'test',
        origin,
        verifier_key: signer.verifierKey,
        tenant_id: tenantId,
      },
      tenantId ?? SYSTEM_TENANT,
    );
  }

  /** The signer of log `name` (the shared log's is logSigner). */
  signerOf(name: string): NoteSigner {
    return this.log(name).signer;
  }

  /** Appends any event to `stream` at the next position and revision. */
  append<T>(stream: string, type: string, data: T, tenantId: string): RecordedEvent<T> {
    const revision = (this.revisions.get(stream) ?? -1) + 1;
    this.revisions.set(stream, revision);
    const event: RecordedEvent<T> = {
      id: randomUUID(),
      type,
      stream,
      revision,
      position: this.events.length + 1,
      recorded_at: this.tick(),
      tenant_id: tenantId,
      correlation_id: randomUUID(),
      causation_id: null,
      schema_version: 1,
      data,
    };
    this.events.push(event);
    return event;
  }

  /**
   * An admitted evidence of `subjectId` (the fixture's gate results, or `gateResults`), certified by
   * the four validators under the tenant's policy in force and signed by the authority; with
   * `certificates: 'earlier'`, its certificate in the form earlier releases stored.
   */
  async admitEvidence(
    tenantId: string,
    subjectId = 'model-1',
    observables: Observables = { H: 0.5, C: 0.5, E: 0.5 },
    { certificates = 'current', gateResults, log = SHARED_LOG_NAME, bindTo = log }: AdmitOptions = {},
  ): Promise<RecordedEvent<EvidenceAdmitted>> {
    const at = new Date(this.time).toISOString();
    const chainKey = `${tenantId}/${subjectId}`;
    const parent = this.lastBundle.get(chainKey) ?? null;
    const body = { ...validBody(), subject_id: subjectId, replay_seed: randomUUID().replaceAll('-', '') };
    if (gateResults) body.gate_results = gateResults;
    const bundle = buildProofBundle({
      tenant_id: tenantId,
      body,
      parent_bundle_hash: parent,
      generated_at: at,
    });
    const artifactHash = artifactHashOf(bundle);
    const inForce = this.policies.get(tenantId) ?? DEFAULT_POLICY_IN_FORCE;
    const round = await runValidatorRound(this.validators, {
      bundle,
      artifact_hash: artifactHash,
      expected_parent_hash: parent,
      policy: inForce.policy,
      now: at,
    });
    const certificate = certificates === 'earlier' ? legacyFormOf(round) : round;
    const envelope = buildEnvelope(
      {
        bundle_hash: artifactHash,
        payload_uri: `https://audit.example/replay/${artifactHash}`,
        tenant_id: tenantId,
        subject_id: subjectId,
        certificate,
        log_binding: { log_id: this.log(bindTo).signer.verifierKey, log_url: this.log(bindTo).url },
        generated_at: at,
      },
      { privateKey: this.authority.privateKey, nodeId: this.authority.nodeId },
    );
    this.lastBundle.set(chainKey, artifactHash);
    return this.admit<EvidenceAdmitted>(tenantId, 'EvidenceAdmitted', log, {
      tenant_id: tenantId,
      subject_id: subjectId,
      artifact_hash: artifactHash,
      leaf_hash: toHex(leafHashOfRecord(envelope)),
      bundle,
      certificate,
      envelope,
      gate_details: {},
      observables,
      lifecycle: 'ACTIVE',
      admitted_at: at,
      ...(inForce.policy_hash !== DEFAULT_POLICY_IN_FORCE.policy_hash && {
        policy: structuredClone(inForce.policy),
      }),
    });
  }

  /** The tenant's policy replaced by `policy`, as PUT /governance/policy appends it. */
  changePolicy(tenantId: string, policy: TenantPolicy): RecordedEvent<TenantPolicyChanged> {
    const current = this.policies.get(tenantId) ?? DEFAULT_POLICY_IN_FORCE;
    const data: TenantPolicyChanged = {
      tenant_id: tenantId,
      policy,
      version: current.version + 1,
      previous_policy_hash: current.policy_hash,
      policy_hash: policyHash(policy),
      changed_at: new Date(this.time).toISOString(),
      key_id: '0123456789abcdef',
    };
    this.policies.set(tenantId, policyInForce(data));
    return this.append(`tenant-${tenantId}`, 'TenantPolicyChanged', data, tenantId);
  }

  /**
   * The execution of an authorization and its variance record: two leaves, as one command appends
   * them, in `log` (default: the authorization's).
   */
  execute(
    authorization: RecordedEvent<EvidenceAdmitted>,
    outcome: ExecutionOutcome = 'EXECUTED',
    execState?: Observables,
    log: string = authorization.data.log ?? SHARED_LOG_NAME,
  ): [RecordedEvent<ExecutionAdmitted>, RecordedEvent<VarianceRecorded>] {
    const auth = authorization.data;
    const at = new Date(this.time).toISOString();
    const trace = buildExecutionTrace({
      tenant_id: auth.tenant_id,
      subject_id: auth.subject_id,
      parent_auth_leaf_hash: auth.leaf_hash,
      outcome,
      exec_state: execStateFor(outcome, auth.observables, execState),
      recorded_at: at,
    });
    const execLeaf = toHex(leafHashOfRecord(trace));
    const record = computeVariance({
      tenant_id: auth.tenant_id,
      subject_id: auth.subject_id,
      parent_auth_leaf_hash: auth.leaf_hash,
      parent_exec_leaf_hash: execLeaf,
      auth_state: auth.observables,
      exec_state: trace.exec_state,
      recorded_at: at,
    });
    const execution = this.admit<ExecutionAdmitted>(auth.tenant_id, 'ExecutionAdmitted', log, {
      tenant_id: auth.tenant_id,
      subject_id: auth.subject_id,
      leaf_hash: execLeaf,
      trace,
    });
    const variance = this.admit<VarianceRecorded>(auth.tenant_id, 'VarianceRecorded', log, {
      tenant_id: auth.tenant_id,
      subject_id: auth.subject_id,
      leaf_hash: toHex(leafHashOfRecord(record)),
      record,
      observables: auth.observables,
      lifecycle: 'ACTIVE',
    });
    return [execution, variance];
  }

  /**
   * Integrates every admission of log `name` since its last tree head and signs the new head, as the
   * sequencer of that log does (signed with `signer`, to forge one: default the log's own key).
   */
  signTreeHead(name: string = SHARED_LOG_NAME, signer?: NoteSigner): RecordedEvent<TreeHeadSigned> {
    const log = this.log(name);
    const { tree } = log;
    const batch = log.pending;
    log.pending = [];
    for (const event of batch) tree.append(fromHex((event.data as { leaf_hash: string }).leaf_hash));
    const time = new Date(this.time);
    // A note key signs checkpoints of its own origin only: a head signed with another key says so.
    const origin = (signer ?? log.signer).name;
    const checkpoint = signCheckpoint(
      {
        origin,
        size: tree.size,
        rootHash: tree.root(),
        extensions: [timestampExtension(time)],
      },
      signer ?? log.signer,
    );
    return this.append<TreeHeadSigned>(
      treeHeadStreamOf(name),
      'TreeHeadSigned',
      {
        origin,
        tree_size: tree.size,
        root_hash: toHex(tree.root()),
        timestamp: time.toISOString(),
        checkpoint,
        first_leaf_index: tree.size - batch.length,
        leaf_positions: batch.map((e) => e.position),
        ...(name !== SHARED_LOG_NAME && { log: name }),
      },
      SYSTEM_TENANT,
    );
  }

  /**
   * Anchors the head `head` (a TreeHeadSigned of another log) in the shared log, as the anchorer does:
   * a LogAnchored in stream `log-anchor-<log>`, a pending leaf of the shared log. `record` changes the
   * record (to forge one).
   */
  anchor(
    head: RecordedEvent<TreeHeadSigned>,
    record: Partial<LogAnchorRecord> = {},
  ): RecordedEvent<LogAnchored> {
    const { data } = head;
    const log = data.log ?? SHARED_LOG_NAME;
    const anchored = { ...logAnchorRecord({ log, ...data }, new Date(this.time)), ...record };
    const event = this.append<LogAnchored>(
      anchorStreamOf(log),
      'LogAnchored',
      { anchored_log: log, leaf_hash: toHex(leafHashOfRecord(anchored)), record: anchored },
      SYSTEM_TENANT,
    );
    this.log(SHARED_LOG_NAME).pending.push(event);
    return event;
  }

  /** The data of an earlier admission admitted again, to log `log`: a leaf in two logs (a fault). */
  readmit<T>(event: RecordedEvent<T>, log: string): RecordedEvent<T> {
    const { log: _, ...data } = event.data as T & { log?: string };
    return this.admit(event.tenant_id, event.type, log, data as T);
  }

  private log(name: string): SyntheticLogTree {
    const log = this.logs.get(name);
    if (!log) throw new Error(`log ${name} was not created (createLog)`);
    return log;
  }

  private admit<T>(tenantId: string, type: string, log: string, data: T): RecordedEvent<T> {
    const tree = this.log(log);
    const event = this.append(
      `tenant-${tenantId}`,
      type,
      log === SHARED_LOG_NAME ? data : { ...data, log },
      tenantId,
    );
    tree.pending.push(event);
    return event as RecordedEvent<T>;
  }

  private tick(): string {
    const at = new Date(this.time).toISOString();
    this.time += 1000;
    return at;
  }
}
