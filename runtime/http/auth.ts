import type { NextFunction, Request, Response } from 'express';
import { apiKeyMatches, parseApiKey } from '../../command-api/api-keys';
import {
  API_KEYS,
  type ApiKeyView,
  TENANTS,
  type TenantView,
  tenantsProjection,
} from '../../projectors/tenants';
import type { Services } from '../services';
import { sendError } from './errors';

export interface Caller {
  tenant: TenantView;
  keyId: string;
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

async function findCaller(services: Services, header: string | undefined): Promise<Caller | null> {
  const apiKey = /^Bearer (\S+)$/.exec(header ?? '')?.[1];
  const parsed = apiKey ? parseApiKey(apiKey) : null;
  if (!apiKey || !parsed) return null;
  const { readStore, catalog } = services;
  const keys = await catalog.servingCollection(tenantsProjection.name, API_KEYS);
  const key = await readStore.get<ApiKeyView>(keys, parsed.keyId);
  if (!key || !apiKeyMatches(apiKey, key.data.key_hash)) return null;
  if (key.data.expires_at && Date.parse(key.data.expires_at) <= Date.now()) return null;
  const tenants = await catalog.servingCollection(tenantsProjection.name, TENANTS);
  const tenant = await readStore.get<TenantView>(tenants, key.data.tenant_id);
  return tenant ? { tenant: tenant.data, keyId: parsed.keyId } : null;
}

export function callerOf(res: Response): Caller {
  return res.locals.caller as Caller;
}
