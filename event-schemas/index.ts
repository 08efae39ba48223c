export type * from './generated/types';
export { EventSchemaError, ValidatingEventStore } from './validating-event-store';
export {
  type CommandName,
  type EventType,
  escapePointer,
  type FieldProblem,
  isKnownEventType,
  isWebhookEventName,
  type RecordName,
  type ResponseName,
  type Validation,
  validateCommand,
  validateEnvelope,
  validateEventData,
  validateRecord,
  validateResponse,
  validateWebhookPayload,
  type WebhookEventName,
} from './validation';
