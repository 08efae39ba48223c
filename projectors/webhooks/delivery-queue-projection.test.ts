import { createPublicKey, type KeyObject, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SqliteReadStore } from '../../adapters/sqlite/read-store';
import {
  type AdmissionContext,
  decideWithCertificate,
} from '../../command-api/governance/evidence/submit-evidence';
import { decideSubmitExecution } from '../../command-api/governance/execution/submit-execution';
import {
  type TenantEvent,
  type TenantState,
  tenantAggregate,
} from '../../command-api/governance/tenants/tenant-state';
import { authorityNodeIdOf } from '../../domain/governance/envelope';
import { ed25519Keys, validBody } from '../../domain/governance/test-fixtures';
import { createLocalValidators } from '../../domain/governance/validators';
import {
  type EventPayloads,
  type EventType,
  type EvidenceAdmitted,
  type SubmitExecutionBody,
  validateEventData,
  validateWebhookPayload,
  type WebhookEventName,
} from '../../event-schemas';
import type { Bus, BusSubscribeOptions } from '../../ports/bus';
import type { RecordedEvent } from '../../ports/event-store';
import type { Change, Checkpoint, ReadStore } from '../../ports/read-store';
import { heldApplies } from '../../tests/support/held-applies';
import { dumpCollections } from '../../tests/support/stream-stats.projection';
import { compactChanges } from '../engine/compact-changes';
import { physicalCollection } from '../engine/projection';
import { projectEvents } from '../engine/runner';
import { renderFromRecipe } from './body-recipe';
import { DeliveryQueueConsumer, writeOrder } from './delivery-queue-consumer';
import {
  APPLIED_ID,
  type DeliveryView,
  deliveryQueueProjection,
  PENDING_COUNT_ID,
  queuedDeliveryId,
  SEQ_STRIDE,
  storedDelivery,
  WEBHOOK_CHAIN_DEPTHS,
  WEBHOOK_DELIVERIES,
  WEBHOOK_DISPATCH_META,
  WEBHOOK_PENDING_LEAVES,
  WEBHOOK_SUBJECTS,
  WEBHOOK_TENANTS,
  WEBHOOKS,
  type WebhookTenantView,
  type WebhookView,
} from './delivery-queue-projection';
import { WEBHOOK_EVENT_NAMES, webhookEventId, webhookLinks } from './webhook-events';
import { renderComplianceReportReady } from './webhook-payloads';

/** The pattern the delivery log's responses publish for a delivery id. */
const DELIVERY_ID_PATTERN = new RegExp(
  JSON.parse(
    readFileSync(path.join(__dirname, '../../event-schemas/governance/responses/delivery-log.json'), 'utf8'),
  ).$defs.delivery_id.pattern,
);

const PUBLIC_URL = 'https://gov.example';
const GENERATION = 1;
const ADMISSIONS = new Set(['EvidenceAdmitted', 'ExecutionAdmitted', 'VarianceRecorded']);
const [authorityKey, ...validatorKeys] = ed25519Keys(5) as [KeyObject, ...KeyObject[]];
const validators = createLocalValidators(validatorKeys);
const projection = deliveryQueueProjection({ publicUrl: PUBLIC_URL });

let tenantCount = 0;
let webhookCount = 0;

/**
 * An event store in miniature feeding the delivery-queue projection through the runtime's own path
 * (`projectEvents`, then a real read store with its position guard), plus a sequencer that
 * integrates the admissions appended so far under one TreeHeadSigned.
 */
class World {
  readonly readStore = new SqliteReadStore(':memory:');
  readonly log: RecordedEvent[] = [];
  private unintegrated: RecordedEvent[] = [];
  private leaves = 0;
  private time = Date.parse('2025-06-01T12:00:00.000Z');

  now(): Date {
    return new Date(this.time);
  }

  /** Appends (validated like the ValidatingEventStore does) and projects, one event per batch. */
  async append<T extends EventType>(
    type: T,
    data: EventPayloads[T],
    tenantId: string,
    { project = true } = {},
  ): Promise<RecordedEvent> {
    const [event] = await this.appendBatch([{ type, data, tenantId }], { project });
    return event!;
  }

  /** Appends several events and projects them as one batch (the overlay of BatchState in play). */
  async appendBatch(
    events: readonly { type: EventType; data: unknown; tenantId: string }[],
    { project = true } = {},
  ): Promise<RecordedEvent[]> {
    const recorded = events.map(({ type, data, tenantId }) => {
      const validation = validateEventData(type, data);
      if (!validation.ok) throw new Error(`invalid ${type}: ${JSON.stringify(validation.problems)}`);
      this.time += 1000;
      const event: RecordedEvent = {
        id: randomUUID(),
        type,
        stream: `tenant-${tenantId}`,
        revision: 0,
        position: this.log.length + 1,
        recorded_at: new Date(this.time).toISOString(),
        tenant_id: tenantId,
        correlation_id: 'test',
        causation_id: null,
        schema_version: 1,
        data,
      };
      this.log.push(event);
      if (ADMISSIONS.has(type)) this.unintegrated.push(event);
      return event;
    });
    if (project) await this.project(recorded);
    return recorded;
  }

  /** The sequencer: one signed tree head over every admission not yet integrated (projected unless told). */
  async integrate({ project = true, leavePending = 0 } = {}): Promise<RecordedEvent> {
    // `leavePending`: the newest admissions, committed after the sequencer read its batch.
    const batch = this.unintegrated.slice(0, this.unintegrated.length - leavePending);
    this.unintegrated = this.unintegrated.slice(batch.length);
    const first = this.leaves;
    this.leaves += batch.length;
    const [head] = await this.appendBatch(
      [
        {
          type: 'TreeHeadSigned',
          tenantId: 'system',
          data: {
            origin: 'gov.example/log',
            tree_size: this.leaves,
            root_hash: String(this.leaves % 10).repeat(64),
            timestamp: new Date(this.time).toISOString(),
            checkpoint: `gov.example/log\n${this.leaves}\n`,
            first_leaf_index: first,
            leaf_positions: batch.map((event) => event.position),
          },
        },
      ],
      { project },
    );
    return head!;
  }

  /** Projects already stored events again (a restart before the checkpoint, a bus redelivery). */
  async project(events: readonly RecordedEvent[]): Promise<void> {
    await this.readStore.apply(await projectEvents(projection, this.readStore, GENERATION, events));
  }

  async get<T>(collection: string, id: string) {
    return this.readStore.get<T>(physicalCollection(collection, GENERATION), id);
  }

  /** Every queued delivery in seq order, optionally of one webhook. */
  async deliveries(webhookId?: string): Promise<DeliveryView[]> {
    const out: DeliveryView[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<SqliteReadStore['find']>> = await this.readStore.find<DeliveryView>(
        physicalCollection(WEBHOOK_DELIVERIES, GENERATION),
        {
          ...(webhookId && { where: { webhook_id: webhookId } }),
          sort: { field: 'seq', direction: 'asc' },
          limit: 1000,
          cursor,
        },
      );
      out.push(...page.items.map((item) => item.data as DeliveryView));
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  }

  dump(): Promise<string> {
    return dumpCollections(
      this.readStore,
      projection.collections.map((collection) => physicalCollection(collection, GENERATION)),
    );
  }

  /** Every document but the marker of the last event applied: what an event that changes nothing leaves. */
  async effects(): Promise<string> {
    const documents = JSON.parse(await this.dump()) as Record<string, [string, number, unknown][]>;
    const meta = physicalCollection(WEBHOOK_DISPATCH_META, GENERATION);
    documents[meta] = documents[meta]!.filter(([id]) => id !== APPLIED_ID);
    return JSON.stringify(documents);
  }
}

/** A tenant issuing real domain events through the command deciders. */
function withoutCarriedState(data: unknown): unknown {
  const { chain_depth: _depth, previous_observables: _previous, ...rest } = data as Record<string, unknown>;
  return rest;
}

class Tenant {
  readonly id = `ten_${(++tenantCount).toString(16).padStart(24, '0')}`;
  state: TenantState;

  /**
   * `olderRelease`: its events lack what this release's carry of the state they were decided on
   * (`chain_depth`, `previous_observables`), so the dispatcher keeps its own count and copy.
   */
  constructor(
    private readonly world: World,
    public olderRelease = false,
  ) {
    this.state = {
      ...tenantAggregate.initial(),
      exists: true,
      tenant_id: this.id,
      tier: 'L2',
      registered_at: world.now().toISOString(),
    };
  }

  private context(): AdmissionContext {
    return {
      now: this.world.now(),
      correlationId: 'test',
      validators,
      authority: { privateKey: authorityKey, nodeId: authorityNodeIdOf(createPublicKey(authorityKey)) },
      logBinding: () => ({ log_id: 'gov.example/log+1a2b3c4d+AQID', log_url: `${PUBLIC_URL}/gov/v1/log` }),
      replayUrl: webhookLinks(PUBLIC_URL).replay,
    };
  }

  private async record(
    events: readonly { type: string; data: unknown }[],
    { project = true } = {},
  ): Promise<RecordedEvent[]> {
    const recorded: RecordedEvent[] = [];
    for (const event of events) {
      const data = this.olderRelease ? withoutCarriedState(event.data) : event.data;
      recorded.push(await this.world.append(event.type as EventType, data as never, this.id, { project }));
      this.state = tenantAggregate.evolve(this.state, event as TenantEvent);
    }
    return recorded;
  }

  /** POST /governance/evidence: an EvidenceAdmitted, or a GateFailed when `fail` breaks G1. */
  async submit(subjectId = 'model-7', fail = false, { project = true } = {}): Promise<RecordedEvent> {
    const body = { ...validBody(), subject_id: subjectId };
    if (fail) body.gate_results.G1.confidence_interval_lower = 0.5;
    const decision = await decideWithCertificate(this.state, body, this.context());
    const [event] = await this.record(decision.events, { project });
    return event!;
  }

  /** POST /governance/execution against an admitted leaf: its ExecutionAdmitted and VarianceRecorded. */
  async execute(
    admitted: RecordedEvent,
    body: Omit<SubmitExecutionBody, 'parent_auth_leaf_hash'>,
  ): Promise<[RecordedEvent, RecordedEvent]> {
    const data = admitted.data as EvidenceAdmitted;
    const decision = decideSubmitExecution(
      this.state,
      { parent_auth_leaf_hash: data.leaf_hash, ...body },
      {
        tenant_id: this.id,
        subject_id: data.subject_id,
        leaf_hash: data.leaf_hash,
        auth_state: data.observables,
      },
      { now: this.world.now(), correlationId: 'test' },
    );
    const [exec, variance] = await this.record(decision.events);
    return [exec!, variance!];
  }

  async registerWebhook(events: readonly WebhookEventName[]): Promise<string> {
    const webhookId = `wh_${(++webhookCount).toString(16).padStart(24, '0')}`;
    await this.world.append(
      'WebhookRegistered',
      {
        tenant_id: this.id,
        webhook_id: webhookId,
        url: `https://hooks.example/${webhookId}`,
        events: events as EventPayloads['WebhookRegistered']['events'],
        secret_sealed: `v1.sealed-${webhookId}`,
        secret_generated: false,
        created_at: this.world.now().toISOString(),
      },
      this.id,
    );
    return webhookId;
  }

  removeWebhook(webhookId: string, tenantId = this.id): Promise<RecordedEvent> {
    return this.world.append(
      'WebhookRemoved',
      { tenant_id: tenantId, webhook_id: webhookId, removed_at: this.world.now().toISOString() },
      tenantId,
    );
  }

  redeliver(webhookId: string, deliveryId: string): Promise<RecordedEvent> {
    return this.world.append(
      'WebhookRedeliveryRequested',
      {
        tenant_id: this.id,
        webhook_id: webhookId,
        delivery_id: deliveryId,
        requested_at: this.world.now().toISOString(),
      },
      this.id,
    );
  }
}

/** The body a delivery sends, checked against its event's schema. */
function payloadOf(delivery: DeliveryView): Record<string, unknown> {
  const body =
    delivery.body ?? renderComplianceReportReady(delivery.render!.notice, null, webhookLinks(PUBLIC_URL));
  expect(Buffer.byteLength(body)).toBeLessThanOrEqual(131_072);
  const payload = JSON.parse(body);
  const validation = validateWebhookPayload(delivery.event_type, payload);
  expect(validation.ok ? [] : validation.problems).toEqual([]);
  expect(payload).toMatchObject({ type: delivery.event_type, event_id: delivery.event_id });
  return payload;
}

/** One apply as a store without transactions writes it: collection by collection, counters last. */
function asWrittenWithoutTransactions(write: readonly Change[]): Change[] {
  const counters = write.filter((change) => change.kind === 'increment');
  const byCollection = new Map<string, Change[]>();
  for (const change of write.filter((change) => change.kind !== 'increment'))
    byCollection.set(change.collection, [...(byCollection.get(change.collection) ?? []), change]);
  return [...[...byCollection.values()].flat(), ...counters];
}

const ALL_EVENTS: WebhookEventName[] = [...WEBHOOK_EVENT_NAMES];

describe('the delivery-queue projection', () => {
  let world: World;
  beforeEach(() => {
    world = new World();
  });
  afterEach(() => world.readStore.close());

  describe('webhooks', () => {
    it('given a registration and a removal, then the webhook stays with removed_at and leaves its tenant’s active list', async () => {
      const tenant = new Tenant(world);
      const first = await tenant.registerWebhook(['leaf_admitted']);
      const second = await tenant.registerWebhook(['gate_fail', 'observables_alert']);
      expect((await world.get<WebhookTenantView>(WEBHOOK_TENANTS, tenant.id))?.data).toEqual({
        active: [
          { webhook_id: first, events: ['leaf_admitted'] },
          { webhook_id: second, events: ['gate_fail', 'observables_alert'] },
        ],
      });
      const removal = await tenant.removeWebhook(first);
      expect((await world.get<WebhookView>(WEBHOOKS, first))?.data).toEqual({
        tenant_id: tenant.id,
        webhook_id: first,
        url: `https://hooks.example/${first}`,
        events: ['leaf_admitted'],
        secret_sealed: `v1.sealed-${first}`,
        secret_generated: false,
        created_at: expect.any(String),
        removed_at: (removal.data as { removed_at: string }).removed_at,
      });
      expect((await world.get<WebhookTenantView>(WEBHOOK_TENANTS, tenant.id))?.data.active).toEqual([
        { webhook_id: second, events: ['gate_fail', 'observables_alert'] },
      ]);
    });

    it('given another tenant’s webhook, when it is “removed” by a tenant that does not own it, then nothing changes', async () => {
      const owner = new Tenant(world);
      const other = new Tenant(world);
      const webhookId = await owner.registerWebhook(['gate_fail']);
      const before = await world.effects();
      await other.removeWebhook(webhookId);
      expect(await world.effects()).toBe(before);
    });
  });

  describe('one webhook event of each type', () => {
    it('given a tenant with a webhook for leaf_admitted, when its evidence is integrated, then one delivery is queued with the leaf index, hash and replay url', async () => {
      const tenant = new Tenant(world);
      const webhookId = await tenant.registerWebhook(['leaf_admitted']);
      const admitted = await tenant.submit();
      expect(await world.deliveries()).toEqual([]); // admitted, not yet in the log
      const head = await world.integrate();

      const deliveries = await world.deliveries();
      const eventId = webhookEventId(admitted.id, 'leaf_admitted');
      const data = admitted.data as EvidenceAdmitted;
      expect(deliveries).toEqual([
        {
          seq: head.position * SEQ_STRIDE,
          delivery_id: queuedDeliveryId(head.position, 0),
          tenant_id: tenant.id,
          webhook_id: webhookId,
          event_id: eventId,
          event_type: 'leaf_admitted',
          body: expect.any(String),
          recipe: { position: admitted.position, leaf_index: 0 },
          queued_at: head.recorded_at,
          redelivery_of: null,
        },
      ]);
      expect(payloadOf(deliveries[0]!)).toEqual({
        type: 'leaf_admitted',
        event_id: eventId,
        tenant_id: tenant.id,
        leaf_index: 0,
        leaf_hash: data.leaf_hash,
        admitted_at: data.admitted_at,
        subject_id: 'model-7',
        replay_url: `${PUBLIC_URL}/governance/replay/${data.artifact_hash}`,
        artifact_hash: data.artifact_hash,
        envelope: data.envelope,
      });
      expect(await world.get(WEBHOOK_PENDING_LEAVES, String(admitted.position))).toBeNull();
    });

    it('given a tenant with a webhook for leaf_admitted, when its evidence and the tree head integrating it are projected in one batch, then the delivery is queued and the pending leaf is never written, not even as a tombstone', async () => {
      const tenant = new Tenant(world);
      await tenant.registerWebhook(['leaf_admitted']);
      const admitted = await tenant.submit('model-7', false, { project: false });
      const head = await world.integrate({ project: false });
      const changes = await projectEvents(projection, world.readStore, GENERATION, [admitted, head]);
      const pendingLeaves = physicalCollection(WEBHOOK_PENDING_LEAVES, GENERATION);
      expect(changes.filter((change) => change.collection === pendingLeaves)).toEqual([]);
      await world.readStore.apply(changes);
      expect((await world.deliveries()).map((delivery) => delivery.event_type)).toEqual(['leaf_admitted']);
      // Projected apart, the tree head deletes what the admission stored.
      const later = await tenant.submit();
      expect(await world.get(WEBHOOK_PENDING_LEAVES, String(later.position))).not.toBeNull();
      const laterHead = await world.integrate({ project: false });
      const consumed = await projectEvents(projection, world.readStore, GENERATION, [laterHead]);
      expect(consumed).toContainEqual(
        expect.objectContaining({ kind: 'delete', collection: pendingLeaves, id: String(later.position) }),
      );
    });

    it('given a tenant with a webhook for gate_fail, when its evidence fails a gate, then the delivery is queued at once', async () => {
      const tenant = new Tenant(world);
      const webhookId = await tenant.registerWebhook(['gate_fail']);
      const failed = await tenant.submit('model-7', true);
      const [delivery] = await world.deliveries(webhookId);
      expect(delivery).toMatchObject({ event_type: 'gate_fail', seq: failed.position * SEQ_STRIDE });
      expect(payloadOf(delivery!)).toMatchObject({
        type: 'gate_fail',
        tenant_id: tenant.id,
        subject_id: 'model-7',
        gates_failed: ['G1'],
        details: { G1: expect.any(String) },
        action: 'ACTION_BLOCKED',
        failed_at: (failed.data as { failed_at: string }).failed_at,
      });
    });

    it('given a webhook for compliance_report_ready, when the evidence is integrated, then the delivery asks for the report of that leaf under that tree head', async () => {
      const tenant = new Tenant(world);
      const webhookId = await tenant.registerWebhook(['compliance_report_ready']);
      await tenant.submit('model-1');
      const admitted = await tenant.submit('model-2');
      const head = await world.integrate();
      const data = admitted.data as EvidenceAdmitted;
      const deliveries = await world.deliveries(webhookId);
      expect(deliveries).toHaveLength(2);
      const delivery = deliveries[1]!;
      expect(delivery.body).toBeNull();
      expect(delivery.render).toEqual({
        kind: 'compliance_report',
        artifact_hash: data.artifact_hash,
        leaf_index: 1,
        tree_size: 2,
        notice: expect.any(Object),
      });
      expect(payloadOf(delivery)).toEqual({
        type: 'compliance_report_ready',
        event_id: webhookEventId(admitted.id, 'compliance_report_ready'),
        tenant_id: tenant.id,
        subject_id: 'model-2',
        artifact_hash: data.artifact_hash,
        leaf_index: 1,
        leaf_hash: data.leaf_hash,
        report_type: 'GOV_COMPLIANCE_REPORT_V1',
        report_url: `${PUBLIC_URL}/governance/report/${data.artifact_hash}`,
        tree_size: 2,
        root_hash: (head.data as { root_hash: string }).root_hash,
        generated_at: (head.data as { timestamp: string }).timestamp,
      });
    });

    it('given webhooks for the closed loop, when an execution and its variance are integrated, then execution_trace_admitted and variance_recorded carry their leaves', async () => {
      const tenant = new Tenant(world);
      const webhookId = await tenant.registerWebhook(['execution_trace_admitted', 'variance_recorded']);
      const admitted = await tenant.submit();
      await world.integrate();
      const [exec, variance] = await tenant.execute(admitted, { outcome: 'EXECUTED' });
      await world.integrate();
      const authLeaf = (admitted.data as EvidenceAdmitted).leaf_hash;
      const payloads = (await world.deliveries(webhookId)).map(payloadOf);
      expect(payloads).toEqual([
        {
          type: 'execution_trace_admitted',
          event_id: webhookEventId(exec.id, 'execution_trace_admitted'),
          tenant_id: tenant.id,
          subject_id: 'model-7',
          leaf_index: 1,
          leaf_hash: (exec.data as { leaf_hash: string }).leaf_hash,
          parent_auth_leaf_hash: authLeaf,
          admitted_at: expect.any(String),
          trace: (exec.data as { trace: object }).trace,
        },
        {
          type: 'variance_recorded',
          event_id: webhookEventId(variance.id, 'variance_recorded'),
          tenant_id: tenant.id,
          subject_id: 'model-7',
          leaf_index: 2,
          leaf_hash: (variance.data as { leaf_hash: string }).leaf_hash,
          auth_leaf_hash: authLeaf,
          recorded_at: expect.any(String),
          record: (variance.data as { record: object }).record,
        },
      ]);
    });

    it('given a webhook for governance_breach, when a FAILED execution’s variance is integrated, then the breach is sent; a NOMINAL one sends nothing', async () => {
      const tenant = new Tenant(world);
      const webhookId = await tenant.registerWebhook(['governance_breach']);
      const nominal = await tenant.submit('steady');
      await tenant.execute(nominal, { outcome: 'EXECUTED' });
      const breaching = await tenant.submit('wobbly');
      const [exec, variance] = await tenant.execute(breaching, { outcome: 'FAILED' });
      await world.integrate();
      const deliveries = await world.deliveries(webhookId);
      expect(deliveries).toHaveLength(1);
      expect(payloadOf(deliveries[0]!)).toMatchObject({
        type: 'governance_breach',
        event_id: webhookEventId(variance.id, 'governance_breach'),
        subject_id: 'wobbly',
        auth_leaf_hash: (breaching.data as EvidenceAdmitted).leaf_hash,
        exec_leaf_hash: (exec.data as { leaf_hash: string }).leaf_hash,
        variance_leaf_hash: (variance.data as { leaf_hash: string }).leaf_hash,
        classification: 'BREACH',
        omega_breach: true,
        l2_distance: expect.any(Number),
        drift_direction: { H: 'degraded', C: 'degraded', E: 'degraded' },
        record: (variance.data as { record: object }).record,
      });
    });

    it('given a chain begun before an upgrade (admissions without their depth), when admissions that carry it continue it to 10, then one milestone at 10, and no counter or copy is written after the upgrade', async () => {
      const tenant = new Tenant(world, true);
      const webhookId = await tenant.registerWebhook(['chain_depth_milestone', 'observables_alert']);
      for (let depth = 1; depth <= 6; depth++) await tenant.submit();
      await world.integrate();
      const depths = physicalCollection(WEBHOOK_CHAIN_DEPTHS, GENERATION);
      const subjects = physicalCollection(WEBHOOK_SUBJECTS, GENERATION);
      const before = {
        depth: await world.readStore.get(depths, tenant.id),
        subject: await world.readStore.get(subjects, `${tenant.id}:model-7`),
      };
      expect(before.depth?.data).toEqual({ depth: 6 });
      tenant.olderRelease = false;
      for (let depth = 7; depth <= 11; depth++) await tenant.submit();
      await world.integrate();
      expect((await world.deliveries(webhookId)).map((d) => payloadOf(d).depth)).toEqual([10]);
      expect(await world.readStore.get(depths, tenant.id)).toEqual(before.depth);
      expect(await world.readStore.get(subjects, `${tenant.id}:model-7`)).toEqual(before.subject);
    });

    it.each([
      ['carry their depth', false],
      ['of an older release are counted by the dispatcher', true],
    ])(
      'given a webhook for chain_depth_milestone, when the tenant’s chain reaches 10, 100 and 1000 leaves (admissions that %s), then exactly three milestones are sent, none at 11',
      async (_, olderRelease) => {
        const tenant = new Tenant(world, olderRelease);
        const other = new Tenant(world, olderRelease);
        const template = await tenant.submit(); // leaf 1 of the chain, before any webhook
        const webhookId = await tenant.registerWebhook(['chain_depth_milestone']);
        const chain: RecordedEvent[] = [template];
        for (let depth = 2; depth <= 1001; depth++) {
          // Same record as a real admission (the dispatcher does not care); another tenant interleaved.
          if (depth % 97 === 0) await other.submit();
          const data = olderRelease ? template.data : { ...(template.data as object), chain_depth: depth };
          chain.push(await world.append('EvidenceAdmitted', data as EvidenceAdmitted, tenant.id));
          if (depth % 50 === 0 || depth === 11) await world.integrate();
        }
        await world.integrate();
        const deliveries = await world.deliveries(webhookId);
        const payloads = deliveries.map(payloadOf);
        expect(payloads.map((p) => p.depth)).toEqual([10, 100, 1000]);
        expect(deliveries.map((d) => d.recipe?.counts)).toEqual(Array(3).fill('authorization_leaves'));
        for (const payload of payloads) {
          const leaf = chain[(payload.depth as number) - 1]!;
          expect(payload).toMatchObject({
            type: 'chain_depth_milestone',
            event_id: webhookEventId(leaf.id, 'chain_depth_milestone'),
            tenant_id: tenant.id,
            counts: 'authorization_leaves',
            leaf_hash: (template.data as EvidenceAdmitted).leaf_hash,
            chain_url: `${PUBLIC_URL}/governance/chain`,
          });
        }
        // Leaf indexes count every tenant's leaves (the other tenant's are interleaved from the 97th on).
        const indexOf = (leaf: RecordedEvent) =>
          world.log.filter((event) => ADMISSIONS.has(event.type) && event.position < leaf.position).length;
        expect(payloads.map((p) => p.leaf_index)).toEqual([9, 100, 1009]);
        expect(payloads.map((p) => p.leaf_index)).toEqual([chain[9]!, chain[99]!, chain[999]!].map(indexOf));
      },
    );

    it('given a webhook for observables_alert, when gate failures take a subject out of Ω and passes bring it back, then one alert each way', async () => {
      const tenant = new Tenant(world);
      const webhookId = await tenant.registerWebhook(['observables_alert']);
      const fails: RecordedEvent[] = [];
      for (let i = 0; i < 6; i++) fails.push(await tenant.submit('model-7', true));
      expect(await world.deliveries(webhookId)).toHaveLength(1); // the 6th failure left Ω, at once
      const passes: RecordedEvent[] = [];
      for (let i = 0; i < 4; i++) passes.push(await tenant.submit('model-7'));
      expect(await world.deliveries(webhookId)).toHaveLength(1); // re-entered, not yet integrated
      await world.integrate();

      const [left, entered] = (await world.deliveries(webhookId)).map(payloadOf);
      expect(left).toMatchObject({
        event_id: webhookEventId(fails[5]!.id, 'observables_alert'),
        subject_id: 'model-7',
        crossing: 'left_omega',
        previous: (fails[4]!.data as { observables: object }).observables,
        observables: (fails[5]!.data as { observables: object }).observables,
        thresholds_crossed: [
          { observable: 'H', threshold: 0.4, bound: 'min' },
          { observable: 'E', threshold: 0.6, bound: 'max' },
        ],
        trigger: 'GateFailed',
        lifecycle: 'QUARANTINE',
      });
      expect(entered).toMatchObject({
        event_id: webhookEventId(passes[3]!.id, 'observables_alert'),
        crossing: 'entered_omega',
        previous: (passes[2]!.data as { observables: object }).observables,
        observables: (passes[3]!.data as { observables: object }).observables,
        trigger: 'EvidenceAdmitted',
      });
    });

    it('given a subject on the edge of Ω, when a breaching variance is integrated, then observables_alert comes from the variance', async () => {
      const tenant = new Tenant(world);
      for (let i = 0; i < 5; i++) await tenant.submit('edge', true); // H 0.40, E 0.60: still in Ω
      const webhookId = await tenant.registerWebhook(['observables_alert']);
      const admitted = await tenant.submit('edge');
      const [, variance] = await tenant.execute(admitted, { outcome: 'FAILED' });
      await world.integrate();
      const payloads = (await world.deliveries(webhookId)).map(payloadOf);
      expect(payloads).toEqual([
        expect.objectContaining({
          event_id: webhookEventId(variance.id, 'observables_alert'),
          crossing: 'left_omega',
          trigger: 'VarianceRecorded',
          observables: (variance.data as { observables: object }).observables,
        }),
      ]);
    });
  });

  describe('who receives what', () => {
    it('given tenants A and B each with a webhook for everything, when A’s events happen, then B’s webhook gets nothing', async () => {
      const a = new Tenant(world);
      const b = new Tenant(world);
      const hookA = await a.registerWebhook(ALL_EVENTS);
      const hookB = await b.registerWebhook(ALL_EVENTS);
      await a.submit('model-7', true);
      const admitted = await a.submit();
      await a.execute(admitted, { outcome: 'FAILED' });
      await world.integrate();
      expect(await world.deliveries(hookB)).toEqual([]);
      const mine = await world.deliveries(hookA);
      expect(mine.map((d) => d.event_type).sort()).toEqual(
        [
          'compliance_report_ready',
          'execution_trace_admitted',
          'gate_fail',
          'governance_breach',
          'leaf_admitted',
          'variance_recorded',
        ].sort(),
      );
      for (const delivery of mine) expect(payloadOf(delivery).tenant_id).toBe(a.id);
    });

    it('given two webhooks subscribed to different events, then each receives only its own', async () => {
      const tenant = new Tenant(world);
      const failures = await tenant.registerWebhook(['gate_fail']);
      const leaves = await tenant.registerWebhook(['leaf_admitted', 'compliance_report_ready']);
      const both = await tenant.registerWebhook(['gate_fail', 'leaf_admitted']);
      await tenant.submit('model-7', true);
      await tenant.submit();
      await world.integrate();
      const types = async (id: string) => (await world.deliveries(id)).map((d) => d.event_type);
      expect(await types(failures)).toEqual(['gate_fail']);
      expect(await types(leaves)).toEqual(['leaf_admitted', 'compliance_report_ready']);
      expect(await types(both)).toEqual(['gate_fail', 'leaf_admitted']);
      const [failureA, failureB] = (await world.deliveries()).filter((d) => d.event_type === 'gate_fail');
      expect(failureA!.event_id).toBe(failureB!.event_id);
      expect(failureB!.body).toBe(failureA!.body);
      expect(failureB!.recipe).toEqual(failureA!.recipe);
    });

    it('given three webhooks receiving the same event, then each delivery has the same body and recipe, and is stored with the recipe only', async () => {
      const tenant = new Tenant(world);
      for (let i = 0; i < 3; i++) await tenant.registerWebhook(['leaf_admitted']);
      await tenant.submit();
      await world.integrate();
      const [first, ...others] = await world.deliveries();
      expect(others).toHaveLength(2);
      expect(payloadOf(first!).type).toBe('leaf_admitted');
      for (const other of others) {
        expect(other).toMatchObject({ event_id: first!.event_id, body: first!.body, recipe: first!.recipe });
      }
      for (const delivery of [first!, ...others]) {
        expect(storedDelivery(delivery)).toEqual({ ...delivery, body: null });
      }
    });

    it('given a removed webhook, then it receives nothing after its removal, not even for leaves admitted before it', async () => {
      const tenant = new Tenant(world);
      const removed = await tenant.registerWebhook(['leaf_admitted', 'gate_fail']);
      const kept = await tenant.registerWebhook(['leaf_admitted']);
      await tenant.submit('model-7', true);
      await tenant.submit(); // admitted while the webhook is active…
      await tenant.removeWebhook(removed); // …removed before the log integrates it
      await world.integrate();
      await tenant.submit('model-7', true);
      expect((await world.deliveries(removed)).map((d) => d.event_type)).toEqual(['gate_fail']);
      expect((await world.deliveries(kept)).map((d) => d.event_type)).toEqual(['leaf_admitted']);
    });

    it('given a tenant without webhooks, then its admissions leave nothing waiting for the log', async () => {
      const tenant = new Tenant(world);
      const admitted = await tenant.submit();
      await tenant.submit('model-7', true);
      expect(await world.get(WEBHOOK_PENDING_LEAVES, String(admitted.position))).toBeNull();
      await world.integrate();
      expect(await world.deliveries()).toEqual([]);
    });
  });

  describe('redelivery', () => {
    it('given a delivery, when it is redelivered twice and via its copy, then each copy has the same body and event id, a new id and a later seq', async () => {
      const tenant = new Tenant(world);
      const webhookId = await tenant.registerWebhook(['gate_fail']);
      await tenant.submit('model-7', true);
      const [original] = await world.deliveries(webhookId);
      await tenant.redeliver(webhookId, original!.delivery_id);
      const second = await tenant.redeliver(webhookId, original!.delivery_id);
      await tenant.redeliver(webhookId, `${original!.delivery_id}:r1`);
      const all = await world.deliveries(webhookId);
      expect(all.map((d) => d.delivery_id)).toEqual([
        original!.delivery_id,
        `${original!.delivery_id}:r1`,
        `${original!.delivery_id}:r2`,
        `${original!.delivery_id}:r3`,
      ]);
      for (const copy of all.slice(1)) {
        expect(copy).toMatchObject({
          event_id: original!.event_id,
          event_type: 'gate_fail',
          body: original!.body,
          redelivery_of: original!.delivery_id,
          webhook_id: webhookId,
          tenant_id: tenant.id,
        });
      }
      expect(all[2]).toMatchObject({ seq: second.position * SEQ_STRIDE, queued_at: second.recorded_at });
    });

    it('given a delivery that is not the webhook’s or the tenant’s, or a removed webhook, then a redelivery request changes nothing', async () => {
      const a = new Tenant(world);
      const b = new Tenant(world);
      const hookA = await a.registerWebhook(['gate_fail']);
      const otherHookA = await a.registerWebhook(['leaf_admitted']);
      const hookB = await b.registerWebhook(['gate_fail']);
      await a.submit('model-7', true);
      const [delivery] = await world.deliveries(hookA);
      const before = await world.effects();
      await b.redeliver(hookB, delivery!.delivery_id); // another tenant's delivery
      await a.redeliver(otherHookA, delivery!.delivery_id); // another webhook's delivery
      await a.redeliver(hookA, `${hookA}.evt_${'0'.repeat(32)}`); // no such delivery
      expect(await world.effects()).toBe(before);
      await a.removeWebhook(hookA);
      const removed = await world.effects();
      await a.redeliver(hookA, delivery!.delivery_id);
      expect(await world.effects()).toBe(removed);
    });

    it('given a compliance_report_ready delivery, when it is redelivered, then the copy carries the same render instruction', async () => {
      const tenant = new Tenant(world);
      const webhookId = await tenant.registerWebhook(['compliance_report_ready']);
      await tenant.submit();
      await world.integrate();
      const [original] = await world.deliveries(webhookId);
      await tenant.redeliver(webhookId, original!.delivery_id);
      const [, copy] = await world.deliveries(webhookId);
      expect(copy).toMatchObject({ body: null, render: original!.render, event_id: original!.event_id });
    });
  });

  describe('bodies over 128 KB', () => {
    it('given an execution trace with a 200 KB context, when it is integrated, then the trimmed summary is queued with the leaf link', async () => {
      const tenant = new Tenant(world);
      const webhookId = await tenant.registerWebhook(['execution_trace_admitted', 'variance_recorded']);
      const admitted = await tenant.submit();
      const [exec] = await tenant.execute(admitted, {
        outcome: 'EXECUTED',
        execution_context: { transcript: 'tok '.repeat(50_000) },
      });
      await world.integrate();
      const [trace, variance] = await world.deliveries(webhookId);
      const payload = payloadOf(trace!);
      expect(payload).toEqual({
        type: 'execution_trace_admitted',
        event_id: webhookEventId(exec.id, 'execution_trace_admitted'),
        tenant_id: tenant.id,
        subject_id: 'model-7',
        leaf_index: 1,
        leaf_hash: (exec.data as { leaf_hash: string }).leaf_hash,
        parent_auth_leaf_hash: (admitted.data as EvidenceAdmitted).leaf_hash,
        admitted_at: expect.any(String),
        trimmed: true,
        original_bytes: expect.any(Number),
        url: `${PUBLIC_URL}/gov/v1/log/leaf?index=1`,
      });
      expect(payload.original_bytes).toBeGreaterThan(200_000);
      expect(payloadOf(variance!)).not.toHaveProperty('trimmed');
    });
  });

  describe('order and replay', () => {
    /** A bit of everything: two tenants, failures, admissions, closed loops, a removal, a redelivery. */
    async function busyHistory(): Promise<void> {
      const a = new Tenant(world);
      const b = new Tenant(world);
      const hookA = await a.registerWebhook(ALL_EVENTS);
      await b.registerWebhook(['gate_fail', 'leaf_admitted']);
      for (let i = 0; i < 6; i++) await a.submit('model-7', true);
      const admitted = await a.submit('model-8');
      await b.submit();
      await a.execute(admitted, { outcome: 'FAILED' });
      await world.integrate();
      await b.submit('model-1', true);
      for (let i = 0; i < 9; i++) await a.submit(`model-${i}`);
      const [first] = await world.deliveries(hookA);
      await a.redeliver(hookA, first!.delivery_id);
      await world.integrate();
    }

    it('given a busy history, then seq is strictly increasing in queueing order and derives from the event position', async () => {
      await busyHistory();
      const deliveries = await world.deliveries();
      expect(deliveries.length).toBeGreaterThan(20);
      for (let i = 1; i < deliveries.length; i++) {
        expect(deliveries[i]!.seq).toBeGreaterThan(deliveries[i - 1]!.seq);
      }
      const positions = new Map(world.log.map((event) => [event.recorded_at, event.position]));
      for (const delivery of deliveries) {
        const position = positions.get(delivery.queued_at)!;
        expect(delivery.seq).toBeGreaterThanOrEqual(position * SEQ_STRIDE);
        expect(delivery.seq).toBeLessThan((position + 1) * SEQ_STRIDE);
      }
      for (const delivery of deliveries) payloadOf(delivery);
    });

    it('given a busy history, then delivery ids name the queueing event and sort as their seqs do (redeliveries aside)', async () => {
      await busyHistory();
      const deliveries = (await world.deliveries()).filter((delivery) => delivery.redelivery_of === null);
      const ids = deliveries.map((delivery) => delivery.delivery_id);
      expect([...ids].sort()).toEqual(ids);
      expect(new Set(ids).size).toBe(ids.length);
      const positions = new Map(world.log.map((event) => [event.recorded_at, event.position]));
      for (const delivery of deliveries) {
        const position = positions.get(delivery.queued_at)!;
        expect(delivery.delivery_id).toMatch(new RegExp(`^dlv_${position.toString(36).padStart(11, '0')}_`));
        expect(delivery.delivery_id).toMatch(DELIVERY_ID_PATTERN);
      }
      // base 36, padded: 10 sorts after 9, and a position past 2^32 still sorts after a small one
      expect(queuedDeliveryId(9, 0) < queuedDeliveryId(10, 0)).toBe(true);
      expect(queuedDeliveryId(10, 35) < queuedDeliveryId(10, 36)).toBe(true);
      expect(queuedDeliveryId(7, 0) < queuedDeliveryId(2 ** 40, 0)).toBe(true);
    });

    it('given a busy history, then every delivery but a report is stored without its body, and its recipe renders the same bytes from the event at its position', async () => {
      await busyHistory();
      const links = webhookLinks(PUBLIC_URL);
      const eventAt = (position: number) => world.log.find((event) => event.position === position) ?? null;
      const rendered = new Set<string>();
      for (const delivery of await world.deliveries()) {
        if (delivery.event_type === 'compliance_report_ready') {
          expect(storedDelivery(delivery)).toBe(delivery); // rendered by the log, not from a recipe
          continue;
        }
        expect(storedDelivery(delivery).body).toBeNull();
        expect(renderFromRecipe(delivery, eventAt(delivery.recipe!.position), links)).toBe(delivery.body);
        rendered.add(delivery.event_type);
      }
      expect([...rendered].sort()).toEqual(
        ALL_EVENTS.filter((name) => name !== 'compliance_report_ready').sort(),
      );
    });

    it('given a chain_depth_milestone queued before its body said what depth counts (a recipe without `counts`), then a retry or a redelivery renders the bytes first sent, without it', async () => {
      await busyHistory();
      const links = webhookLinks(PUBLIC_URL);
      const eventAt = (position: number) => world.log.find((event) => event.position === position) ?? null;
      const [queued] = (await world.deliveries()).filter((d) => d.event_type === 'chain_depth_milestone');
      const { counts, ...olderRecipe } = queued!.recipe!;
      expect(counts).toBe('authorization_leaves');
      const older = { ...storedDelivery(queued!), recipe: olderRecipe };
      const { counts: _, ...firstSent } = JSON.parse(queued!.body!);
      expect(renderFromRecipe(older, eventAt(olderRecipe.position), links)).toBe(JSON.stringify(firstSent));
      expect(renderFromRecipe(queued!, eventAt(olderRecipe.position), links)).toBe(queued!.body);
    });

    it('given a recipe, when the event at its position is missing or another one, then rendering fails instead of sending another body', async () => {
      await busyHistory();
      const links = webhookLinks(PUBLIC_URL);
      const [delivery] = (await world.deliveries()).filter((d) => d.event_type === 'leaf_admitted');
      const position = delivery!.recipe!.position;
      expect(() => renderFromRecipe(delivery!, null, links)).toThrow(
        `the event at position ${position}, source of delivery ${delivery!.delivery_id}, is not in the event store`,
      );
      const other = world.log.find(
        (event) => event.type === 'EvidenceAdmitted' && event.position !== position,
      )!;
      expect(() => renderFromRecipe(delivery!, { ...other, position }, links)).toThrow(
        `(${other.id}) is not the source of delivery ${delivery!.delivery_id}`,
      );
    });

    it('given every event projected a second time, then the position guard makes it change nothing', async () => {
      await busyHistory();
      const once = await world.dump();
      for (const event of world.log) await world.project([event]);
      expect(await world.dump()).toBe(once);
      await world.project(world.log); // and all at once, as one redelivered batch
      expect(await world.dump()).toBe(once);
    });

    it('given the same events replayed into an empty store, in batches, then the same deliveries are queued', async () => {
      await busyHistory();
      const live = await world.dump();
      const replay = new World();
      for (let i = 0; i < world.log.length; i += 7) await replay.project(world.log.slice(i, i + 7));
      expect(await replay.dump()).toBe(live);
      await replay.readStore.close();
    });

    it('given a batch of an admission and a tree head written only in part, as a store without transactions can leave it at a crash, when it is handled again, then every delivery is queued and the next tree head finds all of its leaves', async () => {
      const tenant = new Tenant(world);
      await tenant.registerWebhook(['leaf_admitted', 'compliance_report_ready']);
      for (let i = 0; i < 3; i++) await tenant.submit(`model-${i}`);
      // One bus batch: a fourth admission, committed after the sequencer read its batch, then the
      // tree head of the first three. The fourth's pending leaf comes before the head's deletes.
      const fourth = await tenant.submit('model-3', false, { project: false });
      const head = await world.integrate({ project: false, leavePending: 1 });
      const batch = [fourth, head];
      const writes = writeOrder(
        compactChanges(await projectEvents(projection, world.readStore, GENERATION, batch)),
        GENERATION,
      );
      // The order the MongoDB read store writes them in: write by write, within one collection by
      // collection as each first appears, counters last.
      const sequence = writes.flatMap(asWrittenWithoutTransactions);
      for (let written = 0; written <= sequence.length; written++) {
        const crashed = new World();
        for (const event of world.log.slice(0, -2)) await crashed.project([event]);
        for (const change of sequence.slice(0, written)) await crashed.readStore.apply([change]);
        for (const write of writeOrder(
          compactChanges(await projectEvents(projection, crashed.readStore, GENERATION, batch)),
          GENERATION,
        ))
          await crashed.readStore.apply(write);
        // Then two more admissions and the next tree head, over the fourth leaf and them.
        const later = new Tenant(crashed);
        later.state = tenant.state;
        crashed.log.push(...world.log);
        const internals = crashed as unknown as { leaves: number; unintegrated: RecordedEvent[] };
        internals.leaves = 3;
        internals.unintegrated = [fourth];
        for (let i = 4; i < 6; i++) await later.submit(`model-${i}`);
        await crashed.integrate();
        expect({ written, deliveries: (await crashed.deliveries()).length }).toEqual({
          written,
          deliveries: 12,
        });
        await crashed.readStore.close();
      }
    });

    /**
     * The consumer handling `events` as one bus batch; resolves with the deliveries it offered, and
     * those it announced before writing them (with how many were stored at that moment).
     */
    async function handleInConsumer(events: RecordedEvent[], readStore: ReadStore = world.readStore) {
      const consumer = await consumerOn(readStore);
      await consumer.handle(events);
      return consumer;
    }

    /**
     * A started consumer on `readStore`, whose bus batches the test hands it one by one; the bus assigns
     * it every event (`whole`) or a share of them, and `reassign` assigns again.
     */
    async function consumerOn(readStore: ReadStore, changedWebhooks: string[] = [], whole = true) {
      let handle: ((events: RecordedEvent[]) => Promise<void>) | null = null;
      let assigned: BusSubscribeOptions['onAssigned'];
      const bus = {
        publish: async () => undefined,
        subscribe: async (
          _group: string,
          handler: (events: RecordedEvent[]) => Promise<void>,
          options: BusSubscribeOptions = {},
        ) => {
          handle = handler;
          assigned = options.onAssigned;
          assigned?.(whole);
          return { stop: async () => undefined };
        },
        close: async () => undefined,
      } as unknown as Bus;
      const offered: DeliveryView[] = [];
      /** The writes offered deliveries were handed over with, when offered before them. */
      const storing: Promise<void>[] = [];
      const announced: { views: DeliveryView[]; storedThen: number } = { views: [], storedThen: -1 };
      const consumer = new DeliveryQueueConsumer({
        bus,
        readStore,
        projection,
        generation: GENERATION,
        deliveries: WEBHOOK_DELIVERIES,
        onQueued: (views, stored) => {
          offered.push(...views);
          if (stored) storing.push(stored);
        },
        onQueuing: (views) => {
          announced.views.push(...views);
          void world.deliveries().then((stored) => {
            announced.storedThen = stored.length;
          });
        },
        onWebhooksChanged: (ids) => changedWebhooks.push(...ids),
      });
      await consumer.start();
      return {
        offered,
        storing,
        announced,
        handle: (events: RecordedEvent[]) => handle!(events),
        reassign: (all: boolean) => assigned?.(all),
        handled: () => consumer.handledPosition,
      };
    }

    /** `readStore` counting its reads of documents, recording its applies, refusing the next one when told to. */
    function countingReads(readStore: ReadStore) {
      const counted = { gets: 0, failNextApply: false, writes: [] as Change[][] };
      const store = new Proxy(readStore, {
        get(target, name, receiver) {
          if (name === 'get')
            return (collection: string, id: string) => {
              counted.gets++;
              return target.get(collection, id);
            };
          if (name === 'apply')
            return (changes: Change[], checkpoint?: Checkpoint) => {
              if (!counted.failNextApply) {
                counted.writes.push(changes);
                return target.apply(changes, checkpoint);
              }
              counted.failNextApply = false;
              return Promise.reject(new Error('disk full'));
            };
          const value = Reflect.get(target, name, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      return { store, counted };
    }

    it('given a consumer that handled a batch, then the next batch reads no document back from the store; after a failed batch it reads them again', async () => {
      // Admissions of an older release: the dispatcher counts the chain itself (a counter to watch).
      const tenant = new Tenant(world, true);
      await tenant.registerWebhook(['leaf_admitted', 'chain_depth_milestone']);
      const { store, counted } = countingReads(world.readStore);
      const consumer = await consumerOn(store);
      const batch = async () => [
        await tenant.submit('model-1', false, { project: false }),
        await world.integrate({ project: false }),
      ];

      await consumer.handle(await batch());
      expect(counted.gets).toBeGreaterThan(0);
      counted.gets = 0;
      await consumer.handle(await batch());
      expect(counted.gets).toBe(0);

      const failing = await batch();
      counted.failNextApply = true;
      await expect(consumer.handle(failing)).rejects.toThrow('disk full');
      counted.gets = 0;
      await consumer.handle(failing); // the bus delivers the batch again
      expect(counted.gets).toBeGreaterThan(0);
      expect(await world.deliveries()).toHaveLength(3);
      expect((await world.get<{ depth: number }>(WEBHOOK_CHAIN_DEPTHS, tenant.id))?.data.depth).toBe(3);
    });

    it('given a consumer that kept its documents, when the bus assigns it events again (another consumer may have written meanwhile), then its next batch reads them from the store', async () => {
      // Admissions of an older release: the dispatcher counts the chain itself (a counter to watch).
      const tenant = new Tenant(world, true);
      await tenant.registerWebhook(['leaf_admitted']);
      const { store, counted } = countingReads(world.readStore);
      const consumer = await consumerOn(store);
      const batch = async () => [
        await tenant.submit('model-1', false, { project: false }),
        await world.integrate({ project: false }),
      ];
      await consumer.handle(await batch());
      counted.gets = 0;
      await consumer.handle(await batch());
      expect(counted.gets).toBe(0);

      consumer.reassign(true);
      await consumer.handle(await batch());
      expect(counted.gets).toBeGreaterThan(0);
      expect((await world.get<{ depth: number }>(WEBHOOK_CHAIN_DEPTHS, tenant.id))?.data.depth).toBe(3);
    });

    it('given a consumer the bus gives only a share of the events (Kafka partitions split between dispatchers), then every batch reads its documents and writes increments as increments', async () => {
      // Admissions of an older release: the dispatcher counts the chain itself (a counter to watch).
      const tenant = new Tenant(world, true);
      await tenant.registerWebhook(['leaf_admitted']);
      const { store, counted } = countingReads(world.readStore);
      const consumer = await consumerOn(store, [], false);
      const batch = async () => [
        await tenant.submit('model-1', false, { project: false }),
        await world.integrate({ project: false }),
      ];
      await consumer.handle(await batch());
      counted.gets = 0;
      await consumer.handle(await batch());
      expect(counted.gets).toBeGreaterThan(0);
      const depths = physicalCollection(WEBHOOK_CHAIN_DEPTHS, GENERATION);
      expect(
        counted.writes
          .flat()
          .filter((change) => change.collection === depths)
          .map((change) => change.kind),
      ).toEqual(['increment', 'increment']);
      expect((await world.get<{ depth: number }>(WEBHOOK_CHAIN_DEPTHS, tenant.id))?.data.depth).toBe(2);
    });

    it('given the bus’s only consumer, then a batch writes each counter once, as the document it leaves', async () => {
      // Admissions of an older release: the dispatcher counts the chain itself (a counter to watch).
      const tenant = new Tenant(world, true);
      await tenant.registerWebhook(['leaf_admitted']);
      const { store, counted } = countingReads(world.readStore);
      const consumer = await consumerOn(store);
      const events: RecordedEvent[] = [];
      for (let i = 0; i < 3; i++) events.push(await tenant.submit(`model-${i}`, false, { project: false }));
      events.push(await world.integrate({ project: false }));
      await consumer.handle(events);
      const writes = counted.writes.flat();
      expect(writes.some((change) => change.kind === 'increment')).toBe(false);
      const depths = physicalCollection(WEBHOOK_CHAIN_DEPTHS, GENERATION);
      expect(writes.filter((change) => change.collection === depths)).toHaveLength(1);
      expect((await world.get<{ depth: number }>(WEBHOOK_CHAIN_DEPTHS, tenant.id))?.data.depth).toBe(3);
      expect((await world.get<{ count: number }>(WEBHOOK_DISPATCH_META, PENDING_COUNT_ID))?.data.count).toBe(
        0,
      );
      expect(await world.deliveries()).toHaveLength(3);
    });

    it('given a batch that registers and removes webhooks, then the consumer names them once written', async () => {
      const tenant = new Tenant(world);
      const changed: string[] = [];
      const consumer = await consumerOn(world.readStore, changed);
      const kept = `wh_${'a'.repeat(24)}`;
      const removed = `wh_${'b'.repeat(24)}`;
      const registered = (webhookId: string) => ({
        type: 'WebhookRegistered' as const,
        tenantId: tenant.id,
        data: {
          tenant_id: tenant.id,
          webhook_id: webhookId,
          url: `https://hooks.example/${webhookId}`,
          events: ['leaf_admitted'],
          secret_sealed: `v1.sealed-${webhookId}`,
          secret_generated: false,
          created_at: world.now().toISOString(),
        },
      });
      const events = await world.appendBatch(
        [
          registered(kept),
          registered(removed),
          {
            type: 'WebhookRemoved',
            tenantId: tenant.id,
            data: { tenant_id: tenant.id, webhook_id: removed, removed_at: world.now().toISOString() },
          },
        ],
        { project: false },
      );
      await consumer.handle(events);
      expect([...new Set(changed)].sort()).toEqual([kept, removed]);
      expect((await world.get<WebhookView>(WEBHOOKS, removed))?.data.removed_at).not.toBeNull();
    });

    it('given integrated leaves, when the consumer writes its batch, then it stores each delivery with its recipe and no body, and offers it with the body', async () => {
      const tenant = new Tenant(world);
      await tenant.registerWebhook(['leaf_admitted']);
      await tenant.registerWebhook(['leaf_admitted']);
      for (let i = 0; i < 2; i++) await tenant.submit(`model-${i}`);
      const head = await world.integrate({ project: false });
      const { offered, announced } = await handleInConsumer([head]);
      const stored = await world.deliveries();
      expect(stored).toHaveLength(4);
      // announced with their bodies before the write, offered after it
      expect(announced).toEqual({ views: offered, storedThen: 0 });
      expect(offered.map((view) => view.delivery_id)).toEqual(stored.map((view) => view.delivery_id));
      stored.forEach((view, i) => {
        expect(view.body).toBeNull();
        expect(view.recipe).toEqual(offered[i]!.recipe);
        expect(offered[i]).toEqual({ ...view, body: expect.any(String) });
        expect(payloadOf(offered[i]!).type).toBe('leaf_admitted');
      });
    });

    /** The world's read store, recording each apply; `atomicApply` as given. */
    const recordingStore = (writes: Change[][], atomicApply: boolean) =>
      new Proxy(world.readStore, {
        get(target, name, receiver) {
          if (name === 'atomicApply') return atomicApply;
          if (name === 'apply')
            return (changes: Change[], checkpoint?: Checkpoint) => {
              writes.push(changes);
              return target.apply(changes, checkpoint);
            };
          const value = Reflect.get(target, name, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });

    /** Three admissions of a tenant with a leaf_admitted webhook, projected; their tree head, not yet. */
    const threeLeavesPending = async () => {
      const tenant = new Tenant(world);
      await tenant.registerWebhook(['leaf_admitted']);
      for (let i = 0; i < 3; i++) await tenant.submit(`model-${i}`);
      return world.integrate({ project: false });
    };

    it('given a store that applies in one transaction, when the consumer writes a batch whose tree head consumes pending leaves, then one write holds it all and the deliveries are offered before it commits', async () => {
      const head = await threeLeavesPending();
      const writes: Change[][] = [];
      // The store's commit is held until released: the consumer hands the deliveries over meanwhile.
      let commit!: () => void;
      const committed = new Promise<void>((resolve) => {
        commit = resolve;
      });
      const store = recordingStore(writes, true);
      const holding = new Proxy(store, {
        get(target, name, receiver) {
          if (name === 'apply')
            return (changes: Change[], checkpoint?: Checkpoint) =>
              target.apply(changes, checkpoint).then(() => committed);
          return Reflect.get(target, name, receiver);
        },
      });
      const consumer = await consumerOn(holding);
      const handled = consumer.handle([head]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(consumer.offered).toHaveLength(3);
      expect(consumer.handled()).toBe(0); // not handled before the commit
      commit();
      await handled;
      expect(consumer.handled()).toBe(head.position);
      expect(writes).toHaveLength(1);
      expect(writes[0]!.some((change) => change.kind === 'delete')).toBe(true);
      expect(await world.deliveries()).toHaveLength(3);
    });

    it('given a store without transactions, when the consumer writes a batch whose tree head consumes pending leaves, then the deliveries are written first, what the batch consumed and changed after them, and the applied marker last', async () => {
      const head = await threeLeavesPending();
      const writes: Change[][] = [];
      const recording = recordingStore(writes, false);
      await handleInConsumer([head], recording);

      const queued = physicalCollection(WEBHOOK_DELIVERIES, GENERATION);
      const meta = physicalCollection(WEBHOOK_DISPATCH_META, GENERATION);
      expect(writes).toHaveLength(3);
      expect(writes[0]!.every((change) => change.collection === queued)).toBe(true);
      expect(writes[1]!.some((change) => change.kind === 'delete')).toBe(true);
      expect(writes[1]!.some((change) => change.collection === queued)).toBe(false);
      expect(writes[2]).toEqual([expect.objectContaining({ collection: meta, id: APPLIED_ID })]);
      expect(await world.deliveries()).toHaveLength(3);
      expect(await world.get(WEBHOOK_PENDING_LEAVES, String(world.log[1]!.position))).toBeNull();
    });

    it('given a store without transactions that writes collections in any order, when it stops part-way through a batch, then a new consumer replaying the batch still queues every delivery', async () => {
      const head = await threeLeavesPending();
      const queued = physicalCollection(WEBHOOK_DELIVERIES, GENERATION);
      // Writes each apply's other collections before its deliveries (as MongoDB may, side by side),
      // and stops for good at the first delivery, once.
      let stopped = false;
      const stopping = new Proxy(recordingStore([], false), {
        get(target, name, receiver) {
          if (name === 'apply')
            return async (changes: Change[], checkpoint?: Checkpoint) => {
              const others = changes.filter((change) => change.collection !== queued);
              const deliveries = changes.filter((change) => change.collection === queued);
              if (!stopped && deliveries.length > 0) {
                stopped = true;
                await target.apply(others);
                throw new Error('the process stopped here');
              }
              return target.apply([...others, ...deliveries], checkpoint);
            };
          return Reflect.get(target, name, receiver);
        },
      });
      await expect((await consumerOn(stopping)).handle([head])).rejects.toThrow('the process stopped here');
      // The bus hands the batch to the consumer of the next start.
      await (await consumerOn(recordingStore([], false))).handle([head]);
      expect(await world.deliveries()).toHaveLength(3);
    });

    it('given a store without transactions, when the consumer writes a batch, then the deliveries are offered while it writes, with the write to wait for, and the batch is handled once it is done', async () => {
      const head = await threeLeavesPending();
      const { held, release } = heldApplies(recordingStore([], false));
      const consumer = await consumerOn(held);
      const handled = consumer.handle([head]);
      await new Promise((resolve) => setImmediate(resolve));

      expect(consumer.offered).toHaveLength(3);
      expect(consumer.storing).toHaveLength(1);
      let stored = false;
      void consumer.storing[0]!.then(() => {
        stored = true;
      });
      await new Promise((resolve) => setImmediate(resolve));
      expect(stored).toBe(false);
      expect(await world.deliveries()).toHaveLength(0);
      expect(consumer.handled()).toBe(0);

      release();
      await handled;
      expect(stored).toBe(true);
      expect(consumer.handled()).toBe(head.position);
      expect(await world.deliveries()).toHaveLength(3);
    });

    it('given a store without transactions, when a batch registers a webhook and queues a delivery for it, then the delivery is offered only once written (the worker reads the webhook from the store)', async () => {
      const tenant = new Tenant(world);
      const [registration] = await world.appendBatch(
        [
          {
            type: 'WebhookRegistered',
            tenantId: tenant.id,
            data: {
              tenant_id: tenant.id,
              webhook_id: `wh_${'c'.repeat(24)}`,
              url: 'https://hooks.example/c',
              events: ['gate_fail'],
              secret_sealed: 'v1.sealed-c',
              secret_generated: false,
              created_at: world.now().toISOString(),
            },
          },
        ],
        { project: false },
      );
      const failed = await tenant.submit('model-7', true, { project: false });
      const { held, release } = heldApplies(recordingStore([], false));
      const consumer = await consumerOn(held);
      const handled = consumer.handle([registration!, failed]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(consumer.offered).toHaveLength(0);

      release();
      await handled;
      expect(consumer.offered).toHaveLength(1);
      expect(consumer.storing).toHaveLength(0);
      expect(await world.deliveries()).toHaveLength(1);
    });

    it('given one tree head whose leaves queue more than 1024 deliveries, then the next event’s seqs continue after them', async () => {
      const tenant = new Tenant(world);
      await tenant.registerWebhook(['leaf_admitted']);
      await tenant.registerWebhook(['leaf_admitted']);
      await tenant.registerWebhook(['gate_fail']);
      const template = await tenant.submit();
      for (let i = 1; i < 600; i++) await world.append('EvidenceAdmitted', template.data as never, tenant.id);
      const head = await world.integrate();
      const next = await tenant.submit('model-7', true);
      const later = await tenant.submit('model-7', true);
      const seqs = (await world.deliveries()).map((d) => d.seq);
      expect(seqs).toHaveLength(1200 + 2);
      const base = head.position * SEQ_STRIDE;
      expect(seqs.slice(0, 1200)).toEqual(Array.from({ length: 1200 }, (_, k) => base + k));
      expect(next.position * SEQ_STRIDE).toBeLessThan(base + 1200); // the formula alone would go back
      expect(seqs[1200]).toBe(base + 1200);
      expect(seqs[1201]).toBe(later.position * SEQ_STRIDE); // and resumes once past
    });
  });
});
