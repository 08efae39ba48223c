import { parseArgs } from 'node:util';
import { projections } from '../projectors';
import { type RebuildResult, rebuildProjection } from '../projectors/engine/rebuild';
import { createLogger } from '../runtime/support/logger';
import { createMetrics } from '../runtime/support/metrics';
import { type Progress, ProgressBar } from '../runtime/support/progress-bar';
import { type CliCommand, EXIT, UsageError } from './command';
import { STORE_LOCATION_HELP, withOperatorStores } from './stores';

export const rebuildCommand: CliCommand = {
  name: 'rebuild',
  synopsis: 'gov rebuild [projection…] [--beside] [--json]',
  summary: 'drop and replay projections (all when none named)',
  help: `Usage: gov rebuild [projection…] [--beside] [--json]

Drops and replays read-model projections from the event stream, with a progress bar (events, rate,
ETA). Known projections: ${projections.map((p) => p.name).join(', ')}; all of them when none is named.

Options:
  --beside   build the next generation beside the serving one and switch to it when caught up; a
             running server keeps answering meanwhile and follows the switch. Without it, the
             serving generation is dropped and replayed in place: stop the server first.
  --json     print the result as JSON instead of a progress bar and a summary

${STORE_LOCATION_HELP}

Exit codes: 0 done, 1 failed, 2 usage error.`,
  async run(args) {
    const { values, positionals: names } = parseArgs({
      args,
      allowPositionals: true,
      options: { beside: { type: 'boolean' }, json: { type: 'boolean' } },
    });
    const unknown = names.filter((n) => !projections.some((p) => p.name === n));
    if (unknown.length > 0)
      throw new UsageError(
        `unknown projection ${unknown.join(', ')}; known: ${projections.map((p) => p.name).join(', ')}`,
      );
    const chosen = names.length > 0 ? projections.filter((p) => names.includes(p.name)) : projections;
    const json = Boolean(values.json);
    const results: RebuildResult[] = await withOperatorStores(async ({ eventStore, readStore }) => {
      const done: RebuildResult[] = [];
      for (const projection of chosen) {
        const bar = json ? null : new ProgressBar(`rebuild ${projection.name}`);
        let last: Progress | null = null;
        const result = await rebuildProjection({
          projection,
          eventStore,
          readStore,
          metrics: createMetrics(undefined, { defaults: false }),
          logger: createLogger('warn'),
          mode: values.beside ? 'beside' : 'in-place',
          onProgress: (p) => {
            last = p;
            bar?.update(p);
          },
        });
        if (bar && last) bar.finish(last);
        done.push(result);
        if (!json)
          console.log(
            `${projection.name}: generation ${result.generation} serving; ${result.events} events in ${result.seconds.toFixed(2)} s (${Math.round(result.eventsPerSecond)} events/s)`,
          );
      }
      return done;
    });
    if (json) console.log(JSON.stringify(results, null, 2));
    return EXIT.ok;
  },
};
