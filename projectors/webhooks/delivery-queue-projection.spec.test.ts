/**
 * Specifications of the dispatcher projection: given recorded webhook and domain events, then the
 * webhooks, the tenants' active lists, the leaves awaiting the log, the counters and the deliveries
 * queued, as the dispatcher stores them (a delivery without its body when a recipe renders it again;
 * the bodies are specified in webhook-payloads.test.ts). Event `n` is the n-th given (ids `event-n`,
 * recorded n − 1 seconds after 10:00:00).
 */
import type {
  EvidenceAdmitted,
  ExecutionAdmitted,
  GateFailed,
  GovernanceEnvelope,
  Observables,
  TreeHeadSigned,
  VarianceRecord,
  VarianceRecorded,
  WebhookEventName,
  WebhookRedeliveryRequested,
  WebhookRegistered,
  WebhookRemoved,
} from '../../event-schemas';
import type { RecordedEvent } from '../../ports/event-store';
import type { Change } from '../../ports/read-store';
import { ProjectionSpecification, type SpecEvent } from '../engine/projection-spec';
import {
  type DeliveryView,
  deliveryQueueProjection,
  PENDING_COUNT_ID,
  type PendingLeafView,
  queuedDeliveryId,
  storedDelivery,
  WEBHOOK_CHAIN_DEPTHS,
  WEBHOOK_DELIVERIES,
  WEBHOOK_DISPATCH_META,
  WEBHOOK_PENDING_LEAVES,
  WEBHOOK_REDELIVERIES,
  WEBHOOK_SUBJECTS,
  WEBHOOK_TENANTS,
  WEBHOOKS,
  type WebhookView,
} from './delivery-queue-projection';
import { webhookEventId } from './webhook-events';

/** As the dispatcher consumer stores a change: a delivery without the body its recipe renders. */
const stored = (change: Change): Change =>
  change.kind === 'upsert' && change.collection === WEBHOOK_DELIVERIES
    ? { ...change, data: storedDelivery(change.data as DeliveryView) }
    : change;

const given = ProjectionSpecification.for(deliveryQueueProjection({ publicUrl: 'https://gov.example' }), {
  stored,
});

const TENANT = `ten_${'a'.repeat(24)}`;
const OTHER = `ten_${'b'.repeat(24)}`;
const W1 = `wh_${'1'.repeat(24)}`;
const W2 = `wh_${'2'.repeat(24)}`;
const hash = (c: string) => c.repeat(64);
/** The recording time of event `n` (see the header). */
const recordedAt = (n: number) => `2026-03-01T10:00:${String(n - 1).padStart(2, '0')}.000Z`;
const SUBJECT = `${TENANT}:model-1`;
const IN_OMEGA: Observables = { H: 0.7, C: 0.6, E: 0.3 };
const OUT_OF_OMEGA: Observables = { H: 0.35, C: 0.6, E: 0.3 };

// ---- events ----------------------------------------------------------------------------------------

function registered(webhookId: string, events: WebhookEventName[], tenantId = TENANT): SpecEvent {
  const data: WebhookRegistered = {
    tenant_id: tenantId,
    webhook_id: webhookId,
    url: `https://hooks.example/${webhookId}`,
    events: events as WebhookRegistered['events'],
    secret_sealed: `sealed-${webhookId}`,
    secret_generated: false,
    created_at: '2026-03-01T09:00:00.000Z',
  };
  return { type: 'WebhookRegistered', data };
}

function removed(webhookId: string, tenantId = TENANT): SpecEvent {
  const data: WebhookRemoved = {
    tenant_id: tenantId,
    webhook_id: webhookId,
    removed_at: '2026-03-01T09:30:00.000Z',
  };
  return { type: 'WebhookRemoved', data };
}

const envelope = (n: number): GovernanceEnvelope => ({
  type: 'GOV_GOVERNANCE_ENVELOPE_V1',
  version: 1,
  artifact_type: 'GOV_PROOF_BUNDLE_V1',
  artifact_hash: hash(String(n)),
  payload_uri: `https://gov.example/governance/replay/${hash(String(n))}`,
  tenant_id: TENANT,
  subject_id: 'model-1',
  validator_signatures: [{ validator_id: hash('f'), signature: 'c2lnbmF0dXJl' }],
  certificate_hash: hash('c'),
  authority_node_id: `node_${'d'.repeat(24)}`,
  authority_signature: 'YXV0aG9yaXR5',
  log_binding: { log_id: 'gov.example/gov/v1/log+0a0a0a0a+AQ==', log_url: 'https://gov.example/gov/v1/log' },
  generated_at: '2026-03-01T09:59:00.000Z',
});

type EvidenceMembers = Pick<
  EvidenceAdmitted,
  | 'tenant_id'
  | 'subject_id'
  | 'artifact_hash'
  | 'leaf_hash'
  | 'envelope'
  | 'admitted_at'
  | 'observables'
  | 'lifecycle'
>;

/** Evidence `n` admitted, as this projection reads it (its declared data members). */
function evidence(n: number, observables = IN_OMEGA, tenantId = TENANT): SpecEvent {
  const data: EvidenceMembers = {
    tenant_id: tenantId,
    subject_id: 'model-1',
    artifact_hash: hash(String(n)),
    leaf_hash: hash(String.fromCharCode(97 + n)),
    envelope: envelope(n),
    admitted_at: '2026-03-01T10:00:00.000Z',
    observables,
    lifecycle: 'ACTIVE',
  };
  return { type: 'EvidenceAdmitted', data };
}

/** Evidence as this release's command side records it: with the state it was decided on. */
function carrying(event: SpecEvent, carried: { previous_observables: Observables; chain_depth?: number }) {
  return { ...event, data: { ...(event.data as object), ...carried } };
}

const evidenceSourceOf = (n: number) => {
  const { observables: _o, lifecycle: _l, ...source } = evidence(n).data as EvidenceMembers;
  return source;
};

function gateFailed(observables = IN_OMEGA): SpecEvent {
  const data: GateFailed = {
    tenant_id: TENANT,
    subject_id: 'model-1',
    error: 'GATE_FAILURE',
    gates_failed: ['G1'],
    details: { G1: 'confidence_interval_lower 0.50 is below the policy minimum 0.80' },
    action: 'ACTION_BLOCKED',
    policy_violation: false,
    submission_hash: hash('5'),
    observables,
    lifecycle: 'ACTIVE',
    failed_at: '2026-03-01T10:00:00.000Z',
  };
  return { type: 'GateFailed', data };
}

const executionAdmitted: ExecutionAdmitted = {
  tenant_id: TENANT,
  subject_id: 'model-1',
  leaf_hash: hash('e'),
  trace: {
    type: 'GOV_EXECUTION_TRACE_V1',
    version: 1,
    tenant_id: TENANT,
    parent_auth_leaf_hash: hash('b'),
    subject_id: 'model-1',
    outcome: 'FAILED',
    exec_state: { H: 0.55, C: 0.4, E: 0.55 },
    recorded_at: '2026-03-01T10:01:00.000Z',
  },
};

const breach: VarianceRecord = {
  type: 'GOV_VARIANCE_RECORD_V1',
  version: 1,
  tenant_id: TENANT,
  parent_auth_leaf_hash: hash('b'),
  parent_exec_leaf_hash: hash('e'),
  subject_id: 'model-1',
  auth_state: { H: 0.7, C: 0.6, E: 0.3 },
  exec_state: { H: 0.55, C: 0.4, E: 0.55 },
  delta: { H: -0.15, C: -0.2, E: 0.25 },
  l2_distance: 0.354,
  classification: 'BREACH',
  drift_direction: { H: 'degraded', C: 'degraded', E: 'degraded' },
  auth_in_omega: true,
  exec_in_omega: true,
  omega_breach: false,
  recorded_at: '2026-03-01T10:01:00.000Z',
};

const varianceRecorded: VarianceRecorded = {
  tenant_id: TENANT,
  subject_id: 'model-1',
  leaf_hash: hash('9'),
  record: breach,
  observables: IN_OMEGA,
  lifecycle: 'ACTIVE',
};

/** The sequencer's tree head integrating the admissions at `positions` as leaves `first`, `first + 1`, … */
function treeHead(first: number, positions: number[]): SpecEvent {
  const size = first + positions.length;
  const data: TreeHeadSigned = {
    origin: 'gov.example/gov/v1/log',
    tree_size: size,
    root_hash: hash('7'),
    timestamp: '2026-03-01T10:02:00.000Z',
    checkpoint: `gov.example/gov/v1/log\n${size}\nroot\n\n— gov.example/gov/v1/log signature\n`,
    first_leaf_index: first,
    leaf_positions: positions,
  };
  return { type: 'TreeHeadSigned', data };
}

function redeliveryRequested(deliveryId: string): SpecEvent {
  const data: WebhookRedeliveryRequested = {
    tenant_id: TENANT,
    webhook_id: W1,
    delivery_id: deliveryId,
    requested_at: '2026-03-01T11:00:00.000Z',
  };
  return { type: 'WebhookRedeliveryRequested', data };
}

// ---- expected documents ----------------------------------------------------------------------------

const webhook = (
  webhookId: string,
  events: WebhookEventName[],
  removedAt: string | null = null,
): WebhookView => ({
  tenant_id: TENANT,
  webhook_id: webhookId,
  url: `https://hooks.example/${webhookId}`,
  events,
  secret_sealed: `sealed-${webhookId}`,
  secret_generated: false,
  created_at: '2026-03-01T09:00:00.000Z',
  removed_at: removedAt,
});

/** The delivery the event at `queuedBy` queues k-th, of webhook event `name` caused by event `source`. */
function delivery(
  queuedBy: number,
  k: number,
  name: WebhookEventName,
  source: number,
  recipe: DeliveryView['recipe'],
  webhookId = W1,
): DeliveryView {
  return {
    seq: queuedBy * 1024 + k,
    delivery_id: queuedDeliveryId(queuedBy, k),
    tenant_id: TENANT,
    webhook_id: webhookId,
    event_id: webhookEventId(`event-${source}`, name),
    event_type: name,
    body: null,
    recipe,
    queued_at: recordedAt(queuedBy),
    redelivery_of: null,
  };
}

const subjectAt = (observables: Observables) => ({
  [SUBJECT]: { tenant_id: TENANT, subject_id: 'model-1', observables },
});

describe('the dispatcher projection', () => {
  describe('webhooks', () => {
    it('given a registration, then the webhook, its tenant listing it as active, and the event marked applied', () =>
      given([registered(W1, ['gate_fail', 'leaf_admitted'])]).thenDocuments({
        [WEBHOOKS]: { [W1]: webhook(W1, ['gate_fail', 'leaf_admitted']) },
        [WEBHOOK_TENANTS]: {
          [TENANT]: { active: [{ webhook_id: W1, events: ['gate_fail', 'leaf_admitted'] }] },
        },
        [WEBHOOK_DISPATCH_META]: { applied: { position: 1 } },
      }));

    it('given two webhooks, when the first is removed, then it is kept with removed_at and only the second is active', () =>
      given([registered(W1, ['gate_fail']), registered(W2, ['leaf_admitted'])])
        .when([removed(W1)])
        .thenDocuments({
          [WEBHOOKS]: {
            [W1]: webhook(W1, ['gate_fail'], '2026-03-01T09:30:00.000Z'),
            [W2]: webhook(W2, ['leaf_admitted']),
          },
          [WEBHOOK_TENANTS]: { [TENANT]: { active: [{ webhook_id: W2, events: ['leaf_admitted'] }] } },
        }));

    it('given a webhook, when another tenant removes it, then it stays active', () =>
      given([registered(W1, ['gate_fail'])])
        .when([removed(W1, OTHER)])
        .thenDocuments({
          [WEBHOOKS]: { [W1]: webhook(W1, ['gate_fail']) },
          [WEBHOOK_TENANTS]: { [TENANT]: { active: [{ webhook_id: W1, events: ['gate_fail'] }] } },
        }));
  });

  describe('gate failures', () => {
    it('given a webhook for gate_fail, when a gate fails, then one delivery is queued (seq from the position) and the subject tracked', () =>
      given([registered(W1, ['gate_fail'])])
        .when([gateFailed()])
        .thenDocuments({
          [WEBHOOK_DELIVERIES]: { [queuedDeliveryId(2, 0)]: delivery(2, 0, 'gate_fail', 2, { position: 2 }) },
          [WEBHOOK_SUBJECTS]: subjectAt(IN_OMEGA),
          [WEBHOOK_DISPATCH_META]: { applied: { position: 2 }, seq: { last: 2048 } },
        }));

    it('given webhooks for gate_fail and observables_alert, when a failure takes the subject out of Ω, then both are queued, the alert with the change', () =>
      given([registered(W1, ['gate_fail']), registered(W2, ['observables_alert'])])
        .when([gateFailed(OUT_OF_OMEGA)])
        .thenDocuments({
          [WEBHOOK_DELIVERIES]: {
            [queuedDeliveryId(3, 0)]: delivery(3, 0, 'gate_fail', 3, { position: 3 }),
            [queuedDeliveryId(3, 1)]: delivery(
              3,
              1,
              'observables_alert',
              3,
              {
                position: 3,
                alert: {
                  tenant_id: TENANT,
                  subject_id: 'model-1',
                  previous: { H: 0.5, C: 0.5, E: 0.5 },
                  observables: OUT_OF_OMEGA,
                  lifecycle: 'ACTIVE',
                  trigger: 'GateFailed',
                  at: '2026-03-01T10:00:00.000Z',
                },
              },
              W2,
            ),
          },
          [WEBHOOK_SUBJECTS]: subjectAt(OUT_OF_OMEGA),
        }));

    it('given only a leaf_admitted webhook, when a gate fails, then nothing is queued but the subject is tracked', () =>
      given([registered(W1, ['leaf_admitted'])])
        .when([gateFailed()])
        .thenDocuments({
          [WEBHOOK_DELIVERIES]: {},
          [WEBHOOK_SUBJECTS]: subjectAt(IN_OMEGA),
          [WEBHOOK_DISPATCH_META]: { applied: { position: 2 } },
        }));
  });

  describe('events that carry the state they were decided on (chain depth, previous observables)', () => {
    it('given no webhook, when such evidence is admitted and integrated, then nothing at all is kept for its tenant or subject', () =>
      given([])
        .when([carrying(evidence(1), { previous_observables: IN_OMEGA, chain_depth: 1 }), treeHead(0, [1])])
        .thenDocuments({
          [WEBHOOK_PENDING_LEAVES]: {},
          [WEBHOOK_CHAIN_DEPTHS]: {},
          [WEBHOOK_SUBJECTS]: {},
          [WEBHOOK_DELIVERIES]: {},
          [WEBHOOK_DISPATCH_META]: { applied: { position: 2 } },
        }));

    it('given a chain_depth_milestone webhook and no leaf counted here, when evidence carrying depth 10 is admitted, then it waits with depth 10', () =>
      given([registered(W1, ['chain_depth_milestone'])])
        .when([carrying(evidence(10), { previous_observables: IN_OMEGA, chain_depth: 10 })])
        .thenDocuments({
          [WEBHOOK_CHAIN_DEPTHS]: {},
          [WEBHOOK_PENDING_LEAVES]: {
            '2': {
              tenant_id: TENANT,
              source_event_id: 'event-2',
              source: { type: 'EvidenceAdmitted', data: evidenceSourceOf(10) },
              events: ['chain_depth_milestone'],
              webhook_ids: [W1],
              depth: 10,
              alert: null,
            },
          },
        }));

    it('given a subject tracked in Ω by an older event, when a failure carrying previous observables outside Ω keeps it outside, then no alert: the carried state wins', () =>
      given([registered(W1, ['observables_alert']), gateFailed(IN_OMEGA)])
        .when([carrying(gateFailed(OUT_OF_OMEGA), { previous_observables: OUT_OF_OMEGA })])
        .thenDocuments({
          [WEBHOOK_DELIVERIES]: {},
          [WEBHOOK_SUBJECTS]: subjectAt(IN_OMEGA),
        }));

    it('given a subject never seen here, when a failure carrying previous observables in Ω takes it out, then the alert names the carried ones', () =>
      given([registered(W1, ['observables_alert'])])
        .when([carrying(gateFailed(OUT_OF_OMEGA), { previous_observables: IN_OMEGA })])
        .thenDocuments({
          [WEBHOOK_DELIVERIES]: {
            [queuedDeliveryId(2, 0)]: delivery(2, 0, 'observables_alert', 2, {
              position: 2,
              alert: {
                tenant_id: TENANT,
                subject_id: 'model-1',
                previous: IN_OMEGA,
                observables: OUT_OF_OMEGA,
                lifecycle: 'ACTIVE',
                trigger: 'GateFailed',
                at: '2026-03-01T10:00:00.000Z',
              },
            }),
          },
          [WEBHOOK_SUBJECTS]: {},
        }));
  });

  describe('admitted leaves', () => {
    const pendingEvidence: PendingLeafView = {
      tenant_id: TENANT,
      source_event_id: 'event-2',
      source: { type: 'EvidenceAdmitted', data: evidenceSourceOf(1) },
      events: ['leaf_admitted'],
      webhook_ids: [W1],
      depth: null,
      alert: null,
    };

    it('given a leaf_admitted webhook, when evidence is admitted, then the leaf waits for the log, counted, and the chain is one deep', () =>
      given([registered(W1, ['leaf_admitted'])])
        .when([evidence(1)])
        .thenDocuments({
          [WEBHOOK_PENDING_LEAVES]: { '2': pendingEvidence },
          [WEBHOOK_CHAIN_DEPTHS]: { [TENANT]: { depth: 1 } },
          [WEBHOOK_SUBJECTS]: subjectAt(IN_OMEGA),
          [WEBHOOK_DELIVERIES]: {},
          [WEBHOOK_DISPATCH_META]: { applied: { position: 2 }, pending: { count: 1 } },
        }));

    it('given a waiting leaf, when the tree head integrating it is signed, then its delivery is queued with its leaf index', () =>
      given([registered(W1, ['leaf_admitted']), evidence(1)])
        .when([treeHead(4, [2])])
        .thenDocuments({
          [WEBHOOK_PENDING_LEAVES]: {},
          [WEBHOOK_DELIVERIES]: {
            [queuedDeliveryId(3, 0)]: delivery(3, 0, 'leaf_admitted', 2, { position: 2, leaf_index: 4 }),
          },
          [WEBHOOK_DISPATCH_META]: { applied: { position: 3 }, pending: { count: 0 }, seq: { last: 3072 } },
        }));

    it('given no webhook, when evidence is admitted and integrated, then only the chain depth and the subject are kept', () =>
      given([])
        .when([evidence(1), treeHead(0, [1])])
        .thenDocuments({
          [WEBHOOK_PENDING_LEAVES]: {},
          [WEBHOOK_CHAIN_DEPTHS]: { [TENANT]: { depth: 1 } },
          [WEBHOOK_SUBJECTS]: subjectAt(IN_OMEGA),
          [WEBHOOK_DELIVERIES]: {},
          [WEBHOOK_DISPATCH_META]: { applied: { position: 2 } },
        }));

    it('given a waiting leaf, when its webhook is removed before the tree head, then the leaf is dropped and nothing is queued', () =>
      given([registered(W1, ['leaf_admitted']), evidence(1)])
        .when([removed(W1), treeHead(0, [2])])
        .thenDocuments({
          [WEBHOOK_PENDING_LEAVES]: {},
          [WEBHOOK_DELIVERIES]: {},
          [WEBHOOK_DISPATCH_META]: { applied: { position: 4 }, pending: { count: 0 } },
        }));

    it('given an execution and its BREACH variance, when integrated, then execution_trace_admitted, variance_recorded and governance_breach are queued in leaf order', () =>
      given([
        registered(W1, ['execution_trace_admitted', 'variance_recorded', 'governance_breach']),
        { type: 'ExecutionAdmitted', data: executionAdmitted },
        { type: 'VarianceRecorded', data: varianceRecorded },
      ])
        .when([treeHead(7, [2, 3])])
        .thenDocuments({
          [WEBHOOK_PENDING_LEAVES]: {},
          [WEBHOOK_DELIVERIES]: {
            [queuedDeliveryId(4, 0)]: delivery(4, 0, 'execution_trace_admitted', 2, {
              position: 2,
              leaf_index: 7,
            }),
            [queuedDeliveryId(4, 1)]: delivery(4, 1, 'variance_recorded', 3, { position: 3, leaf_index: 8 }),
            [queuedDeliveryId(4, 2)]: delivery(4, 2, 'governance_breach', 3, { position: 3, leaf_index: 8 }),
          },
          [WEBHOOK_DISPATCH_META]: { applied: { position: 4 }, pending: { count: 0 }, seq: { last: 4098 } },
        }));

    it('given nine authorization leaves, when the tenth is admitted with a chain_depth_milestone webhook, then it waits with depth 10', () =>
      given([
        ...Array.from({ length: 9 }, (_, i) => evidence(i + 1)),
        registered(W1, ['chain_depth_milestone']),
      ])
        .when([evidence(10)])
        .thenDocuments({
          [WEBHOOK_CHAIN_DEPTHS]: { [TENANT]: { depth: 10 } },
          [WEBHOOK_PENDING_LEAVES]: {
            '11': {
              tenant_id: TENANT,
              source_event_id: 'event-11',
              source: { type: 'EvidenceAdmitted', data: evidenceSourceOf(10) },
              events: ['chain_depth_milestone'],
              webhook_ids: [W1],
              depth: 10,
              alert: null,
            },
          },
        }));
  });

  describe('redeliveries', () => {
    it('given a queued delivery, when it is redelivered twice (the second time by naming the first redelivery), then two copies count against the original', () =>
      given([registered(W1, ['gate_fail']), gateFailed()])
        .when([
          redeliveryRequested(queuedDeliveryId(2, 0)),
          redeliveryRequested(`${queuedDeliveryId(2, 0)}:r1`),
        ])
        .thenDocuments({
          [WEBHOOK_DELIVERIES]: {
            [queuedDeliveryId(2, 0)]: delivery(2, 0, 'gate_fail', 2, { position: 2 }),
            [`${queuedDeliveryId(2, 0)}:r1`]: {
              ...delivery(3, 0, 'gate_fail', 2, { position: 2 }),
              delivery_id: `${queuedDeliveryId(2, 0)}:r1`,
              redelivery_of: queuedDeliveryId(2, 0),
            },
            [`${queuedDeliveryId(2, 0)}:r2`]: {
              ...delivery(4, 0, 'gate_fail', 2, { position: 2 }),
              delivery_id: `${queuedDeliveryId(2, 0)}:r2`,
              redelivery_of: queuedDeliveryId(2, 0),
            },
          },
          [WEBHOOK_REDELIVERIES]: { [queuedDeliveryId(2, 0)]: { count: 2 } },
          [WEBHOOK_DISPATCH_META]: { applied: { position: 4 }, seq: { last: 4096 } },
        }));

    it('given a removed webhook, when one of its deliveries is redelivered, then nothing is queued', () =>
      given([registered(W1, ['gate_fail']), gateFailed(), removed(W1)])
        .when([redeliveryRequested(queuedDeliveryId(2, 0))])
        .thenDocuments({
          [WEBHOOK_DELIVERIES]: { [queuedDeliveryId(2, 0)]: delivery(2, 0, 'gate_fail', 2, { position: 2 }) },
          [WEBHOOK_REDELIVERIES]: {},
        }));
  });

  describe('idempotence: the same events delivered twice leave the same documents', () => {
    it('registrations, a gate failure, an admission, its tree head and a redelivery are applied once', () =>
      given([])
        .when(
          [
            registered(W1, ['gate_fail', 'leaf_admitted']),
            gateFailed(),
            evidence(1),
            treeHead(0, [3]),
            redeliveryRequested(queuedDeliveryId(2, 0)),
          ],
          { numberOfTimes: 2 },
        )
        .thenDocuments({
          [WEBHOOK_PENDING_LEAVES]: {},
          [WEBHOOK_CHAIN_DEPTHS]: { [TENANT]: { depth: 1 } },
          [WEBHOOK_DELIVERIES]: {
            [queuedDeliveryId(2, 0)]: delivery(2, 0, 'gate_fail', 2, { position: 2 }),
            [queuedDeliveryId(4, 0)]: delivery(4, 0, 'leaf_admitted', 3, { position: 3, leaf_index: 0 }),
            [`${queuedDeliveryId(2, 0)}:r1`]: {
              ...delivery(5, 0, 'gate_fail', 2, { position: 2 }),
              delivery_id: `${queuedDeliveryId(2, 0)}:r1`,
              redelivery_of: queuedDeliveryId(2, 0),
            },
          },
          [WEBHOOK_REDELIVERIES]: { [queuedDeliveryId(2, 0)]: { count: 1 } },
          [WEBHOOK_DISPATCH_META]: {
            applied: { position: 5 },
            pending: { count: 0 },
            seq: { last: 5120 },
          },
        }));
  });
});

describe('the dispatcher projection declares what it reads first', () => {
  const projection = deliveryQueueProjection({ publicUrl: 'https://gov.example' });
  /** Projects `spec` at `position` over `stored`, listing every get `reads` did not name. */
  async function undeclaredReads(spec: SpecEvent, position: number, stored: Record<string, object> = {}) {
    const event = { ...spec, id: `e-${position}`, position, tenant_id: TENANT } as unknown as RecordedEvent;
    const declared = new Set(projection.reads!(event).map(({ collection, id }) => `${collection}/${id}`));
    const undeclared: string[] = [];
    await projection.project(event, {
      get: async <T>(collection: string, id: string) => {
        const key = `${collection}/${id}`;
        if (!declared.has(key)) undeclared.push(key);
        const data = stored[key];
        return data ? { id, position: 1, data: data as T } : null;
      },
    });
    return undeclared;
  }

  it('given admissions and gate failures of a tenant without webhooks, then every read was named', async () => {
    expect(await undeclaredReads(evidence(1), 10)).toEqual([]);
    expect(await undeclaredReads(gateFailed(), 11)).toEqual([]);
  });

  it('given a tree head over pending leaves, then the leaves and the counters it reads were named (the leaves’ tenants are read after)', async () => {
    const pending: PendingLeafView = {
      tenant_id: TENANT,
      source_event_id: 'e-10',
      source: { type: 'EvidenceAdmitted', data: evidenceSourceOf(1) },
      events: ['leaf_admitted'],
      webhook_ids: [W1],
      depth: null,
      alert: null,
    };
    const undeclared = await undeclaredReads(treeHead(0, [10, 11]), 12, {
      [`${WEBHOOK_DISPATCH_META}/${PENDING_COUNT_ID}`]: { count: 2 },
      [`${WEBHOOK_PENDING_LEAVES}/10`]: pending,
      [`${WEBHOOK_PENDING_LEAVES}/11`]: pending,
    });
    expect(undeclared).toEqual([`${WEBHOOK_TENANTS}/${TENANT}`]);
  });
});
