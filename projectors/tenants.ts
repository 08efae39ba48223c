import type { TenantRegistered } from '../event-schemas';
import type { RecordedEvent } from '../ports/event-store';
import type { Change } from '../ports/read-store';
import type { Projection } from './projection';

/** The account read model of GET /account. */
export interface TenantView {
  tenant_id: string;
  node_id: string;
  email: string;
  organization: string | null;
  mode: 'live' | 'test';
  tier: string;
  registered_at: string;
  leaf_count: number;
  subscription_id: string | null;
}

/** What authentication looks up by key id: the hash to compare with, and when the key stops working. */
export interface ApiKeyView {
  tenant_id: string;
  key_hash: string;
  mode: 'live' | 'test';
  expires_at: string | null;
}

export const TENANTS = 'tenants';
export const API_KEYS = 'api_keys';

export const tenantsProjection: Projection = {
  name: 'tenants',
  version: 1,
  collections: [TENANTS, API_KEYS],
  indexes: [{ collection: TENANTS, fields: ['email'] }],
  eventTypes: ['TenantRegistered'],
  project(event: RecordedEvent): Change[] {
    const data = event.data as TenantRegistered;
    const tenant: TenantView = {
      tenant_id: data.tenant_id,
      node_id: data.node_id,
      email: data.email,
      organization: data.organization ?? null,
      mode: data.mode,
      tier: data.tier,
      registered_at: data.registered_at,
      leaf_count: 0,
      subscription_id: null,
    };
    const key: ApiKeyView = {
      tenant_id: data.tenant_id,
      key_hash: data.key_hash,
      mode: data.mode,
      expires_at: null,
    };
    return [
      { kind: 'upsert', collection: TENANTS, id: data.tenant_id, position: event.position, data: tenant },
      { kind: 'upsert', collection: API_KEYS, id: data.key_id, position: event.position, data: key },
    ];
  },
};
