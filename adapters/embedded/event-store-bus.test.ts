import path from 'node:path';
import { busContract } from '../../ports/contract/bus.contract';
import { collect } from '../../ports/contract/event-store.contract';
import { until } from '../../tests/support/service-processes';
import { tempDir } from '../../tests/support/temp-dir';
import { SqliteEventStore } from '../sqlite/event-store';
import { SqliteReadStore } from '../sqlite/read-store';
import { EventStoreBus } from './event-store-bus';

busContract('embedded (event-store backed)', async () => {
  const { dir, remove } = tempDir('gov-bus');
  const eventStore = new SqliteEventStore({ file: path.join(dir, 'events.db') });
  const readStore = new SqliteReadStore(path.join(dir, 'read.db'));
  const open: EventStoreBus[] = [];
  const newBus = () => {
    const bus = new EventStoreBus({ eventStore, readStore, redeliveryDelayMs: 20 });
    open.push(bus);
    return bus;
  };
  let sequence = 0;
  return {
    bus: newBus(),
    async emit(tenant, count) {
      const { position } = await eventStore.append(
        `bus-${tenant}`,
        Array.from({ length: count }, () => ({
          type: 'TestEvent',
          data: { n: sequence++ },
          tenant_id: tenant,
          correlation_id: 'c',
        })),
      );
      const events = await collect(eventStore.readAll({ after: position - count }));
      return events;
    },
    reopen: async () => newBus(),
    async dispose() {
      await Promise.all(open.map((bus) => bus.close()));
      await eventStore.close();
      await readStore.close();
      remove();
    },
  };
});

describe('EventStoreBus with eventTypes', () => {
  it('given events of several types, when a consumer names some, then it reads only those, in order, and resumes after them', async () => {
    const { dir, remove } = tempDir('gov-bus-types');
    const eventStore = new SqliteEventStore({ file: path.join(dir, 'events.db') });
    const readStore = new SqliteReadStore(path.join(dir, 'read.db'));
    const append = (type: string, n: number) =>
      eventStore.append(`bus-${type}`, [{ type, data: { n }, tenant_id: 't1', correlation_id: 'c' }]);
    try {
      for (let n = 0; n < 6; n++) await append(n % 3 === 0 ? 'Wanted' : 'Other', n);
      const received: Array<{ type: string; n: number }> = [];
      const subscribe = (bus: EventStoreBus) =>
        bus.subscribe(
          'g-types',
          async (batch) => {
            received.push(
              ...batch.map((event) => ({ type: event.type, n: (event.data as { n: number }).n })),
            );
          },
          { eventTypes: ['Wanted'] },
        );
      const bus = new EventStoreBus({ eventStore, readStore });
      const consumer = await subscribe(bus);
      await until(() => received.length >= 2, 'the two Wanted events', 5000);
      await consumer.stop();
      expect(received).toEqual([
        { type: 'Wanted', n: 0 },
        { type: 'Wanted', n: 3 },
      ]);

      await append('Other', 6);
      await append('Wanted', 7);
      const again = await subscribe(new EventStoreBus({ eventStore, readStore }));
      await until(() => received.length >= 3, 'the third Wanted event', 5000);
      await again.stop();
      expect(received.slice(2)).toEqual([{ type: 'Wanted', n: 7 }]);
    } finally {
      await eventStore.close();
      await readStore.close();
      remove();
    }
  });
});

describe('EventStoreBus on a read store that groups its commits', () => {
  it('given a consumer whose offset waits for a grouped commit, when more events arrive, then the next batch is handed over before that commit, and the offset is stored at close', async () => {
    const { dir, remove } = tempDir('gov-bus-grouped');
    const eventStore = new SqliteEventStore({ file: path.join(dir, 'events.db') });
    // Commits at most every 60 s: an offset write waits that long for its commit.
    const readStore = new SqliteReadStore(path.join(dir, 'read.db'), { commitIntervalMs: 60_000 });
    const bus = new EventStoreBus({ eventStore, readStore });
    const append = (n: number) =>
      eventStore.append('bus-grouped', [
        { type: 'TestEvent', data: { n }, tenant_id: 't1', correlation_id: 'c' },
      ]);
    const received: number[] = [];
    try {
      const consumer = await bus.subscribe('g-grouped', async (batch) => {
        for (const event of batch) received.push((event.data as { n: number }).n);
      });
      await append(0);
      await until(() => received.length === 1, 'the first batch', 5_000);
      await append(1);
      await until(() => received.length === 2, 'the second batch before the commit', 5_000);
      expect(received).toEqual([0, 1]);
      await consumer.stop();
    } finally {
      await bus.close();
      await eventStore.close();
      await readStore.close();
    }
    const reopened = new SqliteReadStore(path.join(dir, 'read.db'));
    expect(await reopened.getCheckpoint('bus:g-grouped')).toBe(2);
    await reopened.close();
    remove();
  });
});
