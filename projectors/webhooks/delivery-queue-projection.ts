/**
 * The delivery-queue projection: which webhooks exist, and every delivery owed to them. It only queues
 * (`webhook_deliveries`, ordered by `seq`); sending, signing and retrying belong to the delivery worker.
 * Its stored name is `dispatcher` (the name its catalog entry and data folders carry).
 *
 *   webhooks                 webhook_id → the webhook (removed ones stay, with removed_at)
 *   webhook_tenants          tenant_id → its active webhooks and their events: who gets an event, in one read
 *   webhook_pending_leaves   event position → what an admitted leaf fires once the log integrates it
 *   webhook_chain_depths     tenant_id → authorization leaves so far, and
 *   webhook_subjects         `<tenant>:<subject>` → last observables (for Ω crossings): both only for
 *                            events of older releases; an event now carries its `chain_depth` and
 *                            `previous_observables` (the command side knows both when it decides)
 *   webhook_deliveries       `<webhook_id>.<event_id>` → one delivery owed (seq, body recipe, …)
 *   webhook_redeliveries     original delivery id → how many redeliveries it has had
 *   webhook_dispatch_meta    `pending` (leaves awaiting integration), `seq` (the last seq handed out),
 *                            `applied` (the last event projected: a replayed event changes nothing)
 *
 * gate_fail (and its observables_alert) are queued when the GateFailed event is projected. Everything
 * an admitted leaf fires is queued when the TreeHeadSigned that integrates it is projected: only then
 * is the leaf in the log, with its index. A leaf is remembered only when its tenant had an active
 * webhook that wants one of its events, and it is sent only to those webhooks still active then.
 */
import { isGovernanceBreach } from '../../domain/governance/closed-loop';
import { INITIAL_OBSERVABLES } from '../../domain/governance/observables';
import type {
  EvidenceAdmitted,
  ExecutionAdmitted,
  GateFailed,
  Observables,
  TreeHeadSigned,
  VarianceRecorded,
  WebhookRedeliveryRequested,
  WebhookRegistered,
  WebhookRemoved,
} from '../../event-schemas';
import type { RecordedEvent } from '../../ports/event-store';
import type { Change } from '../../ports/read-store';
import {
  type DocumentKey,
  type Projection,
  type ProjectionState,
  physicalCollection,
} from '../engine/projection';
import { subjectKey } from '../governance/governance-projection';
import { type BodyRecipe, type BodySource, renderBody } from './body-recipe';
import {
  CHAIN_DEPTH_COUNTS,
  type ChainDepthMilestone,
  chainDepthMilestone,
  omegaAlert,
  WEBHOOK_EVENTS_BY_SOURCE,
  type WebhookEventName,
  type WebhookLinks,
  webhookEventId,
  webhookLinks,
} from './webhook-events';
import {
  type CoveringHead,
  complianceReportReadyPayload,
  type EvidenceSource,
  evidenceSource,
  type FullWebhookPayload,
  type ObservablesChange,
  varianceSource,
} from './webhook-payloads';

export const WEBHOOKS = 'webhooks';
export const WEBHOOK_TENANTS = 'webhook_tenants';
export const WEBHOOK_PENDING_LEAVES = 'webhook_pending_leaves';
export const WEBHOOK_CHAIN_DEPTHS = 'webhook_chain_depths';
export const WEBHOOK_SUBJECTS = 'webhook_subjects';
export const WEBHOOK_DELIVERIES = 'webhook_deliveries';
export const WEBHOOK_REDELIVERIES = 'webhook_redeliveries';
export const WEBHOOK_DISPATCH_META = 'webhook_dispatch_meta';

/** The delivery queue's collections are not rebuilt blue/green (its queue must not be re-sent): one generation. */
export const DELIVERY_QUEUE_GENERATION = 1;
/** Physical names of the webhooks and the deliveries, in that one generation. */
export const DELIVERY_QUEUE_COLLECTIONS = {
  webhooks: physicalCollection(WEBHOOKS, DELIVERY_QUEUE_GENERATION),
  deliveries: physicalCollection(WEBHOOK_DELIVERIES, DELIVERY_QUEUE_GENERATION),
};

/** The `webhook_dispatch_meta` document counting the leaves that await the log. */
export const PENDING_COUNT_ID = 'pending';
/** The `webhook_dispatch_meta` document holding the last seq handed out. */
const LAST_SEQ_ID = 'seq';
/** The `webhook_dispatch_meta` document holding the last event applied (a replayed one changes nothing). */
export const APPLIED_ID = 'applied';

/** seq = event position × SEQ_STRIDE + k (k-th delivery the event queues), unless that would not exceed the last seq. */
export const SEQ_STRIDE = 1024;

export interface WebhookView {
  tenant_id: string;
  webhook_id: string;
  url: string;
  events: WebhookEventName[];
  secret_sealed: string;
  secret_generated: boolean;
  created_at: string;
  removed_at: string | null;
}

interface ActiveWebhook {
  webhook_id: string;
  events: WebhookEventName[];
}

export interface WebhookTenantView {
  /** Registered and not removed, in registration order. */
  active: ActiveWebhook[];
}

/** What a queued compliance_report_ready needs rendered: the notice, and the report it announces. */
interface ComplianceReportRender {
  kind: 'compliance_report';
  artifact_hash: string;
  leaf_index: number;
  /** The signed tree head the report's inclusion proof must be computed against. */
  tree_size: number;
  /** The notice body (a valid compliance_report_ready payload without `report`). */
  notice: FullWebhookPayload<'compliance_report_ready'>;
}

export interface DeliveryView {
  /** Strictly increasing in the order deliveries are queued (the worker's intake order). */
  seq: number;
  /**
   * `dlv_<position>_<k>` (`queuedDeliveryId`), or `<original>:r<n>` for the n-th redelivery; data
   * folders of older releases also hold `<webhook_id>.<event_id>`.
   */
  delivery_id: string;
  tenant_id: string;
  webhook_id: string;
  event_id: string;
  event_type: WebhookEventName;
  /**
   * The exact JSON text to sign and send (≤ 128 KB). Only in the projection's output, for the first
   * attempt: the stored document (`storedDelivery`) has null and `recipe` renders the body again.
   * Null when `render` must produce it; in documents of older releases, the body itself, or null
   * with `body_of` naming the delivery that holds it.
   */
  body: string | null;
  /** Older releases: the delivery of the same event (to another webhook) whose body this one sends. */
  body_of?: string;
  /** What renders `body` again from the event store (body-recipe.ts). */
  recipe?: BodyRecipe;
  /** Only on compliance_report_ready, whose body is null: rendered when the delivery is taken in. */
  render?: ComplianceReportRender;
  /** recorded_at of the event whose projection queued the delivery. */
  queued_at: string;
  redelivery_of: string | null;
}

type PendingLeafSource = Exclude<BodySource, { type: 'GateFailed' }>;

/** An admitted leaf awaiting integration into the log, and what it fires then. */
export interface PendingLeafView {
  tenant_id: string;
  /** The admission event: webhook event ids derive from its id. */
  source_event_id: string;
  source: PendingLeafSource;
  /** The webhook events the leaf fires, in emission order. */
  events: WebhookEventName[];
  /** Webhooks that were active and wanted one of `events` at admission. */
  webhook_ids: string[];
  /** The chain depth milestone the leaf reached, when chain_depth_milestone is in `events`. */
  depth: ChainDepthMilestone | null;
  /** The observables change, when observables_alert is in `events`. */
  alert: ObservablesChange | null;
}

interface ChainDepthView {
  depth: number;
}

interface SubjectObservablesView {
  tenant_id: string;
  subject_id: string;
  observables: Observables;
}

export interface DeliveryQueueProjectionOptions {
  /** The service's public base URL (GOV_PUBLIC_URL): links in bodies are built from it. */
  publicUrl: string;
}

/** One delivery before its seq is known; one without an id gets `queuedDeliveryId` when queued. */
type Draft = Omit<DeliveryView, 'seq' | 'queued_at' | 'redelivery_of' | 'delivery_id'> & {
  delivery_id?: string;
};

/** A webhook event ready to queue: its body and recipe, or what renders it. */
interface Outgoing {
  name: WebhookEventName;
  event_id: string;
  body: string | null;
  recipe?: BodyRecipe;
  render?: ComplianceReportRender;
}

/** The document stored for a queued delivery: without the body its recipe renders again. */
export function storedDelivery(view: DeliveryView): DeliveryView {
  return view.recipe && view.body !== null ? { ...view, body: null } : view;
}

export function deliveryQueueProjection(options: DeliveryQueueProjectionOptions): Projection {
  const links = webhookLinks(options.publicUrl);
  return {
    name: 'dispatcher',
    version: 1,
    collections: [
      WEBHOOKS,
      WEBHOOK_TENANTS,
      WEBHOOK_PENDING_LEAVES,
      WEBHOOK_CHAIN_DEPTHS,
      WEBHOOK_SUBJECTS,
      WEBHOOK_DELIVERIES,
      WEBHOOK_REDELIVERIES,
      WEBHOOK_DISPATCH_META,
    ],
    indexes: [
      { collection: WEBHOOKS, fields: ['tenant_id'] },
      // The worker's intake order. (Data folders of older releases also have an unused
      // (webhook_id, seq) index here: it costs a little per delivery, changes nothing else.)
      { collection: WEBHOOK_DELIVERIES, fields: ['seq'] },
    ],
    eventTypes: [
      'WebhookRegistered',
      'WebhookRemoved',
      'WebhookRedeliveryRequested',
      'EvidenceAdmitted',
      'GateFailed',
      'ExecutionAdmitted',
      'VarianceRecorded',
      'TreeHeadSigned',
    ],
    // What a webhook payload or an observables alert of an evidence admission holds: not its bundle,
    // certificate or gate details (~3.3 of its ~5.3 KB).
    dataMembers: {
      EvidenceAdmitted: [
        'tenant_id',
        'subject_id',
        'artifact_hash',
        'leaf_hash',
        'envelope',
        'admitted_at',
        'observables',
        'previous_observables',
        'chain_depth',
        'lifecycle',
      ],
    },
    reads: readsOf,
    // A pending leaf is keyed by the position of the admission that writes it: a tree head in the same
    // batch that consumes it leaves nothing to store.
    isBirth: (change) =>
      change.collection === WEBHOOK_PENDING_LEAVES &&
      change.kind === 'upsert' &&
      change.id === String(change.position),
    async project(event: RecordedEvent, state: ProjectionState): Promise<Change[]> {
      // Every event moves the `applied` marker: one projected again after later ones (a redelivered
      // batch) is recognised and changes nothing, instead of being re-decided on newer state.
      const applied = await state.get(WEBHOOK_DISPATCH_META, APPLIED_ID);
      if (applied && applied.position >= event.position) return [];
      const changes = await decide(event, state, links);
      // Deliveries first, the state they were decided on after: an adapter that applies a batch
      // change by change and stops half-way decides the same deliveries again on replay.
      return [
        ...changes.filter((change) => change.collection === WEBHOOK_DELIVERIES),
        ...changes.filter((change) => change.collection !== WEBHOOK_DELIVERIES),
        {
          kind: 'upsert',
          collection: WEBHOOK_DISPATCH_META,
          id: APPLIED_ID,
          position: event.position,
          data: { position: event.position },
        },
      ];
    },
  };
}

/**
 * What `project` reads first for the events that come by the thousand: admissions, gate failures and
 * the tree heads that release their leaves. What it reads after those (the webhooks a tenant has, a
 * leaf's tenant) it reads itself.
 */
function readsOf(event: RecordedEvent): DocumentKey[] {
  const keys: DocumentKey[] = [{ collection: WEBHOOK_DISPATCH_META, id: APPLIED_ID }];
  if (event.type === 'TreeHeadSigned') {
    keys.push({ collection: WEBHOOK_DISPATCH_META, id: PENDING_COUNT_ID });
    keys.push({ collection: WEBHOOK_DISPATCH_META, id: LAST_SEQ_ID });
    for (const position of (event.data as TreeHeadSigned).leaf_positions)
      keys.push({ collection: WEBHOOK_PENDING_LEAVES, id: String(position) });
    return keys;
  }
  if (!['EvidenceAdmitted', 'ExecutionAdmitted', 'VarianceRecorded', 'GateFailed'].includes(event.type))
    return keys;
  const data = event.data as CarriedState & { tenant_id: string; subject_id: string };
  keys.push({ collection: WEBHOOK_TENANTS, id: data.tenant_id });
  if (event.type !== 'ExecutionAdmitted' && !data.previous_observables)
    keys.push({ collection: WEBHOOK_SUBJECTS, id: subjectKey(data.tenant_id, data.subject_id) });
  if (event.type === 'EvidenceAdmitted' && typeof data.chain_depth !== 'number')
    keys.push({ collection: WEBHOOK_CHAIN_DEPTHS, id: data.tenant_id });
  if (event.type !== 'GateFailed') keys.push({ collection: WEBHOOK_DISPATCH_META, id: PENDING_COUNT_ID });
  else keys.push({ collection: WEBHOOK_DISPATCH_META, id: LAST_SEQ_ID });
  return keys;
}

function decide(
  event: RecordedEvent,
  state: ProjectionState,
  links: WebhookLinks,
): Promise<Change[]> | Change[] {
  switch (event.type) {
    case 'WebhookRegistered':
      return registered(event as RecordedEvent<WebhookRegistered>, state);
    case 'WebhookRemoved':
      return removed(event as RecordedEvent<WebhookRemoved>, state);
    case 'WebhookRedeliveryRequested':
      return redeliveryRequested(event as RecordedEvent<WebhookRedeliveryRequested>, state);
    case 'GateFailed':
      return gateFailed(event as RecordedEvent<GateFailed>, state, links);
    case 'EvidenceAdmitted':
    case 'ExecutionAdmitted':
    case 'VarianceRecorded':
      return admitted(event, state);
    case 'TreeHeadSigned':
      return integrated(event as RecordedEvent<TreeHeadSigned>, state, links);
    default:
      return [];
  }
}

// ---- Webhooks --------------------------------------------------------------------------------------

async function registered(
  event: RecordedEvent<WebhookRegistered>,
  state: ProjectionState,
): Promise<Change[]> {
  const data = event.data;
  const view: WebhookView = {
    tenant_id: data.tenant_id,
    webhook_id: data.webhook_id,
    url: data.url,
    events: [...data.events],
    secret_sealed: data.secret_sealed,
    secret_generated: data.secret_generated,
    created_at: data.created_at,
    removed_at: null,
  };
  const active = (await activeWebhooks(state, data.tenant_id)).filter(
    (w) => w.webhook_id !== data.webhook_id,
  );
  active.push({ webhook_id: data.webhook_id, events: [...data.events] });
  return [
    { kind: 'upsert', collection: WEBHOOKS, id: data.webhook_id, position: event.position, data: view },
    tenantChange(event.position, data.tenant_id, active),
  ];
}

async function removed(event: RecordedEvent<WebhookRemoved>, state: ProjectionState): Promise<Change[]> {
  const data = event.data;
  const webhook = await state.get<WebhookView>(WEBHOOKS, data.webhook_id);
  if (!webhook || webhook.data.tenant_id !== data.tenant_id || webhook.data.removed_at !== null) return [];
  const active = (await activeWebhooks(state, data.tenant_id)).filter(
    (w) => w.webhook_id !== data.webhook_id,
  );
  // The active list first: the removed webhook document is what a half-applied replay checks.
  return [
    tenantChange(event.position, data.tenant_id, active),
    {
      kind: 'upsert',
      collection: WEBHOOKS,
      id: data.webhook_id,
      position: event.position,
      data: { ...webhook.data, removed_at: data.removed_at } satisfies WebhookView,
    },
  ];
}

async function redeliveryRequested(
  event: RecordedEvent<WebhookRedeliveryRequested>,
  state: ProjectionState,
): Promise<Change[]> {
  const data = event.data;
  const webhook = await state.get<WebhookView>(WEBHOOKS, data.webhook_id);
  if (!webhook || webhook.data.tenant_id !== data.tenant_id || webhook.data.removed_at !== null) return [];
  const named = await state.get<DeliveryView>(WEBHOOK_DELIVERIES, data.delivery_id);
  if (!named || named.data.tenant_id !== data.tenant_id || named.data.webhook_id !== data.webhook_id)
    return [];
  // A redelivery of a redelivery counts against the first delivery: ids stay `<original>:r<n>`.
  const original = named.data.redelivery_of ?? named.data.delivery_id;
  const count = (await state.get<{ count: number }>(WEBHOOK_REDELIVERIES, original))?.data.count ?? 0;
  const copy = named.data;
  const draft: Draft = {
    delivery_id: `${original}:r${count + 1}`,
    tenant_id: copy.tenant_id,
    webhook_id: copy.webhook_id,
    event_id: copy.event_id,
    event_type: copy.event_type,
    body: copy.body,
    ...(copy.body_of && { body_of: copy.body_of }),
    ...(copy.recipe && { recipe: copy.recipe }),
    ...(copy.render && { render: copy.render }),
  };
  return [
    {
      kind: 'increment',
      collection: WEBHOOK_REDELIVERIES,
      id: original,
      position: event.position,
      field: 'count',
      by: 1,
    },
    ...(await queue(event, state, [draft], original)),
  ];
}

// ---- Domain events ---------------------------------------------------------------------------------

async function gateFailed(
  event: RecordedEvent<GateFailed>,
  state: ProjectionState,
  links: WebhookLinks,
): Promise<Change[]> {
  const data = event.data;
  const changes: Change[] = [];
  const active = await activeWebhooks(state, data.tenant_id);
  const wanted = wantedOf(active, 'GateFailed');
  const outgoing: Array<Outgoing | null> = [];
  const source: BodySource = { type: 'GateFailed', data };
  if (wanted.has('gate_fail'))
    outgoing.push(rendered('gate_fail', event.id, source, { position: event.position }, links));
  if (wanted.has('observables_alert')) {
    const alert: ObservablesChange = {
      tenant_id: data.tenant_id,
      subject_id: data.subject_id,
      previous: await previousObservables(state, data),
      observables: data.observables,
      lifecycle: data.lifecycle,
      trigger: 'GateFailed',
      at: data.failed_at,
    };
    const recipe = { position: event.position, alert };
    outgoing.push(rendered('observables_alert', event.id, source, recipe, links));
  }
  if (!data.previous_observables)
    changes.push(subjectChange(event.position, data.tenant_id, data.subject_id, data.observables));
  const drafts = outgoing.flatMap((out) => (out ? draftsFor(out, active, data.tenant_id) : []));
  changes.push(...(await queue(event, state, drafts, null)));
  return changes;
}

/** An admission: count the chain, track observables, and remember the leaf if a webhook wants it. */
async function admitted(event: RecordedEvent, state: ProjectionState): Promise<Change[]> {
  const at = event.position;
  const type = event.type as 'EvidenceAdmitted' | 'ExecutionAdmitted' | 'VarianceRecorded';
  const base = event.data as CarriedState & { tenant_id: string; subject_id: string };
  const changes: Change[] = [];
  if (type === 'EvidenceAdmitted' && typeof base.chain_depth !== 'number') {
    changes.push({
      kind: 'increment',
      collection: WEBHOOK_CHAIN_DEPTHS,
      id: base.tenant_id,
      position: at,
      field: 'depth',
      by: 1,
    });
  }
  const active = await activeWebhooks(state, base.tenant_id);
  const wanted = wantedOf(active, type);
  const pending: PendingLeafView = {
    tenant_id: base.tenant_id,
    source_event_id: event.id,
    source: { type: 'ExecutionAdmitted', data: event.data as ExecutionAdmitted },
    events: [],
    webhook_ids: [],
    depth: null,
    alert: null,
  };
  let observables: Observables | null = null;
  switch (type) {
    case 'EvidenceAdmitted': {
      const data = event.data as EvidenceAdmitted;
      pending.source = { type, data: evidenceSource(data) };
      observables = data.observables;
      if (wanted.has('leaf_admitted')) pending.events.push('leaf_admitted');
      if (wanted.has('compliance_report_ready')) pending.events.push('compliance_report_ready');
      if (wanted.has('chain_depth_milestone')) {
        pending.depth = chainDepthMilestone(await chainDepth(state, data));
        if (pending.depth !== null) pending.events.push('chain_depth_milestone');
      }
      if (wanted.has('observables_alert')) {
        pending.alert = await observablesChange(state, data, 'EvidenceAdmitted', data.admitted_at);
        if (pending.alert) pending.events.push('observables_alert');
      }
      break;
    }
    case 'ExecutionAdmitted':
      if (wanted.has('execution_trace_admitted')) pending.events.push('execution_trace_admitted');
      break;
    case 'VarianceRecorded': {
      const data = event.data as VarianceRecorded;
      pending.source = { type, data: varianceSource(data) };
      observables = data.observables;
      if (wanted.has('variance_recorded')) pending.events.push('variance_recorded');
      if (wanted.has('governance_breach') && isGovernanceBreach(data.record))
        pending.events.push('governance_breach');
      if (wanted.has('observables_alert')) {
        pending.alert = await observablesChange(state, data, 'VarianceRecorded', data.record.recorded_at);
        if (pending.alert) pending.events.push('observables_alert');
      }
      break;
    }
  }
  if (observables && !base.previous_observables)
    changes.push(subjectChange(at, base.tenant_id, base.subject_id, observables));
  if (pending.events.length === 0) return changes;
  pending.webhook_ids = active
    .filter((webhook) => pending.events.some((name) => webhook.events.includes(name)))
    .map((webhook) => webhook.webhook_id);
  changes.push(
    { kind: 'upsert', collection: WEBHOOK_PENDING_LEAVES, id: String(at), position: at, data: pending },
    {
      kind: 'increment',
      collection: WEBHOOK_DISPATCH_META,
      id: PENDING_COUNT_ID,
      position: at,
      field: 'count',
      by: 1,
    },
  );
  return changes;
}

/** A signed tree head: the leaves it integrated fire their webhook events now. */
async function integrated(
  event: RecordedEvent<TreeHeadSigned>,
  state: ProjectionState,
  links: WebhookLinks,
): Promise<Change[]> {
  const data = event.data;
  const waiting =
    (await state.get<{ count: number }>(WEBHOOK_DISPATCH_META, PENDING_COUNT_ID))?.data.count ?? 0;
  if (waiting <= 0 || data.leaf_positions.length === 0) return [];
  const head: CoveringHead = {
    tree_size: data.tree_size,
    root_hash: data.root_hash,
    timestamp: data.timestamp,
  };
  const tenants = new Map<string, ActiveWebhook[]>();
  const changes: Change[] = [];
  const drafts: Draft[] = [];
  let found = 0;
  for (let i = 0; i < data.leaf_positions.length && found < waiting; i++) {
    const id = String(data.leaf_positions[i]);
    const pending = await state.get<PendingLeafView>(WEBHOOK_PENDING_LEAVES, id);
    if (!pending) continue;
    found++;
    changes.push({ kind: 'delete', collection: WEBHOOK_PENDING_LEAVES, id, position: event.position });
    const leaf = pending.data;
    let active = tenants.get(leaf.tenant_id);
    if (!active) {
      active = await activeWebhooks(state, leaf.tenant_id);
      tenants.set(leaf.tenant_id, active);
    }
    const recipients = active.filter((webhook) => leaf.webhook_ids.includes(webhook.webhook_id));
    if (recipients.length === 0) continue;
    const at = data.leaf_positions[i]!;
    for (const out of leafEvents(leaf, at, data.first_leaf_index + i, head, links, recipients)) {
      drafts.push(...draftsFor(out, recipients, leaf.tenant_id));
    }
  }
  if (found > 0) {
    changes.push({
      kind: 'increment',
      collection: WEBHOOK_DISPATCH_META,
      id: PENDING_COUNT_ID,
      position: event.position,
      field: 'count',
      by: -found,
    });
  }
  changes.push(...(await queue(event, state, drafts, null)));
  return changes;
}

/** The webhook events an integrated leaf fires, built only when some recipient wants them. */
function leafEvents(
  leaf: PendingLeafView,
  position: number,
  leafIndex: number,
  head: CoveringHead,
  links: WebhookLinks,
  recipients: readonly ActiveWebhook[],
): Outgoing[] {
  const out: Outgoing[] = [];
  const { source } = leaf;
  for (const name of leaf.events) {
    if (!recipients.some((webhook) => webhook.events.includes(name))) continue;
    if (name === 'compliance_report_ready') {
      if (source.type === 'EvidenceAdmitted')
        out.push(complianceReport(leaf.source_event_id, source.data, leafIndex, head, links));
      continue;
    }
    const recipe: BodyRecipe = {
      position,
      leaf_index: leafIndex,
      // only what this event's body needs
      ...(name === 'chain_depth_milestone' &&
        leaf.depth !== null && { depth: leaf.depth, counts: CHAIN_DEPTH_COUNTS }),
      ...(name === 'observables_alert' && leaf.alert !== null && { alert: leaf.alert }),
    };
    const event = rendered(name, leaf.source_event_id, source, recipe, links);
    if (event) out.push(event);
  }
  return out;
}

/** compliance_report_ready, queued unrendered: its report needs the log's inclusion proof. */
function complianceReport(
  sourceEventId: string,
  evidence: EvidenceSource,
  leafIndex: number,
  head: CoveringHead,
  links: WebhookLinks,
): Outgoing {
  const name = 'compliance_report_ready';
  const eventId = webhookEventId(sourceEventId, name);
  const notice = complianceReportReadyPayload(eventId, evidence, leafIndex, head, links);
  return {
    name,
    event_id: eventId,
    body: null,
    render: {
      kind: 'compliance_report',
      artifact_hash: evidence.artifact_hash,
      leaf_index: leafIndex,
      tree_size: head.tree_size,
      notice,
    },
  };
}

// ---- Helpers ---------------------------------------------------------------------------------------

async function activeWebhooks(state: ProjectionState, tenantId: string): Promise<ActiveWebhook[]> {
  return [...((await state.get<WebhookTenantView>(WEBHOOK_TENANTS, tenantId))?.data.active ?? [])];
}

function tenantChange(position: number, tenantId: string, active: ActiveWebhook[]): Change {
  const data: WebhookTenantView = { active };
  return { kind: 'upsert', collection: WEBHOOK_TENANTS, id: tenantId, position, data };
}

/** The webhook events of `source` that at least one of the tenant's active webhooks receives. */
function wantedOf(active: readonly ActiveWebhook[], source: keyof typeof WEBHOOK_EVENTS_BY_SOURCE) {
  const names = new Set<WebhookEventName>();
  for (const name of WEBHOOK_EVENTS_BY_SOURCE[source]) {
    if (active.some((webhook) => webhook.events.includes(name))) names.add(name);
  }
  return names;
}

/**
 * What an admission or gate failure carries of the state it was decided on: absent from events of
 * older releases (null where a store hands over only the declared data members).
 */
interface CarriedState {
  previous_observables?: Observables | null;
  chain_depth?: number | null;
}

/** The subject's observables before the event: carried by it, or as this projection tracked them. */
async function previousObservables(
  state: ProjectionState,
  data: CarriedState & { tenant_id: string; subject_id: string },
): Promise<Observables> {
  if (data.previous_observables) return data.previous_observables;
  const key = subjectKey(data.tenant_id, data.subject_id);
  const last = await state.get<SubjectObservablesView>(WEBHOOK_SUBJECTS, key);
  return last?.data.observables ?? { ...INITIAL_OBSERVABLES };
}

/** The tenant's authorization leaves with this admission: carried by it, or as this projection counted them. */
async function chainDepth(state: ProjectionState, data: EvidenceAdmitted): Promise<number> {
  if (typeof data.chain_depth === 'number') return data.chain_depth;
  return ((await state.get<ChainDepthView>(WEBHOOK_CHAIN_DEPTHS, data.tenant_id))?.data.depth ?? 0) + 1;
}

/** The subject's observables change an admission made, when it crossed the boundary of Ω. */
async function observablesChange(
  state: ProjectionState,
  data: Pick<
    EvidenceAdmitted,
    'tenant_id' | 'subject_id' | 'observables' | 'previous_observables' | 'lifecycle'
  >,
  trigger: 'EvidenceAdmitted' | 'VarianceRecorded',
  at: string,
): Promise<ObservablesChange | null> {
  const previous = await previousObservables(state, data);
  if (!omegaAlert(previous, data.observables)) return null;
  return {
    tenant_id: data.tenant_id,
    subject_id: data.subject_id,
    previous,
    observables: data.observables,
    lifecycle: data.lifecycle,
    trigger,
    at,
  };
}

function subjectChange(
  position: number,
  tenantId: string,
  subjectId: string,
  observables: Observables,
): Change {
  const data: SubjectObservablesView = {
    tenant_id: tenantId,
    subject_id: subjectId,
    observables: { H: observables.H, C: observables.C, E: observables.E },
  };
  return {
    kind: 'upsert',
    collection: WEBHOOK_SUBJECTS,
    id: subjectKey(tenantId, subjectId),
    position,
    data,
  };
}

/** A webhook event rendered now, with the recipe that renders it again; null when `source` does not cause it. */
function rendered(
  name: WebhookEventName,
  sourceEventId: string,
  source: BodySource,
  recipe: BodyRecipe,
  links: WebhookLinks,
): Outgoing | null {
  const eventId = webhookEventId(sourceEventId, name);
  const body = renderBody(name, eventId, source, recipe, links);
  return body === null ? null : { name, event_id: eventId, body, recipe };
}

/**
 * One delivery per active webhook of the tenant that receives the event, in registration order, each
 * with the body in memory (one string, shared) and the recipe that is stored instead.
 */
function draftsFor(out: Outgoing, webhooks: readonly ActiveWebhook[], tenantId: string): Draft[] {
  return webhooks
    .filter((webhook) => webhook.events.includes(out.name))
    .map((webhook) => ({
      tenant_id: tenantId,
      webhook_id: webhook.webhook_id,
      event_id: out.event_id,
      event_type: out.name,
      body: out.body,
      ...(out.recipe && { recipe: out.recipe }),
      ...(out.render && { render: out.render }),
    }));
}

/**
 * The id of the k-th delivery that the event at `position` queues: both numbers in base 36,
 * zero-padded, so that ids sort in queueing order. Ordered ids keep the read store's key indexes
 * (the queue's and the delivery log's) growing at their ends; ids in no order (a webhook id and a
 * hash) would put every insert on a random index page, and each group commit would write and
 * checkpoint about a page per delivery (with 100 webhooks, half of dispatch.db's page writes and ~5%
 * of the delivery thread's CPU). Deterministic: a replayed event
 * queues the same drafts in the same order, so the same ids, which the position guard skips. Unique
 * because each event's handler calls `queue` once, with all of the event's drafts.
 */
export function queuedDeliveryId(position: number, k: number): string {
  return `dlv_${position.toString(36).padStart(11, '0')}_${k.toString(36).padStart(5, '0')}`;
}

/**
 * The delivery documents for `drafts`, with seqs position × SEQ_STRIDE + k; an event that queues more
 * than SEQ_STRIDE deliveries (a large batch under one tree head) pushes the next events' seqs on, so
 * seq stays strictly increasing in queueing order whatever the fan-out.
 */
async function queue(
  event: RecordedEvent,
  state: ProjectionState,
  drafts: readonly Draft[],
  redeliveryOf: string | null,
): Promise<Change[]> {
  if (drafts.length === 0) return [];
  const last = (await state.get<{ last: number }>(WEBHOOK_DISPATCH_META, LAST_SEQ_ID))?.data.last ?? -1;
  const first = Math.max(event.position * SEQ_STRIDE, last + 1);
  const changes: Change[] = drafts.map((draft, k) => {
    const view: DeliveryView = {
      seq: first + k,
      ...draft,
      delivery_id: draft.delivery_id ?? queuedDeliveryId(event.position, k),
      queued_at: event.recorded_at,
      redelivery_of: redeliveryOf,
    };
    return {
      kind: 'upsert',
      collection: WEBHOOK_DELIVERIES,
      id: view.delivery_id,
      position: event.position,
      data: view,
    };
  });
  changes.push({
    kind: 'upsert',
    collection: WEBHOOK_DISPATCH_META,
    id: LAST_SEQ_ID,
    position: event.position,
    data: { last: first + drafts.length - 1 },
  });
  return changes;
}
