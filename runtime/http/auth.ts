import type { NextFunction, Request, Response } from 'express';
import { apiKeyMatches, parseApiKey } from '../../command-api/api-keys';
import { TIER_LIMITS } from '../../command-api/tier-limits';
import {
  API_KEYS,
  type ApiKeyView,
  TENANTS,
  type TenantView,
  tenantsProjection,
} from '../../projectors/tenants';
import type { Freshness } from '../../read-api/read-models';
import type { Services } from '../services';
import { sendError } from './errors';

export interface Caller {
  tenant: TenantView;
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
 * Bearer authentication: the key id finds the stored hash, which is compared in constant time.
 * Missing, malformed, unknown and expired keys all answer the same 401, so a caller learns nothing
 * about which keys exist.
 */
export function authenticate(services: Services) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const caller = await findCaller(services, req.get('authorization'));
    if (!caller) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="gov"');
      sendError(res, 401, 'UNAUTHORIZED', 'send a valid API key as "Authorization: Bearer gov_live_…"');
      return;
    }
    res.locals.caller = caller;
    next();
  };
}

/**
 * The caller an `Authorization` header names, or null for a missing, malformed, unknown or expired key.
 * `applied` skips the read barrier: for a request that uses only the key and the tier, which no
 * admission changes (the admission path itself must not queue behind earlier admissions' leaf counts).
 */
export async function findCaller(
  services: Services,
  header: string | undefined,
  freshness: Freshness = 'acknowledged',
): Promise<Caller | null> {
  const apiKey = /^Bearer (\S+)$/.exec(header ?? '')?.[1];
  const parsed = apiKey ? parseApiKey(apiKey) : null;
  if (!apiKey || !parsed) return null;
  const key = await services.readModels.get<ApiKeyView>(tenantsProjection, API_KEYS, parsed.keyId, freshness);
  if (!key || !apiKeyMatches(apiKey, key.data.key_hash)) return null;
  if (key.data.expires_at && Date.parse(key.data.expires_at) <= services.clock().getTime()) return null;
  const tenant = await services.readModels.get<TenantView>(
    tenantsProjection,
    TENANTS,
    key.data.tenant_id,
    freshness,
  );
  return tenant ? { tenant: tenant.data, keyId: parsed.keyId } : null;
}

export function callerOf(res: Response): Caller {
  return res.locals.caller as Caller;
}
