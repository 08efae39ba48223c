import { parseArgs } from 'node:util';
import pino from 'pino';
import { projections } from '../projectors';
import {
  GenerationBusyError,
  RebuildLeaseLostError,
  type RebuildResult,
  rebuildProjection,
} from '../projectors/engine/rebuild';
import { createLogger } from '../runtime/support/logger';
import { createMetrics } from '../runtime/support/metrics';
import { type Progress, ProgressBar } from '../runtime/support/progress-bar';
import { type CliCommand, EXIT, UsageError } from './command';
import { describeRebuiltLog, holdsLogs, type RebuiltLog, rebuiltLogs, storedLogs } from './rebuilt-logs';
import { STORE_LOCATION_HELP, withProjectionStores } from './stores';

export const rebuildCommand: CliCommand = {
  name: 'rebuild',
  synopsis: 'gov rebuild [projection…] [--beside] [--json]',
  summary: 'drop and replay projections (all when none named)',
  help: `Usage: gov rebuild [projection…] [--beside] [--json]

Drops and replays read-model projections from the event stream, with a progress bar (events, rate,
ETA). Known projections: ${projections.map((p) => p.name).join(', ')}; all of them when none is named.

It works on the configured stores, the embedded files or EventStoreDB and MongoDB alike, and writes
a generation only while holding its single-writer lease, the one the projectors processes of the
production topology take: an in-place rebuild is refused while they run (the lease is held), and a
projectors process started meanwhile stands by until the rebuild is over. The embedded server takes
no lease: stop it before an in-place rebuild.

Options:
  --beside   build the next generation beside the serving one and switch to it when caught up; a
             running server keeps answering meanwhile and follows the switch. Without it, the
             serving generation is dropped and replayed in place: stop the server (every
             projectors process) first.
  --json     print the result as JSON instead of a progress bar and a summary

Every log (the shared log, the test log, each dedicated log) has its read models in the same two
projections: governance (its leaves, its size, its anchors in the shared log) and tree-heads (its
signed tree heads and their witness cosignatures). Rebuilding them rebuilds every log in one replay,
and the summary gives each log's figures (with --json, under "logs"). There is no rebuild of one log
alone; gov audit --log NAME checks one.

${STORE_LOCATION_HELP}
An embedded read store is created if missing (read models of a data folder just imported).

Exit codes: 0 done, 1 failed (a generation's lease held by another process, a store that cannot be
reached…; projections rebuilt before it are kept), 2 usage error.`,
  async run(args) {
    const { values, positionals: names } = parseArgs({
      args,
      allowPositionals: true,
      options: { beside: { type: 'boolean' }, json: { type: 'boolean' }, log: { type: 'string' } },
    });
    if (values.log !== undefined)
      throw new UsageError(
        `gov rebuild has no --log: every log's read models are in the governance and tree-heads projections, which a rebuild replays for all logs at once (gov rebuild governance tree-heads); gov audit --log ${values.log} checks one log`,
      );
    const unknown = names.filter((n) => !projections.some((p) => p.name === n));
    if (unknown.length > 0)
      throw new UsageError(
        `unknown projection ${unknown.join(', ')}; known: ${projections.map((p) => p.name).join(', ')}`,
      );
    const chosen = names.length > 0 ? projections.filter((p) => names.includes(p.name)) : projections;
    const json = Boolean(values.json);
    const done: (RebuildResult & { logs?: RebuiltLog[] })[] = [];
    try {
      await withProjectionStores(async ({ config, eventStore, read }) => {
        for (const projection of chosen) {
          const bar = json ? null : new ProgressBar(`rebuild ${projection.name}`);
          let last: Progress | null = null;
          const result = await rebuildProjection({
            projection,
            eventStore,
            readStore: read.store,
            metrics: createMetrics(undefined, { defaults: false }),
            // On stderr: standard output is the result's.
            logger: createLogger('warn', pino.destination(2)),
            mode: values.beside ? 'beside' : 'in-place',
            singleWriter: { leases: read.leases, ttlMs: config.leaseTtlMs },
            onProgress: (p) => {
              last = p;
              bar?.update(p);
            },
          }).finally(() => {
            if (bar && last) bar.finish(last);
          });
          const logs = holdsLogs(projection)
            ? await rebuiltLogs(projection, read.store, await storedLogs(eventStore))
            : undefined;
          done.push(logs ? { ...result, logs } : result);
          if (!json) {
            console.log(
              `${projection.name}: generation ${result.generation} serving; ${result.events} events in ${result.seconds.toFixed(2)} s (${Math.round(result.eventsPerSecond)} events/s)`,
            );
            for (const log of logs ?? []) console.log(`  ${describeRebuiltLog(log)}`);
          }
        }
      });
    } catch (error) {
      if (!(error instanceof GenerationBusyError || error instanceof RebuildLeaseLostError)) throw error;
      console.error(`gov rebuild: ${error.message}`);
      if (json) console.log(JSON.stringify(done, null, 2));
      return EXIT.failure;
    }
    if (json) console.log(JSON.stringify(done, null, 2));
    return EXIT.ok;
  },
};
