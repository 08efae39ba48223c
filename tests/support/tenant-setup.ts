/**
 * A tenant ready for load against a server running in another process: registered, moved to a tier
 * without trial caps (as `gov tenant tier` does, on the embedded event store file), and subscribed to
 * `leaf_admitted` with a known secret.
 */
import path from 'node:path';
import { SqliteEventStore } from '../../adapters/sqlite/event-store';
import { changeTier } from '../../cli/tenant-tier';
import { ValidatingEventStore } from '../../event-schemas';
import type { GovClient, Registration } from './governance-client';
import { until } from './service-processes';

export const WEBHOOK_SECRET = 'fault-matrix-secret-0123456789abcdef';

/**
 * Registers through `commands`, changes the tier to L4 in `eventStoreFile`, waits until `reads` answers
 * with it, and registers a `leaf_admitted` webhook to `receiverUrl`.
 */
export async function loadReadyTenant(
  commands: GovClient,
  reads: GovClient,
  eventStoreFile: string,
  receiverUrl: string,
): Promise<Registration> {
  const tenant = await commands.register();
  const store = new ValidatingEventStore(new SqliteEventStore({ file: eventStoreFile }));
  try {
    const changed = await changeTier(store, {
      // The data folder holds the event store file and the keys folder.
      keysDir: path.join(path.dirname(eventStoreFile), 'keys'),
      tenantId: tenant.tenant_id,
      tier: 'L4',
      operator: 'fault-test',
    });
    if (!changed.ok) throw new Error(`changeTier failed: ${changed.message}`);
  } finally {
    await store.close();
  }
  await until(
    async () => (await reads.get<{ tier: string }>('/account', tenant.api_key)).body.tier === 'L4',
    'the tier change to reach the read models',
    20_000,
  );
  const hook = await commands.post(
    '/webhooks',
    { url: receiverUrl, events: ['leaf_admitted'], secret: WEBHOOK_SECRET },
    tenant.api_key,
  );
  if (hook.status !== 201) throw new Error(`POST /webhooks answered ${hook.status}: ${hook.text}`);
  return tenant;
}
