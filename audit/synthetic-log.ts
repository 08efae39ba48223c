/**
 * A consistent event stream built the way the service writes one — real bundles, validator votes,
 * signed envelopes, closed-loop leaves and signed tree heads — for tests and benchmarks of the audit
 * (no Jest here). Faults are then injected by editing the returned events.
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
import { leafHashOfRecord, timestampExtension } from '../domain/log';
import type {
  EvidenceAdmitted,
  ExecutionAdmitted,
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
import { LOG_STREAM, SYSTEM_TENANT } from '../projectors/log/log-sequencer';
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
}

export class SyntheticLog {
  readonly events: RecordedEvent[] = [];
  readonly logSigner: NoteSigner;
  readonly authority: { privateKey: KeyObject; publicKey: KeyObject; nodeId: string };
  readonly validators: LocalValidator[];
  private readonly tree = new CompactRange();
  private pending: RecordedEvent[] = [];
  private readonly revisions = new Map<string, number>();
  private readonly lastBundle = new Map<string, string>();
  private readonly policies = new Map<string, PolicyInForce>();
  private time: number;

  constructor(options: SyntheticLogOptions = {}) {
    this.logSigner = loadSignerKey(generateKeyPair(options.origin ?? 'audit.example/log').signerKey);
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
    { certificates = 'current', gateResults }: AdmitOptions = {},
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
        log_binding: { log_id: this.logSigner.verifierKey, log_url: 'https://audit.example/gov/v1/log' },
        generated_at: at,
      },
      { privateKey: this.authority.privateKey, nodeId: this.authority.nodeId },
    );
    this.lastBundle.set(chainKey, artifactHash);
    return this.admit<EvidenceAdmitted>(tenantId, 'EvidenceAdmitted', {
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

  /** The execution of an authorization and its variance record: two leaves, as one command appends them. */
  execute(
    authorization: RecordedEvent<EvidenceAdmitted>,
    outcome: ExecutionOutcome = 'EXECUTED',
    execState?: Observables,
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
    const execution = this.admit<ExecutionAdmitted>(auth.tenant_id, 'ExecutionAdmitted', {
      tenant_id: auth.tenant_id,
      subject_id: auth.subject_id,
      leaf_hash: execLeaf,
      trace,
    });
    const variance = this.admit<VarianceRecorded>(auth.tenant_id, 'VarianceRecorded', {
      tenant_id: auth.tenant_id,
      subject_id: auth.subject_id,
      leaf_hash: toHex(leafHashOfRecord(record)),
      record,
      observables: auth.observables,
      lifecycle: 'ACTIVE',
    });
    return [execution, variance];
  }

  /** Integrates every admission since the last tree head and signs the new head, as the sequencer does. */
  signTreeHead(): RecordedEvent<TreeHeadSigned> {
    const batch = this.pending;
    this.pending = [];
    for (const event of batch) this.tree.append(fromHex((event.data as { leaf_hash: string }).leaf_hash));
    const time = new Date(this.time);
    const checkpoint = signCheckpoint(
      {
        origin: this.logSigner.name,
        size: this.tree.size,
        rootHash: this.tree.root(),
        extensions: [timestampExtension(time)],
      },
      this.logSigner,
    );
    return this.append<TreeHeadSigned>(
      LOG_STREAM,
      'TreeHeadSigned',
      {
        origin: this.logSigner.name,
        tree_size: this.tree.size,
        root_hash: toHex(this.tree.root()),
        timestamp: time.toISOString(),
        checkpoint,
        first_leaf_index: this.tree.size - batch.length,
        leaf_positions: batch.map((e) => e.position),
      },
      SYSTEM_TENANT,
    );
  }

  private admit<T>(tenantId: string, type: string, data: T): RecordedEvent<T> {
    const event = this.append(`tenant-${tenantId}`, type, data, tenantId);
    this.pending.push(event);
    return event;
  }

  private tick(): string {
    const at = new Date(this.time).toISOString();
    this.time += 1000;
    return at;
  }
}
