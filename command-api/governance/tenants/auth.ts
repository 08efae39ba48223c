import type { NextFunction, Request, Response } from 'express';
import { TIER_LIMITS } from '../../../domain/governance/tier-limits';
import type { StoredDocument } from '../../../ports/read-store';
import {
  API_KEYS,
  type ApiKeyView,
  TENANTS,
  type TenantView,
  tenantsProjection,
} from '../../../projectors/governance/tenants';
import type { Freshness } from '../../../read-api/engine/read-models';
import { sendError } from '../../../runtime/http/errors';
import type { KeyRecord, RecentKeys } from '../../../runtime/http/recent-keys';
import type { GovernanceServices } from '../services';
import { apiKeyMatches, parseApiKey } from './api-keys';
import { RETIRED_KEY_MESSAGE } from './current-key';

export interface Caller extends KeyHolder {
  tenant: TenantView;
  /** When the key stops working: null for the tenant's current key, set for one rotated out (grace). */
  keyExpiresAt: string | null;
}

/** Who holds a key, as far as a request that uses only the key, its tenant's id and tier needs. */
export interface KeyHolder {
  tenant: Pick<TenantView, 'tenant_id' | 'tier'>;
  keyId: string;
}

/** 403 TIER_INSUFFICIENT below L2 (report export and every closed-loop endpoint). */
export function requireClosedLoopTier(_req: Request, res: Response, next: NextFunction): void {
  const { tenant } = callerOf(res);
  if (TIER_LIMITS[tenant.tier].closedLoop) {
    next();
    return;
  }
  sendError(res, 403, 'TIER_INSUFFICIENT', `this needs tier L2 or above; the tenant is on ${tenant.tier}`);
}

/**
 * After `authenticate`, on every route that manages the account (key rotation, webhooks, the tenant
 * policy): 403 FORBIDDEN for a key in its grace period after a rotation, which may still read and
 * submit but not manage. The deciders check the same against the tenant's stream
 * (command-api/governance/tenants/current-key.ts), which also covers a rotation made since this read.
 */
export function requireCurrentKey(_req: Request, res: Response, next: NextFunction): void {
  if (callerOf(res).keyExpiresAt === null) {
    next();
    return;
  }
  sendError(res, 403, 'FORBIDDEN', RETIRED_KEY_MESSAGE);
}

/** The challenge of every 401. */
export const WWW_AUTHENTICATE = 'Bearer realm="gov"';

/**
 * Bearer authentication: the key id finds the stored hash, which is compared in constant time.
 * Missing, malformed, unknown and expired keys all answer the same 401, so a caller learns nothing
 * about which keys exist.
 */
export function authenticate(services: GovernanceServices) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const caller = await findCaller(services, req.get('authorization'));
    if (!caller) {
      res.setHeader('WWW-Authenticate', WWW_AUTHENTICATE);
      sendError(res, 401, 'UNAUTHORIZED', 'send a valid API key as "Authorization: Bearer gov_live_…"');
      return;
    }
    res.locals.caller = caller;
    next();
  };
}

/**
 * The caller an `Authorization` header names, or null for a missing, malformed, unknown or expired key.
 * Reads what this process acknowledged (read-your-write): the tenant's counters are current.
 */
export async function findCaller(
  services: GovernanceServices,
  header: string | undefined,
): Promise<Caller | null> {
  const presented = presentedKey(header);
  if (!presented) return null;
  const key = await findKey(services, presented, 'acknowledged');
  if (!key) return null;
  const tenant = await findTenant(services, key.data.tenant_id, 'acknowledged');
  return tenant ? { tenant: tenant.data, keyId: presented.keyId, keyExpiresAt: key.data.expires_at } : null;
}

/**
 * As `findCaller`, for a request that uses only the key, its tenant's id and tier (the admission
 * path): from the read models as they are, without the read barrier (the admission path must not
 * queue behind earlier admissions' leaf counts, which it does not read), and through `recent`.
 */
export async function findKeyHolder(
  services: GovernanceServices,
  header: string | undefined,
  recent: RecentKeys,
): Promise<KeyHolder | null> {
  const presented = presentedKey(header);
  if (!presented) return null;
  const now = services.clock();
  const remembered = recent.get(presented.keyId, now);
  if (remembered) return usable(presented, remembered.key, now) ? holder(remembered, presented) : null;
  const key = await findKey(services, presented, 'applied');
  if (!key) return null;
  const tenant = await findTenant(services, key.data.tenant_id, 'applied');
  if (!tenant) return null;
  const record: KeyRecord = {
    key: key.data,
    tenant: { tenant_id: tenant.data.tenant_id, tier: tenant.data.tier },
  };
  recent.remember(presented.keyId, record, now, Math.max(key.position, tenant.position));
  return holder(record, presented);
}

interface PresentedKey {
  apiKey: string;
  keyId: string;
}

function presentedKey(header: string | undefined): PresentedKey | null {
  // The scheme's name is case-insensitive (RFC 9110 §11.1): `bearer` and `BEARER` are Bearer too.
  const apiKey = /^bearer +(\S+)$/i.exec(header ?? '')?.[1];
  const parsed = apiKey ? parseApiKey(apiKey) : null;
  return apiKey && parsed ? { apiKey, keyId: parsed.keyId } : null;
}

/** The stored key the presented one is, if it matches its hash and has not expired. */
async function findKey(
  services: GovernanceServices,
  presented: PresentedKey,
  freshness: Freshness,
): Promise<StoredDocument<ApiKeyView> | null> {
  const key = await services.readModels.get<ApiKeyView>(
    tenantsProjection,
    API_KEYS,
    presented.keyId,
    freshness,
  );
  return key && usable(presented, key.data, services.clock()) ? key : null;
}

/** Compared in constant time; an expired key answers as an unknown one. */
function usable(presented: PresentedKey, key: ApiKeyView, now: Date): boolean {
  if (!apiKeyMatches(presented.apiKey, key.key_hash)) return false;
  return !key.expires_at || Date.parse(key.expires_at) > now.getTime();
}

async function findTenant(
  services: GovernanceServices,
  tenantId: string,
  freshness: Freshness,
): Promise<StoredDocument<TenantView> | null> {
  return services.readModels.get<TenantView>(tenantsProjection, TENANTS, tenantId, freshness);
}

function holder(record: KeyRecord, presented: PresentedKey): KeyHolder {
  return { tenant: record.tenant, keyId: presented.keyId };
}

export function callerOf(res: Response): Caller {
  return res.locals.caller as Caller;
}
