/**
 * Reads of the accounts read model (projectors/platform/accounts.ts): sessions by their token's hash
 * for the access layer, a user's account for `GET /v1/auth/me`, and a user's live sessions.
 */
import type { SessionDirectory, SessionHolder } from '../../../command-api/platform/services';
import { TENANTS, type TenantView, tenantsProjection } from '../../../projectors/governance/tenants';
import {
  PLATFORM_SESSIONS,
  PLATFORM_USERS,
  type PlatformSessionView,
  type PlatformUserView,
  platformAccountsProjection,
} from '../../../projectors/platform/accounts';
import type { ReadModels } from '../../engine/read-models';

/** The sessions the access layer finds a cookie's session in: read-your-write, so a session works at once. */
export function readModelSessions(readModels: ReadModels): SessionDirectory {
  return {
    async byTokenHash(sha256Hex: string): Promise<SessionHolder | null> {
      const session = await readModels.get<PlatformSessionView>(
        platformAccountsProjection,
        PLATFORM_SESSIONS,
        sha256Hex,
      );
      if (!session || session.data.ended_at !== null) return null;
      const user = await readModels.get<PlatformUserView>(
        platformAccountsProjection,
        PLATFORM_USERS,
        session.data.user_id,
      );
      if (!user) return null;
      return {
        sessionId: session.data.session_id,
        userId: user.data.user_id,
        email: user.data.email,
        role: user.data.role,
        tenantId: user.data.tenant_id,
        expiresAt: session.data.expires_at,
      };
    },
  };
}

export interface Account {
  email: string;
  role: 'user' | 'admin';
  tier: TenantView['tier'];
  tenant_id: string;
}

/** A signed-in user's account as `GET /v1/auth/me` shows it: its tier is its tenant's now. */
export async function accountOf(readModels: ReadModels, userId: string): Promise<Account | null> {
  const user = await readModels.get<PlatformUserView>(platformAccountsProjection, PLATFORM_USERS, userId);
  if (!user) return null;
  const tenant = await readModels.get<TenantView>(tenantsProjection, TENANTS, user.data.tenant_id);
  if (!tenant) return null;
  return {
    email: user.data.email,
    role: user.data.role,
    tier: tenant.data.tier,
    tenant_id: tenant.data.tenant_id,
  };
}

/** Sessions of a user shown at once (a person has a few; the oldest beyond these still work). */
export const SESSIONS_LISTED = 100;

/** A user's live sessions (neither ended nor expired), newest first. */
export async function liveSessionsOf(
  readModels: ReadModels,
  userId: string,
  now: Date,
): Promise<PlatformSessionView[]> {
  const page = await readModels.find<PlatformSessionView>(platformAccountsProjection, PLATFORM_SESSIONS, {
    where: { user_id: userId, ended_at: null },
    range: { expires_at: { gt: now.toISOString() } },
    sort: { field: 'started_at', direction: 'desc' },
    limit: SESSIONS_LISTED,
  });
  return page.items.map((item) => item.data);
}
