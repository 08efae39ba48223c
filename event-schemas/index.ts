export type * from './generated/types';
export { EventSchemaError, ValidatingEventStore } from './validating-event-store';
export {
  type CommandName,
  type EventType,
  type FieldProblem,
  isKnownEventType,
  type Validation,
  validateCommand,
  validateEnvelope,
  validateEventData,
} from './validation';
