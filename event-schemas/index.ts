export type * from './generated/types';
export { EventSchemaError, ValidatingEventStore } from './validating-event-store';
export {
  type CommandName,
  type EventType,
  escapePointer,
  type FieldProblem,
  isKnownEventType,
  isWebhookEventName,
  validateCommand,
  validateEnvelope,
  validateEventData,
  validateRecord,
  validateResponse,
  validateWebhookPayload,
  type WebhookEventName,
} from './validation';
