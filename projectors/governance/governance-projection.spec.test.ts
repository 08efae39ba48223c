/**
 * Specifications of the governance projection: given recorded admissions and gate failures, then the
 * `leaves`, `log_meta`, `bundles`, `closed_loop` and `subjects` documents the log lookups, reports,
 * chain, variance, triple-leaf and status read. The subjects' observables are spelled out from the
 * nudges of domain/governance/observables.ts (a pass: H +0.005, C +0.005, E −0.005; a gate failure:
 * −0.02, −0.015, +0.02; a BREACH: −0.05, −0.035, +0.05; from 0.5 each).
 */
import { createHash } from 'node:crypto';
import { SqliteReadStore } from '../../adapters/sqlite/read-store';
import type {
  EvidenceAdmitted,
  ExecutionAdmitted,
  ExecutionTrace,
  GateFailed,
  LogAnchored,
  Observables,
  VarianceRecord,
  VarianceRecorded,
} from '../../event-schemas';
import type { RecordedEvent } from '../../ports/event-store';
import type { ReadStore } from '../../ports/read-store';
import type { ProjectionState } from '../engine/projection';
import { ProjectionSpecification, type SpecEvent } from '../engine/projection-spec';
import { projectEvents } from '../engine/runner';
import {
  BUNDLES,
  type BundleView,
  CLOSED_LOOP,
  type ClosedLoopView,
  governanceProjection,
  LEAVES,
  LOG_ANCHORS,
  LOG_META,
  type LogAnchorView,
  logAnchorId,
  type StoredLeaf,
  SUBJECTS,
  type SubjectView,
} from './governance-projection';

const given = ProjectionSpecification.for(governanceProjection);

const TENANT = `ten_${'a'.repeat(24)}`;
const OTHER = `ten_${'b'.repeat(24)}`;
const hex = (label: string) => createHash('sha256').update(label).digest('hex');
const at = (minute: number) => `2026-03-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
const OBSERVABLES: Observables = { H: 0.7, C: 0.6, E: 0.3 };

type EvidenceMembers = Pick<
  EvidenceAdmitted,
  | 'tenant_id'
  | 'subject_id'
  | 'artifact_hash'
  | 'leaf_hash'
  | 'admitted_at'
  | 'gate_details'
  | 'lifecycle'
  | 'observables'
> & { bundle: Pick<EvidenceAdmitted['bundle'], 'parent_bundle_hash'> };

/** Evidence `n` admitted, as this projection reads it (its declared data members). */
function evidence(
  n: number,
  {
    tenant = TENANT,
    subject = 'model-1',
    parent = null as string | null,
    minute = n,
    log = undefined as string | undefined,
  } = {},
): SpecEvent {
  const data: EvidenceMembers & { log?: string } = {
    ...(log === undefined ? {} : { log }),
    tenant_id: tenant,
    subject_id: subject,
    artifact_hash: hex(`artifact-${n}`),
    leaf_hash: hex(`envelope-${n}`),
    admitted_at: at(minute),
    bundle: { parent_bundle_hash: parent },
    gate_details: { G1: `gate detail ${n}` },
    lifecycle: 'ACTIVE',
    observables: OBSERVABLES,
  };
  return { type: 'EvidenceAdmitted', data };
}

function gateFailed(minute: number, { subject = 'model-1', policyViolation = false } = {}): SpecEvent {
  const data: GateFailed = {
    tenant_id: TENANT,
    subject_id: subject,
    error: 'GATE_FAILURE',
    gates_failed: ['G1'],
    details: { G1: 'confidence_interval_lower 0.50 is below the policy minimum 0.80' },
    action: 'ACTION_BLOCKED',
    policy_violation: policyViolation,
    submission_hash: hex(`submission-${minute}`),
    observables: OBSERVABLES,
    lifecycle: 'ACTIVE',
    failed_at: at(minute),
  };
  return { type: 'GateFailed', data };
}

const trace = (authLeafHash: string): ExecutionTrace => ({
  type: 'GOV_EXECUTION_TRACE_V1',
  version: 1,
  tenant_id: TENANT,
  parent_auth_leaf_hash: authLeafHash,
  subject_id: 'model-1',
  outcome: 'DEVIATED',
  exec_state: { H: 0.6, C: 0.45, E: 0.45 },
  recorded_at: at(30),
});

function executionAdmitted(authLeafHash: string, log?: string): SpecEvent {
  const data: ExecutionAdmitted & { log?: string } = {
    ...(log === undefined ? {} : { log }),
    tenant_id: TENANT,
    subject_id: 'model-1',
    leaf_hash: hex(`trace-of-${authLeafHash}`),
    trace: trace(authLeafHash),
  };
  return { type: 'ExecutionAdmitted', data };
}

const varianceRecord = (authLeafHash: string): VarianceRecord => ({
  type: 'GOV_VARIANCE_RECORD_V1',
  version: 1,
  tenant_id: TENANT,
  parent_auth_leaf_hash: authLeafHash,
  parent_exec_leaf_hash: hex(`trace-of-${authLeafHash}`),
  subject_id: 'model-1',
  auth_state: { H: 0.7, C: 0.6, E: 0.3 },
  exec_state: { H: 0.6, C: 0.45, E: 0.45 },
  delta: { H: -0.1, C: -0.15, E: 0.15 },
  l2_distance: 0.235,
  classification: 'BREACH',
  drift_direction: { H: 'degraded', C: 'degraded', E: 'degraded' },
  auth_in_omega: true,
  exec_in_omega: true,
  omega_breach: false,
  recorded_at: at(31),
});

function varianceRecorded(authLeafHash: string, log?: string): SpecEvent {
  const data: VarianceRecorded & { log?: string } = {
    ...(log === undefined ? {} : { log }),
    tenant_id: TENANT,
    subject_id: 'model-1',
    leaf_hash: hex(`variance-of-${authLeafHash}`),
    record: varianceRecord(authLeafHash),
    observables: OBSERVABLES,
    lifecycle: 'ACTIVE',
  };
  return { type: 'VarianceRecorded', data };
}

/** Log `log`'s checkpoint of `size` anchored in the shared log (a LogAnchored never names a log). */
function anchored(log: string, size: number, minute: number): SpecEvent {
  const data: LogAnchored = {
    anchored_log: log,
    leaf_hash: hex(`anchor-${log}-${size}`),
    record: {
      record_type: 'GOV_LOG_ANCHOR_V1',
      log,
      origin: `gov.example/${log}`,
      tree_size: size,
      root_hash: hex(`root-${log}-${size}`),
      checkpoint: `gov.example/${log}\n${size}\nroot\n\n— gov.example/${log} signature\n`,
      anchored_at: at(minute),
    },
  };
  return { type: 'LogAnchored', data };
}

const anchorLeaf = (log: string, size: number, index: number, position: number): StoredLeaf => ({
  log: 'shared',
  leaf_index: index,
  leaf_hash: hex(`anchor-${log}-${size}`),
  leaf_type: 'GOV_LOG_ANCHOR_V1',
  tenant_id: 'system',
  subject_id: log,
  artifact_hash: null,
  position,
  admitted_at: at(position),
});

const anchorView = (log: string, size: number, index: number, position: number): LogAnchorView => ({
  log,
  tree_size: size,
  leaf_index: index,
  leaf_hash: hex(`anchor-${log}-${size}`),
  position,
});

// ---- expected documents ----------------------------------------------------------------------------

const authLeaf = (
  n: number,
  index: number,
  position: number,
  tenant = TENANT,
  log = 'shared',
): StoredLeaf => ({
  log,
  leaf_index: index,
  leaf_hash: hex(`envelope-${n}`),
  leaf_type: 'GOV_GOVERNANCE_ENVELOPE_V1',
  tenant_id: tenant,
  subject_id: 'model-1',
  artifact_hash: hex(`artifact-${n}`),
  position,
  admitted_at: at(n),
});

const bundle = (
  n: number,
  index: number,
  position: number,
  parent: string | null = null,
  log = 'shared',
): BundleView => ({
  log,
  tenant_id: TENANT,
  subject_id: 'model-1',
  artifact_hash: hex(`artifact-${n}`),
  leaf_hash: hex(`envelope-${n}`),
  leaf_index: index,
  admitted_position: position,
  admitted_at: at(n),
  parent_bundle_hash: parent,
  gate_details: { G1: `gate detail ${n}` },
  lifecycle: 'ACTIVE',
  observables: OBSERVABLES,
});

const subject = (changes: Partial<SubjectView>): SubjectView => ({
  lifecycle: 'PROPOSED',
  observables: { H: 0.5, C: 0.5, E: 0.5 },
  consecutive_fails: 0,
  consecutive_breaches: 0,
  quarantine_passes: 0,
  last_bundle_hash: null,
  leaf_count: 0,
  updated_at: null,
  tenant_id: TENANT,
  subject_id: 'model-1',
  ...changes,
});

const AUTH_1 = hex('envelope-1');

/** The closed loop of authorization 1 once its execution (leaf 1) is admitted. */
const closedLoop = (changes: Partial<ClosedLoopView> = {}): ClosedLoopView => ({
  tenant_id: TENANT,
  subject_id: 'model-1',
  auth_leaf_hash: AUTH_1,
  exec_leaf_hash: hex(`trace-of-${AUTH_1}`),
  exec_log: 'shared',
  exec_leaf_index: 1,
  trace: trace(AUTH_1),
  variance_leaf_hash: null,
  variance_log: null,
  variance_leaf_index: null,
  variance: null,
  ...changes,
});

/** The subject after evidence 1 passed, then `changes`. */
const afterFirstPass = (changes: Partial<SubjectView>): SubjectView =>
  subject({ lifecycle: 'ACTIVE', last_bundle_hash: hex('artifact-1'), leaf_count: 1, ...changes });

describe('the governance projection', () => {
  it('given an evidence admission, then leaf 0 names its event, the log has one leaf, the bundle is kept and the subject is ACTIVE', () =>
    given([evidence(1)]).thenDocuments({
      [LEAVES]: { [AUTH_1]: authLeaf(1, 0, 1) },
      [LOG_META]: { size: { size: 1 } },
      [BUNDLES]: { [hex('artifact-1')]: bundle(1, 0, 1) },
      [CLOSED_LOOP]: {},
      [SUBJECTS]: {
        [`${TENANT}:model-1`]: afterFirstPass({
          observables: { H: 0.505, C: 0.505, E: 0.495 },
          updated_at: at(1),
        }),
      },
    }));

  it('given an admission, when the next bundle of its chain is admitted, then it is leaf 1 with its parent and the subject counts two', () =>
    given([evidence(1)])
      .when([evidence(2, { parent: hex('artifact-1') })])
      .thenDocuments({
        [LEAVES]: { [AUTH_1]: authLeaf(1, 0, 1), [hex('envelope-2')]: authLeaf(2, 1, 2) },
        [LOG_META]: { size: { size: 2 } },
        [BUNDLES]: {
          [hex('artifact-1')]: bundle(1, 0, 1),
          [hex('artifact-2')]: bundle(2, 1, 2, hex('artifact-1')),
        },
        [SUBJECTS]: {
          [`${TENANT}:model-1`]: subject({
            lifecycle: 'ACTIVE',
            observables: { H: 0.51, C: 0.51, E: 0.49 },
            last_bundle_hash: hex('artifact-2'),
            leaf_count: 2,
            updated_at: at(2),
          }),
        },
      }));

  it("given admissions of two tenants, then leaf indexes follow the events' order across tenants", () =>
    given([evidence(1), evidence(2, { tenant: OTHER }), evidence(3)]).thenDocuments({
      [LEAVES]: {
        [AUTH_1]: authLeaf(1, 0, 1),
        [hex('envelope-2')]: authLeaf(2, 1, 2, OTHER),
        [hex('envelope-3')]: authLeaf(3, 2, 3),
      },
      [LOG_META]: { size: { size: 3 } },
    }));

  it('given the same record admitted twice (one leaf hash), then the lookup keeps its first index and the log still counts both', () =>
    given([evidence(1)])
      .when([{ type: 'EvidenceAdmitted', data: { ...evidence(1).data, artifact_hash: hex('artifact-9') } }])
      .thenDocuments({
        [LEAVES]: { [AUTH_1]: authLeaf(1, 0, 1) },
        [LOG_META]: { size: { size: 2 } },
      }));

  it('given the same record admitted twice in one batch, and the batch delivered again, then the lookup keeps its first index', () =>
    given([])
      .when(
        [
          evidence(1),
          { type: 'EvidenceAdmitted', data: { ...evidence(1).data, artifact_hash: hex('artifact-9') } },
        ],
        { numberOfTimes: 2 },
      )
      .thenDocuments({
        [LEAVES]: { [AUTH_1]: authLeaf(1, 0, 1) },
        [LOG_META]: { size: { size: 2 } },
      }));

  it('given a new subject, when a gate fails, then no leaf, and the subject counts the failure and its observables fall', () =>
    given([])
      .when([gateFailed(1)])
      .thenDocuments({
        [LEAVES]: {},
        [LOG_META]: {},
        [BUNDLES]: {},
        [SUBJECTS]: {
          [`${TENANT}:model-1`]: subject({
            observables: { H: 0.48, C: 0.485, E: 0.52 },
            consecutive_fails: 1,
            updated_at: at(1),
          }),
        },
      }));

  it('given an active subject, when three gates fail in a row, then it is in QUARANTINE', () =>
    given([evidence(1)])
      .when([gateFailed(2), gateFailed(3), gateFailed(4)])
      .thenDocuments({
        [SUBJECTS]: {
          [`${TENANT}:model-1`]: afterFirstPass({
            lifecycle: 'QUARANTINE',
            observables: { H: 0.445, C: 0.46, E: 0.555 },
            consecutive_fails: 3,
            updated_at: at(4),
          }),
        },
      }));

  it('given an active subject, when evidence breaks the tenant allow-list, then it is REJECTED', () =>
    given([evidence(1)])
      .when([gateFailed(2, { policyViolation: true })])
      .thenDocuments({
        [SUBJECTS]: {
          [`${TENANT}:model-1`]: afterFirstPass({
            lifecycle: 'REJECTED',
            observables: { H: 0.485, C: 0.49, E: 0.515 },
            consecutive_fails: 1,
            updated_at: at(2),
          }),
        },
      }));

  it('given an authorization, when its execution is admitted, then the trace is the next leaf and its closed loop awaits the variance', () =>
    given([evidence(1)])
      .when([executionAdmitted(AUTH_1)])
      .thenDocuments({
        [LEAVES]: {
          [AUTH_1]: authLeaf(1, 0, 1),
          [hex(`trace-of-${AUTH_1}`)]: {
            log: 'shared',
            leaf_index: 1,
            leaf_hash: hex(`trace-of-${AUTH_1}`),
            leaf_type: 'GOV_EXECUTION_TRACE_V1',
            tenant_id: TENANT,
            subject_id: 'model-1',
            artifact_hash: null,
            position: 2,
            admitted_at: at(30),
          },
        },
        [LOG_META]: { size: { size: 2 } },
        [CLOSED_LOOP]: { [AUTH_1]: closedLoop() },
      }));

  it('given an execution, when its variance (a BREACH) is recorded, then the loop is closed and the subject counts the breach', () =>
    given([evidence(1), executionAdmitted(AUTH_1)])
      .when([varianceRecorded(AUTH_1)])
      .thenDocuments({
        [LOG_META]: { size: { size: 3 } },
        [CLOSED_LOOP]: {
          [AUTH_1]: closedLoop({
            variance_leaf_hash: hex(`variance-of-${AUTH_1}`),
            variance_log: 'shared',
            variance_leaf_index: 2,
            variance: varianceRecord(AUTH_1),
          }),
        },
        [SUBJECTS]: {
          [`${TENANT}:model-1`]: afterFirstPass({
            observables: { H: 0.455, C: 0.47, E: 0.545 },
            consecutive_breaches: 1,
            updated_at: at(31),
          }),
        },
      }));

  it('given no execution, when a variance names an unknown authorization, then its leaf is counted but no closed loop is made', () =>
    given([])
      .when([varianceRecorded(hex('unknown'))])
      .thenDocuments({
        [LEAVES]: {
          [hex(`variance-of-${hex('unknown')}`)]: {
            log: 'shared',
            leaf_index: 0,
            leaf_hash: hex(`variance-of-${hex('unknown')}`),
            leaf_type: 'GOV_VARIANCE_RECORD_V1',
            tenant_id: TENANT,
            subject_id: 'model-1',
            artifact_hash: null,
            position: 1,
            admitted_at: at(31),
          },
        },
        [LOG_META]: { size: { size: 1 } },
        [CLOSED_LOOP]: {},
      }));

  describe('with many logs: each log counts its own leaves, in event order', () => {
    const TEST = 'test';
    const DEDICATED = `dedicated-${'c'.repeat(24)}`;

    it('given admissions to the shared, test and a dedicated log interleaved, then each leaf is indexed among its own log’s, and each log has its size', () =>
      given([
        evidence(1),
        evidence(2, { tenant: OTHER, log: TEST }),
        evidence(3, { log: 'shared' }),
        evidence(4, { log: DEDICATED }),
        evidence(5, { tenant: OTHER, log: TEST }),
      ]).thenDocuments({
        [LEAVES]: {
          [AUTH_1]: authLeaf(1, 0, 1),
          [hex('envelope-2')]: authLeaf(2, 0, 2, OTHER, TEST),
          [hex('envelope-3')]: authLeaf(3, 1, 3),
          [hex('envelope-4')]: authLeaf(4, 0, 4, TENANT, DEDICATED),
          [hex('envelope-5')]: authLeaf(5, 1, 5, OTHER, TEST),
        },
        [LOG_META]: {
          size: { size: 2 },
          'size:test': { size: 2 },
          [`size:${DEDICATED}`]: { size: 1 },
        },
      }));

    it('given an authorization in the shared log, when the tenant is moved to its dedicated log and its execution and variance are admitted there, then the closed loop says which log each leaf is in', () =>
      given([evidence(1), evidence(2, { log: DEDICATED })])
        .when([executionAdmitted(AUTH_1, DEDICATED), varianceRecorded(AUTH_1, DEDICATED)])
        .thenDocuments({
          [LOG_META]: { size: { size: 1 }, [`size:${DEDICATED}`]: { size: 3 } },
          [BUNDLES]: {
            [hex('artifact-1')]: bundle(1, 0, 1),
            [hex('artifact-2')]: bundle(2, 0, 2, null, DEDICATED),
          },
          [CLOSED_LOOP]: {
            [AUTH_1]: closedLoop({
              exec_log: DEDICATED,
              exec_leaf_index: 1,
              variance_leaf_hash: hex(`variance-of-${AUTH_1}`),
              variance_log: DEDICATED,
              variance_leaf_index: 2,
              variance: varianceRecord(AUTH_1),
            }),
          },
        }));

    it('given admissions to two logs delivered twice, then each log counts its leaves once', () =>
      given([])
        .when([evidence(1), evidence(2, { log: TEST }), evidence(3, { log: TEST })], { numberOfTimes: 2 })
        .thenDocuments({
          [LOG_META]: { size: { size: 1 }, 'size:test': { size: 2 } },
        }));
  });

  describe('anchors: another log’s checkpoint as a leaf of the shared log', () => {
    const TEST = 'test';
    const DEDICATED = `dedicated-${'c'.repeat(24)}`;

    it('given admissions to the shared and test logs, when the test log is anchored twice and a dedicated log once, then each anchor is the next shared leaf, of no tenant, and is found by its log and size', () =>
      given([evidence(1), evidence(2, { log: TEST })])
        .when([anchored(TEST, 1, 3), anchored(DEDICATED, 4, 4), evidence(5), anchored(TEST, 7, 6)])
        .thenDocuments({
          [LEAVES]: {
            [AUTH_1]: authLeaf(1, 0, 1),
            [hex('envelope-2')]: authLeaf(2, 0, 2, TENANT, TEST),
            [hex(`anchor-${TEST}-1`)]: anchorLeaf(TEST, 1, 1, 3),
            [hex(`anchor-${DEDICATED}-4`)]: anchorLeaf(DEDICATED, 4, 2, 4),
            [hex('envelope-5')]: authLeaf(5, 3, 5),
            [hex(`anchor-${TEST}-7`)]: anchorLeaf(TEST, 7, 4, 6),
          },
          [LOG_META]: { size: { size: 5 }, 'size:test': { size: 1 } },
          [LOG_ANCHORS]: {
            [logAnchorId(TEST, 1)]: anchorView(TEST, 1, 1, 3),
            [logAnchorId(DEDICATED, 4)]: anchorView(DEDICATED, 4, 2, 4),
            [logAnchorId(TEST, 7)]: anchorView(TEST, 7, 4, 6),
          },
        }));

    it('given an anchor, when it is delivered again, then the shared log counts it once', () =>
      given([evidence(1)])
        .when([anchored(TEST, 2, 2)], { numberOfTimes: 2 })
        .thenDocuments({
          [LOG_META]: { size: { size: 2 } },
          [LOG_ANCHORS]: { [logAnchorId(TEST, 2)]: anchorView(TEST, 2, 1, 2) },
        }));
  });

  describe('idempotence: the same events delivered twice leave the same documents', () => {
    it('admissions, a gate failure and a closed loop are counted once', () =>
      given([])
        .when([evidence(1), gateFailed(2), executionAdmitted(AUTH_1), varianceRecorded(AUTH_1)], {
          numberOfTimes: 2,
        })
        .thenDocuments({
          [LOG_META]: { size: { size: 3 } },
          [BUNDLES]: { [hex('artifact-1')]: bundle(1, 0, 1) },
          [SUBJECTS]: {
            [`${TENANT}:model-1`]: afterFirstPass({
              // then a gate failure and a BREACH
              observables: { H: 0.435, C: 0.455, E: 0.565 },
              consecutive_fails: 1,
              consecutive_breaches: 1,
              updated_at: at(31),
            }),
          },
        }));
  });
});

describe('the governance projection reads no leaf', () => {
  it('given admissions of every kind, a duplicate record among them, when projected as the runner does, then no read of `leaves` reaches the store', async () => {
    const store = new SqliteReadStore(':memory:');
    const reads: string[] = [];
    const counting: ReadStore = new Proxy(store, {
      get(target, name, receiver) {
        const member = Reflect.get(target, name, receiver);
        if (name !== 'get' && name !== 'find' && name !== 'count') return member.bind(target);
        return (collection: string, ...rest: unknown[]) => {
          reads.push(collection);
          return member.call(target, collection, ...rest);
        };
      },
    });
    const duplicate = {
      type: 'EvidenceAdmitted',
      data: { ...evidence(1).data, artifact_hash: hex('artifact-9') },
    };
    const batches = [
      [evidence(1), executionAdmitted(AUTH_1)],
      [varianceRecorded(AUTH_1), duplicate, evidence(2)],
    ];
    let position = 0;
    try {
      for (const batch of batches) {
        const events = batch.map(
          (spec) =>
            ({ ...spec, id: `e-${++position}`, position, tenant_id: TENANT }) as unknown as RecordedEvent,
        );
        const changes = await projectEvents(governanceProjection, counting, 1, events);
        await counting.apply(changes, { projector: 'governance@g1', position });
      }
      expect(reads.length).toBeGreaterThan(0); // the log size, the subjects, the closed loop
      expect(reads.filter((collection) => collection.startsWith(`${LEAVES}__`))).toEqual([]);
      // Five admissions, four records: the duplicate keeps the first leaf's index.
      const leaves = (await store.find<StoredLeaf>(`${LEAVES}__g1`, { limit: 10 })).items;
      expect(leaves.map((leaf) => leaf.data.leaf_index).sort()).toEqual([0, 1, 2, 4]);
      expect(leaves.find((leaf) => leaf.id === AUTH_1)?.data.leaf_index).toBe(0);
      expect((await store.get(`${LOG_META}__g1`, 'size'))?.data).toEqual({ size: 5 });
    } finally {
      await store.close();
    }
  });
});

describe('the governance projection declares what it reads', () => {
  it('given every kind of event, when projected, then each document it gets was named by `reads` (the runner reads them for a whole batch at once)', async () => {
    const events = [
      evidence(1),
      gateFailed(2),
      executionAdmitted(AUTH_1),
      varianceRecorded(AUTH_1),
      evidence(3, { log: 'test' }),
      executionAdmitted(hex('envelope-3'), 'test'),
      anchored('test', 2, 7),
    ];
    const undeclared: string[] = [];
    let position = 0;
    for (const spec of events) {
      const event = { ...spec, id: `e-${++position}`, position } as unknown as RecordedEvent;
      const declared = new Set(
        governanceProjection.reads!(event).map(({ collection, id }) => `${collection}/${id}`),
      );
      const state: ProjectionState = {
        get: async (collection, id) => {
          if (!declared.has(`${collection}/${id}`)) undeclared.push(`${event.type}: ${collection}/${id}`);
          return null;
        },
      };
      await governanceProjection.project(event, state);
    }
    expect(undeclared).toEqual([]);
  });
});
