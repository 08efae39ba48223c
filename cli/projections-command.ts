import { parseArgs } from 'node:util';
import { projections } from '../projectors';
import { ProjectionCatalog } from '../projectors/engine/catalog';
import { type CliCommand, EXIT } from './command';
import { STORE_LOCATION_HELP, withOperatorStores } from './stores';

export const projectionsCommand: CliCommand = {
  name: 'projections',
  synopsis: 'gov projections [--json]',
  summary: 'list the projections, their serving generation and checkpoint',
  help: `Usage: gov projections [--json]

Lists every read-model projection: its code version, the generation serving reads and the event-store
position it has applied.

${STORE_LOCATION_HELP}

Exit codes: 0 done, 1 failed, 2 usage error.`,
  async run(args) {
    const { values } = parseArgs({ args, options: { json: { type: 'boolean' } } });
    const rows = await withOperatorStores(async ({ readStore }) => {
      const catalog = new ProjectionCatalog(readStore);
      const found = [];
      for (const projection of projections) {
        const entry = await catalog.entry(projection.name);
        const checkpoint = await readStore.getCheckpoint(`${projection.name}@g${entry?.generation ?? 1}`);
        found.push({ name: projection.name, code_version: projection.version, serving: entry, checkpoint });
      }
      return found;
    });
    if (values.json) console.log(JSON.stringify(rows, null, 2));
    else
      for (const r of rows)
        console.log(
          `${r.name}\tv${r.code_version}\tgeneration ${r.serving?.generation ?? '-'}\tcheckpoint ${r.checkpoint ?? '-'}`,
        );
    return EXIT.ok;
  },
};
