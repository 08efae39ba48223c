import { randomBytes } from 'node:crypto';
import type { RegisterTenantBody, TenantRegistered } from '../../../event-schemas';
import { type IssuedKey, issueApiKey } from './api-keys';
import { type TenantDecision, type TenantState, tenantEvent, tenantStream } from './tenant-state';

export interface RegistrationDecision {
  stream: string;
  event: { type: 'TenantRegistered'; data: TenantRegistered };
  /** Shown once to the caller and never stored. */
  apiKey: string;
}

/** A registration's new tenant, drawn before deciding (a decision draws no randomness): a new Trial tenant with one API key, of which only the hash is kept. */
export function decideRegisterTenant(
  body: RegisterTenantBody,
  now: Date,
  ids = {
    tenantId: `ten_${randomBytes(12).toString('hex')}`,
    nodeId: `node_${randomBytes(12).toString('hex')}`,
  },
  key: IssuedKey = issueApiKey(body.mode ?? 'live'),
): RegistrationDecision {
  const data: TenantRegistered = {
    tenant_id: ids.tenantId,
    node_id: ids.nodeId,
    email: body.email,
    mode: body.mode ?? 'live',
    tier: 'L1',
    key_id: key.keyId,
    key_hash: key.keyHash,
    registered_at: now.toISOString(),
    ...(body.organization ? { organization: body.organization } : {}),
  };
  return {
    stream: tenantStream(ids.tenantId),
    event: { type: 'TenantRegistered', data },
    apiKey: key.apiKey,
  };
}

export class TenantExistsError extends Error {
  override readonly name = 'TenantExistsError';
}

/**
 * Registration as a command of the tenant's stream, which it starts (the writer's `create`, expected
 * revision `no-stream`): a tenant is registered once.
 */
export function decideRegistration(
  state: TenantState,
  registration: RegistrationDecision,
  correlationId: string,
): TenantDecision<RegistrationDecision> {
  const { data } = registration.event;
  if (state.exists) throw new TenantExistsError(`tenant ${state.tenant_id} is already registered`);
  return {
    events: [tenantEvent(data, { correlationId }, 'TenantRegistered', data)],
    result: registration,
  };
}
