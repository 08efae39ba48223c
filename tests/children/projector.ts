/** Projector child: runs the test projection against shared SQLite files until SIGKILLed or done. */
import { SqliteEventStore } from '../../adapters/sqlite/event-store';
import { SqliteReadStore } from '../../adapters/sqlite/read-store';
import { ProjectorRunner } from '../../projectors/engine/runner';
import { createLogger } from '../../runtime/support/logger';
import { createMetrics } from '../../runtime/support/metrics';
import { streamStatsProjection } from '../support/stream-stats.projection';

const [eventsFile, readFile, batchSize] = process.argv.slice(2);
const eventStore = new SqliteEventStore({ file: eventsFile! });
const readStore = new SqliteReadStore(readFile!);
const runner = new ProjectorRunner({
  projection: streamStatsProjection,
  generation: 1,
  eventStore,
  readStore,
  metrics: createMetrics(undefined, { defaults: false }),
  logger: createLogger('silent'),
  batchSize: Number(batchSize ?? 50),
});

void (async () => {
  await runner.start();
  process.stdout.write('started\n');
  await runner.waitForPosition(await eventStore.headPosition());
  process.stdout.write('caught-up\n');
  await runner.stop();
  process.exit(0);
})();
