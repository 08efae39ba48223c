#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { SqliteReadStore } from '../adapters/sqlite/read-store';
import { ValidatingEventStore } from '../event-schemas';
import type { EventStore } from '../ports/event-store';
import { projections } from '../projectors';
import { ProjectionCatalog } from '../projectors/catalog';
import { rebuildProjection } from '../projectors/rebuild';
import { ConfigError, loadConfig } from '../runtime/config';
import { createLogger } from '../runtime/logger';
import { createMetrics } from '../runtime/metrics';
import { ProgressBar } from '../runtime/progress-bar';
import { changeTier } from './tenant-tier';

/** Exit codes scripts can rely on. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

const HELP = `gov: operator tool of the governance clearinghouse

Usage:
  gov rebuild [projection…] [--beside] [--json]   drop and replay projections (all when none named)
  gov projections [--json]                        list the projections and their serving generation
  gov tenant tier <tenant_id> <L1|L2|L2+|L4> [--daily-leaf-limit N] [--operator NAME] [--reason TEXT] [--json]
                                                  change a tenant's tier (upgrades are not in the API);
                                                  --daily-leaf-limit sets an L2 tenant's daily allowance
  gov --help                                      this text

Stores are found as the server finds them: GOV_DATA_DIR (default ./data), GOV_EVENT_STORE_FILE,
GOV_READ_STORE_FILE.

rebuild options:
  --beside   build the next generation beside the serving one and switch to it when caught up; a
             running server keeps answering meanwhile and follows the switch. Without it, the
             serving generation is dropped and replayed in place: stop the server first.
  --json     print the result as JSON instead of a progress bar and a summary

Exit codes: 0 done, 1 failed, 2 usage error.`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      beside: { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      'daily-leaf-limit': { type: 'string' },
      operator: { type: 'string' },
      reason: { type: 'string' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    console.log(HELP);
    return values.help ? EXIT.ok : EXIT.usage;
  }
  const config = loadConfig();
  const eventStore = new ValidatingEventStore(new SqliteEventStore({ file: config.eventStoreFile }));
  const readStore = new SqliteReadStore(config.readStoreFile);
  try {
    switch (command) {
      case 'rebuild':
        return await rebuild(rest, Boolean(values.beside), Boolean(values.json), eventStore, readStore);
      case 'projections':
        return await listProjections(Boolean(values.json), readStore);
      case 'tenant':
        return await tenant(rest, values, eventStore);
      default:
        console.error(`gov: unknown command '${command}'\n\n${HELP}`);
        return EXIT.usage;
    }
  } finally {
    await eventStore.close();
    await readStore.close();
  }
}

async function rebuild(
  names: string[],
  beside: boolean,
  json: boolean,
  eventStore: EventStore,
  readStore: SqliteReadStore,
): Promise<number> {
  const unknown = names.filter((n) => !projections.some((p) => p.name === n));
  if (unknown.length > 0) {
    console.error(
      `gov rebuild: unknown projection ${unknown.join(', ')}; known: ${projections.map((p) => p.name).join(', ')}`,
    );
    return EXIT.usage;
  }
  const chosen = names.length > 0 ? projections.filter((p) => names.includes(p.name)) : projections;
  const results = [];
  for (const projection of chosen) {
    const bar = json ? null : new ProgressBar(`rebuild ${projection.name}`);
    let last = null as Parameters<ProgressBar['update']>[0] | null;
    const result = await rebuildProjection({
      projection,
      eventStore,
      readStore,
      metrics: createMetrics(undefined, { defaults: false }),
      logger: createLogger('warn'),
      mode: beside ? 'beside' : 'in-place',
      onProgress: (p) => {
        last = p;
        bar?.update(p);
      },
    });
    if (bar && last) bar.finish(last);
    results.push(result);
    if (!json) {
      console.log(
        `${projection.name}: generation ${result.generation} serving; ${result.events} events in ${result.seconds.toFixed(2)} s (${Math.round(result.eventsPerSecond)} events/s)`,
      );
    }
  }
  if (json) console.log(JSON.stringify(results, null, 2));
  return EXIT.ok;
}

async function tenant(
  args: string[],
  options: { json?: boolean; 'daily-leaf-limit'?: string; operator?: string; reason?: string },
  eventStore: EventStore,
): Promise<number> {
  const [subcommand, tenantId, tier] = args;
  if (subcommand !== 'tier' || !tenantId || !tier || args.length !== 3) {
    console.error(`gov tenant: usage: gov tenant tier <tenant_id> <L1|L2|L2+|L4> [--daily-leaf-limit N]`);
    return EXIT.usage;
  }
  const result = await changeTier(eventStore, {
    tenantId,
    tier,
    dailyLeafLimit: options['daily-leaf-limit'],
    operator: options.operator,
    reason: options.reason,
  });
  if (options.json) console.log(JSON.stringify(result, null, 2));
  else if (result.ok)
    console.log(
      result.changed
        ? `${result.tenant_id}: tier ${result.previous_tier} -> ${result.tier}${result.daily_leaf_limit === null ? '' : `, ${result.daily_leaf_limit} leaves/day`}`
        : `${result.tenant_id}: already ${result.tier}; nothing changed`,
    );
  else console.error(`gov tenant tier: ${result.message}`);
  if (result.ok) return EXIT.ok;
  return result.usage ? EXIT.usage : EXIT.failure;
}

async function listProjections(json: boolean, readStore: SqliteReadStore): Promise<number> {
  const catalog = new ProjectionCatalog(readStore);
  const rows = [];
  for (const projection of projections) {
    const entry = await catalog.entry(projection.name);
    const checkpoint = await readStore.getCheckpoint(`${projection.name}@g${entry?.generation ?? 1}`);
    rows.push({ name: projection.name, code_version: projection.version, serving: entry, checkpoint });
  }
  if (json) console.log(JSON.stringify(rows, null, 2));
  else
    for (const r of rows)
      console.log(
        `${r.name}\tv${r.code_version}\tgeneration ${r.serving?.generation ?? '-'}\tcheckpoint ${r.checkpoint ?? '-'}`,
      );
  return EXIT.ok;
}

main(process.argv.slice(2))
  .then((code) => process.exit(code))
  .catch((error) => {
    if (error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`gov: ${(error as Error).message}`);
      process.exit(EXIT.usage);
    }
    console.error(`gov: ${(error as Error).stack ?? error}`);
    process.exit(EXIT.failure);
  });
