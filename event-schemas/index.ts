export type * from './generated/types';
export { EventSchemaError, ValidatingEventStore } from './validating-event-store';
export {
  type CommandName,
  type EventType,
  type FieldProblem,
  isKnownEventType,
  type RecordName,
  type ResponseName,
  type Validation,
  validateCommand,
  validateEnvelope,
  validateEventData,
  validateRecord,
  validateResponse,
} from './validation';
