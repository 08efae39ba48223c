import type {
  AppendOptions,
  AppendResult,
  EventFilter,
  EventStore,
  EventSubscription,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeOptions,
} from '../ports/event-store';
import { type FieldProblem, isKnownEventType, validateEventData } from './validation';

/** An event whose payload does not match its type's schema; nothing of its append is stored. */
export class EventSchemaError extends Error {
  override readonly name = 'EventSchemaError';
  constructor(
    readonly eventType: string,
    readonly problems: FieldProblem[],
  ) {
    super(
      `event '${eventType}' does not match its schema: ${problems.map((p) => `${p.pointer || '/'} ${p.reason}`).join('; ')}`,
    );
  }
}

/**
 * Wraps any event store so that every append is validated against `event-schemas/` first: bad data
 * never reaches the log, whichever adapter runs and whichever code path appends.
 */
export class ValidatingEventStore implements EventStore {
  constructor(private readonly inner: EventStore) {}

  append(stream: string, events: readonly NewEvent[], options?: AppendOptions): Promise<AppendResult> {
    for (const event of events) {
      if (!isKnownEventType(event.type)) {
        return Promise.reject(
          new EventSchemaError(event.type, [{ pointer: '', reason: 'is not a known event type' }]),
        );
      }
      const result = validateEventData(event.type, event.data);
      if (!result.ok) return Promise.reject(new EventSchemaError(event.type, result.problems));
    }
    return this.inner.append(stream, events, options);
  }

  readStream(stream: string, options?: ReadStreamOptions): AsyncIterable<RecordedEvent> {
    return this.inner.readStream(stream, options);
  }

  readAll(options?: ReadAllOptions): AsyncIterable<RecordedEvent> {
    return this.inner.readAll(options);
  }

  subscribeToAll(options: SubscribeOptions): EventSubscription {
    return this.inner.subscribeToAll(options);
  }

  headPosition(filter?: EventFilter): Promise<number> {
    return this.inner.headPosition(filter);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
