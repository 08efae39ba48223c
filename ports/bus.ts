import type { RecordedEvent, SubscribeOptions } from './event-store';

export interface BusConsumer {
  /** Stop consuming; resolves once the in-flight handler has finished. */
  stop(): Promise<void>;
}

export interface BusSubscribeOptions {
  /**
   * As `SubscribeOptions.dataMembers` of the event store: for the types named only these members of
   * `data` are needed. A bus that can select them (the embedded one) hands out just these; one that
   * cannot (Kafka carries whole events) hands out the whole `data`, which holds them too.
   */
  dataMembers?: SubscribeOptions['dataMembers'];
  /**
   * The only event types the consumer handles. A bus that can select them (the embedded one) hands
   * out just these; one that cannot (Kafka carries every event) hands out all, and the consumer skips
   * the others.
   */
  eventTypes?: readonly string[];
  /**
   * Told each time the bus gives this consumer its share of the group's events, before the first
   * batch of that share: `whole` when the share is every event (no other consumer of the group takes
   * any). Whatever the consumer kept from an earlier share may be stale by then: another consumer may
   * have handled those events meanwhile.
   */
  onAssigned?(whole: boolean): void;
}

/**
 * The bus carries committed events out to the dispatcher (in-process in the embedded mode, Kafka in
 * production). Delivery is at least once, in order per tenant; consumers deduplicate by event id.
 */
export interface Bus {
  /** Resolves once the bus has durably accepted every event (broker acknowledgement). */
  publish(events: readonly RecordedEvent[]): Promise<void>;
  /**
   * Consume as member of `group`. `handle` resolving acknowledges the batch (commits the offset);
   * rejecting makes the bus redeliver it.
   */
  subscribe(
    group: string,
    handle: (events: RecordedEvent[]) => Promise<void>,
    options?: BusSubscribeOptions,
  ): Promise<BusConsumer>;
  close(): Promise<void>;
}
