/**
 * A recorded event as a Kafka message: keyed by tenant (so a tenant's events share a partition and
 * keep their order), the event as JSON in the value, and its id, type and position in headers so a
 * consumer can skip a duplicate without parsing it.
 */
import type { IHeaders, KafkaMessage, Message } from 'kafkajs';
import type { RecordedEvent } from '../../ports/event-store';

const EVENT_ID_HEADER = 'gov-event-id';
const EVENT_TYPE_HEADER = 'gov-event-type';
const EVENT_POSITION_HEADER = 'gov-event-position';

export function encodeEvent(event: RecordedEvent): Message {
  return {
    key: event.tenant_id,
    value: JSON.stringify(event),
    headers: {
      [EVENT_ID_HEADER]: event.id,
      [EVENT_TYPE_HEADER]: event.type,
      [EVENT_POSITION_HEADER]: String(event.position),
    },
  };
}

/** A message that is not an event this service published; `reason` says what is wrong with it. */
export class MalformedMessageError extends Error {
  override readonly name = 'MalformedMessageError';
  constructor(readonly reason: string) {
    super(`malformed bus message: ${reason}`);
  }
}

/** The event id header, or null when it is missing (the message is then decoded to find out). */
export function messageEventId(message: Pick<KafkaMessage, 'headers'>): string | null {
  return header(message.headers, EVENT_ID_HEADER);
}

/** The event a message carries; throws `MalformedMessageError` unless it is one, whole and consistent. */
export function decodeEvent(message: Pick<KafkaMessage, 'key' | 'value' | 'headers'>): RecordedEvent {
  if (message.value === null) throw new MalformedMessageError('the message has no value (a tombstone?)');
  let parsed: unknown;
  try {
    parsed = JSON.parse(message.value.toString('utf8'));
  } catch (error) {
    throw new MalformedMessageError(`the value is not JSON (${(error as Error).message})`);
  }
  const event = recordedEvent(parsed);
  const key = message.key?.toString('utf8') ?? null;
  if (key !== event.tenant_id)
    throw new MalformedMessageError(`the key '${key}' is not the event's tenant '${event.tenant_id}'`);
  const id = messageEventId(message);
  if (id !== null && id !== event.id)
    throw new MalformedMessageError(
      `the ${EVENT_ID_HEADER} header '${id}' is not the event's id '${event.id}'`,
    );
  return event;
}

function recordedEvent(value: unknown): RecordedEvent {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new MalformedMessageError('the value is not a JSON object');
  const fields = value as Record<string, unknown>;
  // As lenient as the event store: only the identifying members must be non-empty.
  const text = (name: string, { empty = false } = {}): string => {
    const member = fields[name];
    if (typeof member !== 'string' || (member === '' && !empty))
      throw new MalformedMessageError(`'${name}' is not a ${empty ? '' : 'non-empty '}string`);
    return member;
  };
  const count = (name: string, min: number): number => {
    const member = fields[name];
    if (typeof member !== 'number' || !Number.isSafeInteger(member) || member < min)
      throw new MalformedMessageError(`'${name}' is not an integer of at least ${min}`);
    return member;
  };
  const causation = fields.causation_id;
  if (causation !== null && typeof causation !== 'string')
    throw new MalformedMessageError(`'causation_id' is neither null nor a string`);
  if (!('data' in fields)) throw new MalformedMessageError(`'data' is missing`);
  return {
    id: text('id'),
    type: text('type'),
    stream: text('stream'),
    revision: count('revision', 0),
    position: count('position', 0),
    recorded_at: text('recorded_at'),
    tenant_id: text('tenant_id', { empty: true }),
    correlation_id: text('correlation_id', { empty: true }),
    causation_id: causation,
    schema_version: count('schema_version', 1),
    data: fields.data,
  };
}

function header(headers: IHeaders | undefined, name: string): string | null {
  const value = headers?.[name];
  const single = Array.isArray(value) ? value[0] : value;
  if (single === undefined) return null;
  return typeof single === 'string' ? single : single.toString('utf8');
}
