import path from 'node:path';
import { busContract } from '../../ports/contract/bus.contract';
import { collect } from '../../ports/contract/event-store.contract';
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
