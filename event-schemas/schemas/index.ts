/** Every schema the service knows, by the name code refers to it with. Adding a schema starts here. */

import registerTenant from './commands/register-tenant.json';
import submitEvidence from './commands/submit-evidence.json';
import tenantRegistered from './events/TenantRegistered.json';
import recordedEvent from './recorded-event.json';

/** Request bodies, by command name. */
export const commandSchemas = {
  'register-tenant': registerTenant,
  'submit-evidence': submitEvidence,
} as const;

/** Domain event payloads (`data`), by event type. */
export const eventSchemas = {
  TenantRegistered: tenantRegistered,
} as const;

export const envelopeSchema = recordedEvent;
