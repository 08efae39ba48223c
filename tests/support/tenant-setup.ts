/**
 * A tenant ready for load against a server running in another process: registered, its limits lifted
 * with its leaves in the shared log (unlimited-tenant.ts), and subscribed to `leaf_admitted` with a
 * known secret.
 */
import type { GovClient, Registration } from './governance-client';
import { makeUnlimitedInSharedLogFile, untilUnlimitedInSharedLog } from './unlimited-tenant';

export const WEBHOOK_SECRET = 'fault-matrix-secret-0123456789abcdef';

/**
 * Registers through `commands`, lifts its limits in `eventStoreFile` (its leaves staying in the shared
 * log the fault checks read), waits until `reads` answers with them, and registers a `leaf_admitted`
 * webhook to `receiverUrl`.
 */
export async function loadReadyTenant(
  commands: GovClient,
  reads: GovClient,
  eventStoreFile: string,
  receiverUrl: string,
): Promise<Registration> {
  const tenant = await commands.register();
  await makeUnlimitedInSharedLogFile(eventStoreFile, tenant.tenant_id, 'fault-test');
  await untilUnlimitedInSharedLog(reads, tenant.api_key);
  const hook = await commands.post(
    '/webhooks',
    { url: receiverUrl, events: ['leaf_admitted'], secret: WEBHOOK_SECRET },
    tenant.api_key,
  );
  if (hook.status !== 201) throw new Error(`POST /webhooks answered ${hook.status}: ${hook.text}`);
  return tenant;
}
