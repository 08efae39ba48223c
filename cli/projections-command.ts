import { parseArgs } from 'node:util';
import { projections } from '../projectors';
import { ProjectionCatalog } from '../projectors/engine/catalog';
import { checkpointName } from '../projectors/engine/projection';
import { type CliCommand, EXIT } from './command';
import { STORE_LOCATION_HELP, withReadStore } from './stores';

export const projectionsCommand: CliCommand = {
  name: 'projections',
  synopsis: 'gov projections [--json]',
  summary: 'list the projections, their serving generation and checkpoint',
  help: `Usage: gov projections [--json]

Lists every read-model projection of the configured read store (the embedded file or MongoDB): its
code version, the generation serving reads (with the code version that built it) and the event-store
position it has applied, and a next generation being built beside it (gov rebuild --beside, or a
server building a new projection version), with its position. Only reads.

${STORE_LOCATION_HELP}

Exit codes: 0 done, 1 failed (no read store at the configured place, MongoDB not answering…), 2
usage error.`,
  async run(args) {
    const { values } = parseArgs({ args, options: { json: { type: 'boolean' } } });
    const { store, rows } = await withReadStore(async (read) => {
      const catalog = new ProjectionCatalog(read.store);
      const found = [];
      for (const projection of projections) {
        const entry = await catalog.entry(projection.name);
        const generation = entry?.generation ?? 1;
        const checkpoint = await read.store.getCheckpoint(checkpointName(projection, generation));
        const next = await read.store.getCheckpoint(checkpointName(projection, generation + 1));
        found.push({
          name: projection.name,
          code_version: projection.version,
          serving: entry,
          checkpoint,
          building: next === null ? null : { generation: generation + 1, checkpoint: next },
        });
      }
      return { store: read.name, rows: found };
    });
    if (rows.every((r) => r.serving === null))
      console.error(
        `gov projections: note: the read store at ${store} holds no projection catalog: no server has built ` +
          'read models there. Is this the deployment environment (GOV_READ_STORE_URL and GOV_READ_STORE_DATABASE, or GOV_DATA_DIR)?',
      );
    if (values.json) console.log(JSON.stringify(rows, null, 2));
    else {
      console.log(`read store ${store}`);
      for (const r of rows)
        console.log(
          `${r.name}\tv${r.code_version}\tgeneration ${r.serving?.generation ?? '-'}\tcheckpoint ${r.checkpoint ?? '-'}` +
            (r.building
              ? `\tbuilding generation ${r.building.generation}, checkpoint ${r.building.checkpoint}`
              : ''),
        );
    }
    return EXIT.ok;
  },
};
