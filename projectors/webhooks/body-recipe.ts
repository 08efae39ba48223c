/**
 * A delivery's body is not stored with it. The body is a deterministic function of the domain event
 * that caused the webhook event and of a few numbers the projection knew then (the leaf's index, the
 * milestone reached, the observables change): its recipe. The projection renders the body once and
 * hands it to the first attempt in memory; a retry, a redelivery, or an intake after a restart
 * renders it again from the recipe and the event store, to the same bytes.
 *
 * Why: the bodies would be ~2.7 KB of the ~3.7 KB the delivery thread writes to dispatch.db per
 * admission with webhooks (an envelope each); not storing them saves about a tenth of its CPU.
 */
import type { EvidenceAdmitted, ExecutionAdmitted, GateFailed, VarianceRecorded } from '../../event-schemas';
import type { RecordedEvent } from '../../ports/event-store';
import {
  type CHAIN_DEPTH_COUNTS,
  type ChainDepthMilestone,
  type WebhookEventName,
  type WebhookLinks,
  webhookEventId,
} from './webhook-events';
import {
  chainDepthMilestonePayload,
  type EvidenceSource,
  evidenceSource,
  executionTraceAdmittedPayload,
  gateFailPayload,
  governanceBreachPayload,
  leafAdmittedPayload,
  type ObservablesChange,
  observablesAlertPayload,
  serializeWebhookBody,
  type VarianceSource,
  varianceRecordedPayload,
  varianceSource,
} from './webhook-payloads';

/** What renders a delivery's body again, besides its event name and id. */
export interface BodyRecipe {
  /** Position of the domain event that caused the webhook event (an admission, or a GateFailed). */
  position: number;
  /** The leaf's index in the log, for the events of an integrated leaf. */
  leaf_index?: number;
  /** The milestone reached, for chain_depth_milestone. */
  depth?: ChainDepthMilestone;
  /**
   * What `depth` counts, for chain_depth_milestone: its body says so since this was added. A
   * delivery queued before has none, and renders again the bytes first sent, without it.
   */
  counts?: typeof CHAIN_DEPTH_COUNTS;
  /** The observables change (it depends on earlier events), for observables_alert. */
  alert?: ObservablesChange;
}

/** The part of a domain event a body is made from. */
export type BodySource =
  | { type: 'EvidenceAdmitted'; data: EvidenceSource }
  | { type: 'ExecutionAdmitted'; data: ExecutionAdmitted }
  | { type: 'VarianceRecorded'; data: VarianceSource }
  | { type: 'GateFailed'; data: GateFailed };

/** The body source of a recorded domain event, or null for an event that causes no webhook event. */
function bodySourceOf(event: RecordedEvent): BodySource | null {
  switch (event.type) {
    case 'EvidenceAdmitted':
      return { type: event.type, data: evidenceSource(event.data as EvidenceAdmitted) };
    case 'VarianceRecorded':
      return { type: event.type, data: varianceSource(event.data as VarianceRecorded) };
    case 'ExecutionAdmitted':
      return { type: event.type, data: event.data as ExecutionAdmitted };
    case 'GateFailed':
      return { type: event.type, data: event.data as GateFailed };
    default:
      return null;
  }
}

/**
 * The exact body of webhook event `name` caused by `source`, or null when the source does not cause
 * it (a variance record that is no breach, a change that crossed no boundary, a missing number).
 * compliance_report_ready is rendered elsewhere: its report needs the log.
 */
export function renderBody(
  name: WebhookEventName,
  eventId: string,
  source: BodySource,
  recipe: BodyRecipe,
  links: WebhookLinks,
): string | null {
  const payload = payloadOf(name, eventId, source, recipe, links);
  // payloadOf matched the payload to `name`; the union cannot say so to the generic signature
  return payload ? serializeWebhookBody(name, payload as never, links).body : null;
}

function payloadOf(
  name: WebhookEventName,
  eventId: string,
  source: BodySource,
  { leaf_index: leafIndex, depth, counts, alert }: BodyRecipe,
  links: WebhookLinks,
) {
  if (name === 'observables_alert') return alert ? observablesAlertPayload(eventId, alert) : null;
  if (source.type === 'GateFailed')
    return name === 'gate_fail' ? gateFailPayload(eventId, source.data) : null;
  if (name === 'governance_breach')
    return source.type === 'VarianceRecorded' ? governanceBreachPayload(eventId, source.data) : null;
  if (leafIndex === undefined) return null;
  switch (source.type) {
    case 'EvidenceAdmitted':
      if (name === 'leaf_admitted') return leafAdmittedPayload(eventId, source.data, leafIndex, links);
      if (name === 'chain_depth_milestone' && depth !== undefined)
        return chainDepthMilestonePayload(eventId, source.data, depth, leafIndex, links, counts);
      return null;
    case 'ExecutionAdmitted':
      return name === 'execution_trace_admitted'
        ? executionTraceAdmittedPayload(eventId, source.data, leafIndex)
        : null;
    case 'VarianceRecorded':
      return name === 'variance_recorded' ? varianceRecordedPayload(eventId, source.data, leafIndex) : null;
  }
}

/** What of a stored delivery (the projection's `DeliveryView`) names its body. */
export interface RecipeDelivery {
  delivery_id: string;
  event_type: WebhookEventName;
  event_id: string;
  recipe?: BodyRecipe;
}

/**
 * The body of a stored delivery, rendered again from its recipe and `event`, the event found at the
 * recipe's position (null when there is none). The event must be the one whose id the webhook event
 * id derives from: anything else is an error, never a body for the wrong event.
 */
export function renderFromRecipe(
  delivery: RecipeDelivery,
  event: RecordedEvent | null,
  links: WebhookLinks,
): string {
  const { recipe } = delivery;
  if (!recipe) throw new Error(`delivery ${delivery.delivery_id} has no recipe to render its body from`);
  if (!event || event.position !== recipe.position)
    throw new Error(
      `the event at position ${recipe.position}, source of delivery ${delivery.delivery_id}, is not in the event store`,
    );
  if (webhookEventId(event.id, delivery.event_type) !== delivery.event_id)
    throw new Error(
      `the event at position ${recipe.position} (${event.id}) is not the source of delivery ${delivery.delivery_id}`,
    );
  const source = bodySourceOf(event);
  const body = source && renderBody(delivery.event_type, delivery.event_id, source, recipe, links);
  if (!body)
    throw new Error(
      `the ${event.type} at position ${recipe.position} does not cause the ${delivery.event_type} of delivery ${delivery.delivery_id}`,
    );
  return body;
}
