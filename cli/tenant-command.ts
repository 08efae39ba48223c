import { parseArgs } from 'node:util';
import { loadConfig } from '../runtime/config/config';
import { keysDirOf } from '../runtime/keys/key-files';
import { type CliCommand, reportChange, UsageError } from './command';
import { STORE_LOCATION_HELP, withEventStore } from './stores';
import { changeTier } from './tenant-tier';

const USAGE =
  'gov tenant tier <tenant_id> <L1|L2|L2+|L4> [--daily-leaf-limit N] [--requests-per-minute N] [--operator NAME] [--reason TEXT] [--json]';

export const tenantCommand: CliCommand = {
  name: 'tenant',
  synopsis: USAGE,
  summary: "change a tenant's tier (upgrades are not in the API)",
  help: `Usage: ${USAGE}

Appends TenantTierChanged to the tenant's stream in the configured event store (the embedded file
or EventStoreDB); a running server applies it as soon as its projectors have read it. The read
store is not opened.

To L4, a live tenant gets its dedicated log (dedicated-<hex of its id>): its key is made in
<data>/keys/logs/ if absent and the log is created, then its admissions go there; those admitted
before stay in the shared log. Leaving L4, it admits to the shared log again; its dedicated log
stays, frozen, still served. A test-mode tenant's leaves stay in the test log whatever its tier.

Options:
  --daily-leaf-limit N   an L2 tenant's daily allowance of leaves
  --requests-per-minute N
                         the tenant's own allowance of API requests per minute (default: its
                         tier's), e.g. an L2+ tenant sending as much as an L4 one while its leaves
                         stay in the shared log
  --operator NAME        who made the change (default: the OS user)
  --reason TEXT          why, kept in the event
  --json                 print the result as JSON

${STORE_LOCATION_HELP}

Exit codes: 0 done (or nothing to change), 1 failed (unknown tenant, no event store at the configured
place, EventStoreDB not answering within 5 s…: nothing changed), 2 usage error.`,
  async run(args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        'daily-leaf-limit': { type: 'string' },
        'requests-per-minute': { type: 'string' },
        operator: { type: 'string' },
        reason: { type: 'string' },
      },
    });
    const [subcommand, tenantId, tier] = positionals;
    if (subcommand !== 'tier' || !tenantId || !tier || positionals.length !== 3)
      throw new UsageError(`usage: ${USAGE}`);
    const result = await withEventStore((eventStore) =>
      changeTier(eventStore, {
        keysDir: keysDirOf(loadConfig().dataDir),
        tenantId,
        tier,
        dailyLeafLimit: values['daily-leaf-limit'],
        requestsPerMinute: values['requests-per-minute'],
        operator: values.operator,
        reason: values.reason,
      }),
    );
    return reportChange(result, {
      json: values.json,
      command: 'gov tenant tier',
      line: (done) =>
        done.changed
          ? `${done.tenant_id}: tier ${done.previous_tier} -> ${done.tier}${done.daily_leaf_limit === null ? '' : `, ${done.daily_leaf_limit} leaves/day`}${done.requests_per_minute === null ? '' : `, ${done.requests_per_minute} requests/min`}; admits to log ${done.log}${done.log_created ? ' (created now)' : ''}`
          : `${done.tenant_id}: already ${done.tier}; nothing changed`,
    });
  },
};
