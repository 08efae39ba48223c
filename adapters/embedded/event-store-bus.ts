import type { Bus, BusConsumer, BusSubscribeOptions } from '../../ports/bus';
import type { EventStore, EventSubscription, RecordedEvent } from '../../ports/event-store';
import type { ReadStore } from '../../ports/read-store';
import { sleep } from '../../runtime/support/sleep';

export interface EventStoreBusOptions {
  eventStore: EventStore;
  /** Where each consumer group's position is kept. */
  readStore: ReadStore;
  /** Wait before redelivering a batch whose handler failed. */
  redeliveryDelayMs?: number;
  maxBatchSize?: number;
}

/** The read-store checkpoint of a consumer group's position on this bus. */
export function busCheckpointName(group: string): string {
  return `bus:${group}`;
}

/**
 * The in-process bus of the embedded deployment. The event store is already durable and ordered, so
 * `publish` has nothing to do: each consumer group is a catch-up subscription whose position is stored
 * (as a checkpoint named `bus:<group>`) only after its handler resolved. A crash re-delivers at most
 * the batch in flight; nothing is lost.
 */
export class EventStoreBus implements Bus {
  private readonly consumers = new Set<BusConsumer>();

  constructor(private readonly options: EventStoreBusOptions) {}

  async publish(_events: readonly RecordedEvent[]): Promise<void> {
    // Committed events are already in the store the consumers read from.
  }

  async subscribe(
    group: string,
    handle: (events: RecordedEvent[]) => Promise<void>,
    options: BusSubscribeOptions = {},
  ): Promise<BusConsumer> {
    const { eventStore, readStore } = this.options;
    const checkpoint = busCheckpointName(group);
    let stopped = false;
    let subscription: EventSubscription | null = null;
    const wake = new AbortController();

    // The embedded server's dispatcher runs once: its consumer takes every event there is.
    options.onAssigned?.(true);
    const run = async () => {
      while (!stopped) {
        subscription = eventStore.subscribeToAll({
          after: await readStore.getCheckpoint(checkpoint),
          maxBatchSize: this.options.maxBatchSize ?? 500,
          ...(options.eventTypes ? { filter: { eventTypes: options.eventTypes } } : {}),
          ...(options.dataMembers ? { dataMembers: options.dataMembers } : {}),
        });
        try {
          for await (const batch of subscription) {
            await handle(batch);
            const offset = readStore.apply([], {
              projector: checkpoint,
              position: batch[batch.length - 1]!.position,
            });
            if (!readStore.atomicApply) {
              await offset;
              continue;
            }
            // A store that applies in call order (one transaction per apply, on one connection)
            // commits this offset before anything the next batch writes, and the handler waits for
            // its own writes' commit anyway: reading on at once saves a commit interval per batch.
            // Should this commit fail, the subscription starts again from the stored offset.
            const reading = subscription;
            offset.catch(() => reading.close());
          }
        } catch {
          await subscription.close();
          await sleep(this.options.redeliveryDelayMs ?? 1000, wake.signal);
        }
      }
    };
    const running = run();
    const consumer: BusConsumer = {
      stop: async () => {
        stopped = true;
        wake.abort();
        await subscription?.close();
        await running;
        this.consumers.delete(consumer);
      },
    };
    this.consumers.add(consumer);
    return consumer;
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((consumer) => consumer.stop()));
  }
}
