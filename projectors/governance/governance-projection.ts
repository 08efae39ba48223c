/**
 * The governance read models, from the admission events in log order:
 *   leaves       leaf_hash → StoredLeaf (log, index, type, the event holding its record): the public
 *                logs' leaf lookups; the agent platform's leaves too (subject: the agent)
 *   log_meta     per log, the leaves counted so far (the next leaf's index; leaf order = event order
 *                within a log): `size` for the shared log, `size:<log>` for the others
 *   bundles      artifact_hash → the admission's context and its event's position: reports, chain
 *                (the bundle, certificate and envelope are read from that event:
 *                read-api/governance/reports/admission-records.ts)
 *   closed_loop  auth_leaf_hash → its execution and variance leaves: variance, triple-leaf
 *   subjects     `<tenant>:<subject>` → lifecycle, observables, counters: status
 *   log_anchors  `<log>:<size>` → the shared-log leaf anchoring that log's checkpoint of that size:
 *                GET /gov/v1/logs/:log/anchor
 */
import { evolveSubject, initialSubject, type SubjectState } from '../../domain/governance/lifecycle';
import { logOfEvent, SHARED_LOG_NAME } from '../../domain/log';
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
import type { LeafType, LeafView, LogName } from '../../ports/log';
import type { Change } from '../../ports/read-store';
import type { DocumentKey, Projection, ProjectionState } from '../engine/projection';
import { PLATFORM_LEAF_EVENT_TYPES } from '../log/log-sequencer';
import { SYSTEM_TENANT } from '../log/log-writer';

export const LEAVES = 'leaves';
export const LOG_META = 'log_meta';
export const BUNDLES = 'bundles';
export const CLOSED_LOOP = 'closed_loop';
export const SUBJECTS = 'subjects';
export const LOG_ANCHORS = 'log_anchors';

export interface BundleView {
  /** The log its leaf is in; absent in documents written before there were many logs (shared). */
  log?: LogName;
  tenant_id: string;
  subject_id: string;
  artifact_hash: string;
  leaf_hash: string;
  leaf_index: number;
  /** Global event position of the admission: the chain's stable order, and where its bundle is. */
  admitted_position: number;
  admitted_at: string;
  /** The bundle's `parent_bundle_hash` (the chain lists it). */
  parent_bundle_hash: string | null;
  gate_details: Record<string, string>;
  lifecycle: EvidenceAdmitted['lifecycle'];
  observables: Observables;
}

/** A `leaves` document: the leaf without its record, which is in the admission event at `position`. */
export interface StoredLeaf extends Omit<LeafView, 'record'> {
  /** The log it is in; absent in documents written before there were many logs (shared). */
  log?: LogName;
  position: number;
}

/** The `log_meta` document counting the leaves of `log`: the shared log's keeps its id of old. */
export function logSizeId(log: LogName): string {
  return log === SHARED_LOG_NAME ? 'size' : `size:${log}`;
}

export interface ClosedLoopView {
  tenant_id: string;
  subject_id: string;
  auth_leaf_hash: string;
  exec_leaf_hash: string;
  /** The log of the execution leaf (absent: shared). */
  exec_log?: LogName;
  exec_leaf_index: number;
  trace: ExecutionTrace;
  variance_leaf_hash: string | null;
  /** The log of the variance leaf (absent: shared); null until it is recorded. */
  variance_log?: LogName | null;
  variance_leaf_index: number | null;
  variance: VarianceRecord | null;
}

/** A `log_anchors` document: log `log`'s checkpoint of size `tree_size`, a leaf of the shared log. */
export interface LogAnchorView {
  log: LogName;
  tree_size: number;
  /** Its leaf in the shared log. */
  leaf_index: number;
  leaf_hash: string;
  /** The `LogAnchored` event holding the record. */
  position: number;
}

/** Document id of log `log`'s anchor at `size`: zero-padded, so ids sort like sizes. */
export function logAnchorId(log: LogName, size: number): string {
  return `${log}:${String(size).padStart(16, '0')}`;
}

export interface SubjectView extends SubjectState {
  tenant_id: string;
  subject_id: string;
}

export function subjectKey(tenantId: string, subjectId: string): string {
  return `${tenantId}:${subjectId}`;
}

const PLATFORM_LEAVES: ReadonlySet<string> = new Set(PLATFORM_LEAF_EVENT_TYPES);
const PLATFORM_LEAF_MEMBERS = [
  'log',
  'tenant_id',
  'agent_id',
  'leaf_hash',
  'record.type',
  'record.created_at',
  'record.decided_at',
];

export const governanceProjection: Projection = {
  name: 'governance',
  // 3: the agent platform's leaves (config versions, passports, governed actions) are leaves too.
  // 2: bundles and leaves name their event instead of holding its bundle, certificate and records.
  // (A leaf's log needs no new version: events before there were many logs are all the shared log's,
  // which keeps its `size` document, and documents without `log` are read as the shared log's. Nor do
  // anchors: no event before them is a LogAnchored, so an older generation's log_anchors is complete.)
  version: 3,
  collections: [LEAVES, LOG_META, BUNDLES, CLOSED_LOOP, SUBJECTS, LOG_ANCHORS],
  indexes: [
    { collection: LEAVES, fields: ['leaf_index'] },
    { collection: BUNDLES, fields: ['tenant_id', 'admitted_position'] },
    // The chain's total within from/to: a count of the range's entries, not of the tenant's bundles.
    { collection: BUNDLES, fields: ['tenant_id', 'admitted_at'] },
    { collection: SUBJECTS, fields: ['tenant_id', 'updated_at'] },
    // The first anchor of a log at or after a size.
    { collection: LOG_ANCHORS, fields: ['log', 'tree_size'] },
  ],
  eventTypes: [
    'EvidenceAdmitted',
    'ExecutionAdmitted',
    'VarianceRecorded',
    'GateFailed',
    'LogAnchored',
    ...PLATFORM_LEAF_EVENT_TYPES,
  ],
  // An evidence admission's certificate, envelope and most of its bundle (~4.5 of its ~5.3 KB) are
  // read from the event when a report or a leaf asks (read-api/governance/reports/admission-records.ts),
  // never here.
  dataMembers: {
    // A platform leaf's record is read from its event when a leaf is asked for; an action's content
    // (private) is never read here.
    ...Object.fromEntries(PLATFORM_LEAF_EVENT_TYPES.map((type) => [type, PLATFORM_LEAF_MEMBERS])),
    EvidenceAdmitted: [
      'log',
      'tenant_id',
      'subject_id',
      'artifact_hash',
      'leaf_hash',
      'admitted_at',
      'bundle.parent_bundle_hash',
      'gate_details',
      'lifecycle',
      'observables',
    ],
  },
  reads(event: RecordedEvent): DocumentKey[] {
    const data = event.data as { tenant_id: string; subject_id: string };
    const subject = { collection: SUBJECTS, id: subjectKey(data.tenant_id, data.subject_id) };
    if (event.type === 'GateFailed') return [subject];
    // The leaf itself is created, not read (see `nextLeaf`).
    const leaf = [{ collection: LOG_META, id: logSizeId(logOfEvent(event.data as object)) }];
    if (event.type === 'EvidenceAdmitted') return [...leaf, subject];
    if (event.type === 'VarianceRecorded') {
      const parent = (event.data as VarianceRecorded).record.parent_auth_leaf_hash;
      return [...leaf, { collection: CLOSED_LOOP, id: parent }, subject];
    }
    return event.type === 'ExecutionAdmitted' ||
      event.type === 'LogAnchored' ||
      PLATFORM_LEAVES.has(event.type)
      ? leaf
      : [];
  },
  async project(event: RecordedEvent, state: ProjectionState): Promise<Change[]> {
    const at = event.position;
    switch (event.type) {
      case 'EvidenceAdmitted': {
        const data = event.data as EvidenceAdmitted;
        const leaf = await nextLeaf(
          state,
          at,
          data,
          'GOV_GOVERNANCE_ENVELOPE_V1',
          data.artifact_hash,
          data.admitted_at,
        );
        const bundle: BundleView = {
          log: leaf.log,
          tenant_id: data.tenant_id,
          subject_id: data.subject_id,
          artifact_hash: data.artifact_hash,
          leaf_hash: data.leaf_hash,
          leaf_index: leaf.index,
          admitted_position: at,
          admitted_at: data.admitted_at,
          parent_bundle_hash: data.bundle.parent_bundle_hash,
          gate_details: data.gate_details,
          lifecycle: data.lifecycle,
          observables: data.observables,
        };
        return [
          ...leaf.changes,
          { kind: 'upsert', collection: BUNDLES, id: data.artifact_hash, position: at, data: bundle },
          await subjectChange(state, at, data.tenant_id, data.subject_id, {
            kind: 'pass',
            artifact_hash: data.artifact_hash,
            at: data.admitted_at,
          }),
        ];
      }
      case 'GateFailed': {
        const data = event.data as GateFailed;
        return [
          await subjectChange(state, at, data.tenant_id, data.subject_id, {
            kind: 'fail',
            policy_violation: data.policy_violation,
            at: data.failed_at,
          }),
        ];
      }
      case 'ExecutionAdmitted': {
        const data = event.data as ExecutionAdmitted;
        const leaf = await nextLeaf(state, at, data, 'GOV_EXECUTION_TRACE_V1', null, data.trace.recorded_at);
        const view: ClosedLoopView = {
          tenant_id: data.tenant_id,
          subject_id: data.subject_id,
          auth_leaf_hash: data.trace.parent_auth_leaf_hash,
          exec_leaf_hash: data.leaf_hash,
          exec_log: leaf.log,
          exec_leaf_index: leaf.index,
          trace: data.trace,
          variance_leaf_hash: null,
          variance_log: null,
          variance_leaf_index: null,
          variance: null,
        };
        return [
          ...leaf.changes,
          { kind: 'upsert', collection: CLOSED_LOOP, id: view.auth_leaf_hash, position: at, data: view },
        ];
      }
      case 'VarianceRecorded': {
        const data = event.data as VarianceRecorded;
        const { record } = data;
        const leaf = await nextLeaf(state, at, data, 'GOV_VARIANCE_RECORD_V1', null, record.recorded_at);
        const loop = await state.get<ClosedLoopView>(CLOSED_LOOP, record.parent_auth_leaf_hash);
        const changes: Change[] = [...leaf.changes];
        if (loop) {
          const view: ClosedLoopView = {
            ...loop.data,
            variance_leaf_hash: data.leaf_hash,
            variance_log: leaf.log,
            variance_leaf_index: leaf.index,
            variance: record,
          };
          changes.push({
            kind: 'upsert',
            collection: CLOSED_LOOP,
            id: view.auth_leaf_hash,
            position: at,
            data: view,
          });
        }
        changes.push(
          await subjectChange(state, at, data.tenant_id, data.subject_id, {
            kind: 'variance',
            classification: record.classification,
            at: record.recorded_at,
          }),
        );
        return changes;
      }
      case 'LogAnchored': {
        const data = event.data as LogAnchored;
        const { record } = data;
        // A shared-log leaf of no tenant: it is the anchorer's (the system's), about the anchored log.
        const leaf = await nextLeaf(
          state,
          at,
          { tenant_id: SYSTEM_TENANT, subject_id: record.log, leaf_hash: data.leaf_hash },
          'GOV_LOG_ANCHOR_V1',
          null,
          record.anchored_at,
        );
        const view: LogAnchorView = {
          log: record.log,
          tree_size: record.tree_size,
          leaf_index: leaf.index,
          leaf_hash: data.leaf_hash,
          position: at,
        };
        // One anchor per size (the anchorer's stream revision sees to it): the first one stays.
        return [
          ...leaf.changes,
          {
            kind: 'create',
            collection: LOG_ANCHORS,
            id: logAnchorId(record.log, record.tree_size),
            position: at,
            data: view,
          },
        ];
      }
      default: {
        if (!PLATFORM_LEAVES.has(event.type)) return [];
        const data = event.data as PlatformLeaf;
        const { record } = data;
        const leaf = await nextLeaf(
          state,
          at,
          { log: data.log, tenant_id: data.tenant_id, subject_id: data.agent_id, leaf_hash: data.leaf_hash },
          record.type,
          null,
          record.decided_at ?? (record.created_at as string),
        );
        return leaf.changes;
      }
    }
  },
};

/** The members of a platform leaf event the leaves read model reads. */
interface PlatformLeaf {
  log: LogName;
  tenant_id: string;
  agent_id: string;
  leaf_hash: string;
  record: {
    type: Extract<LeafType, `GOV_AGENT_${string}`>;
    created_at?: string;
    decided_at?: string;
  };
}

/** Gives the event's record the next leaf index of its log (the count of that log's admissions before it). */
async function nextLeaf(
  state: ProjectionState,
  position: number,
  data: { log?: LogName; tenant_id: string; subject_id: string; leaf_hash: string },
  leafType: LeafType,
  /** The envelope's artifact hash (the admission's), for an authorization leaf; null for the others. */
  artifactHash: string | null,
  admittedAt: string,
): Promise<{ log: LogName; index: number; changes: Change[] }> {
  const log = logOfEvent(data);
  const sizeId = logSizeId(log);
  const meta = await state.get<{ size: number }>(LOG_META, sizeId);
  const index = meta?.data.size ?? 0;
  const view: StoredLeaf = {
    log,
    leaf_index: index,
    leaf_hash: data.leaf_hash,
    leaf_type: leafType,
    tenant_id: data.tenant_id,
    subject_id: data.subject_id,
    artifact_hash: artifactHash,
    position,
    admitted_at: admittedAt,
  };
  // The same record twice is the same leaf hash: the lookup keeps the first index. A create, not a
  // read of `leaves`: a lookup by id in a growing collection costs in proportion to its size on
  // FerretDB v1, and a new record's hash is never there.
  const changes: Change[] = [
    { kind: 'increment', collection: LOG_META, id: sizeId, position, field: 'size', by: 1 },
    { kind: 'create', collection: LEAVES, id: data.leaf_hash, position, data: view },
  ];
  return { log, index, changes };
}

async function subjectChange(
  state: ProjectionState,
  position: number,
  tenantId: string,
  subjectId: string,
  outcome: Parameters<typeof evolveSubject>[1],
): Promise<Change> {
  const id = subjectKey(tenantId, subjectId);
  const current = await state.get<SubjectView>(SUBJECTS, id);
  const next = evolveSubject(current?.data ?? initialSubject(), outcome);
  const view: SubjectView = { ...next, tenant_id: tenantId, subject_id: subjectId };
  return { kind: 'upsert', collection: SUBJECTS, id, position, data: view };
}
