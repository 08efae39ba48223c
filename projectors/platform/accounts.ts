/**
 * The accounts read model of the platform: users (for `GET /v1/auth/me` and every session caller's
 * role) and sessions by the hash of their cookie's token (what the access layer looks a cookie up by).
 * A projection like every read model: a restart, or another process, finds every session as it was.
 */
import type { EventPayloads } from '../../event-schemas';
import type { RecordedEvent } from '../../ports/event-store';
import type { Change } from '../../ports/read-store';
import type { Projection, ProjectionState } from '../engine/projection';

export interface PlatformUserView {
  user_id: string;
  email: string;
  role: 'user' | 'admin';
  tenant_id: string;
  registered_at: string;
}

/** A session, by the SHA-256 of its token: never the token. */
export interface PlatformSessionView {
  session_id: string;
  user_id: string;
  started_at: string;
  expires_at: string;
  /** When it was signed out or revoked; null while it lasts (until `expires_at`). */
  ended_at: string | null;
}

export const PLATFORM_USERS = 'platform_users';
export const PLATFORM_SESSIONS = 'platform_sessions';

export const platformAccountsProjection: Projection = {
  name: 'platform-accounts',
  version: 1,
  collections: [PLATFORM_USERS, PLATFORM_SESSIONS],
  indexes: [{ collection: PLATFORM_SESSIONS, fields: ['user_id'] }],
  eventTypes: ['UserRegistered', 'UserRoleChanged', 'SessionStarted', 'SessionEnded'],
  async project(event: RecordedEvent, state: ProjectionState): Promise<Change[]> {
    const position = event.position;
    switch (event.type) {
      case 'UserRegistered': {
        const data = event.data as EventPayloads['UserRegistered'];
        const user: PlatformUserView = {
          user_id: data.user_id,
          email: data.email,
          role: 'user',
          tenant_id: data.tenant_id,
          registered_at: data.registered_at,
        };
        return [{ kind: 'upsert', collection: PLATFORM_USERS, id: data.user_id, position, data: user }];
      }
      case 'UserRoleChanged': {
        const data = event.data as EventPayloads['UserRoleChanged'];
        const user = await state.get<PlatformUserView>(PLATFORM_USERS, data.user_id);
        if (!user) return [];
        return [
          {
            kind: 'upsert',
            collection: PLATFORM_USERS,
            id: data.user_id,
            position,
            data: { ...user.data, role: data.role },
          },
        ];
      }
      case 'SessionStarted': {
        const data = event.data as EventPayloads['SessionStarted'];
        const session: PlatformSessionView = {
          session_id: data.session_id,
          user_id: data.user_id,
          started_at: data.started_at,
          expires_at: data.expires_at,
          ended_at: null,
        };
        return [
          { kind: 'upsert', collection: PLATFORM_SESSIONS, id: data.token_hash, position, data: session },
        ];
      }
      case 'SessionEnded': {
        const data = event.data as EventPayloads['SessionEnded'];
        const session = await state.get<PlatformSessionView>(PLATFORM_SESSIONS, data.token_hash);
        if (!session) return [];
        return [
          {
            kind: 'upsert',
            collection: PLATFORM_SESSIONS,
            id: data.token_hash,
            position,
            data: { ...session.data, ended_at: data.ended_at },
          },
        ];
      }
      default:
        return [];
    }
  },
  reads(event) {
    const data = event.data as { user_id?: string; token_hash?: string };
    if (event.type === 'UserRoleChanged') return [{ collection: PLATFORM_USERS, id: data.user_id ?? '' }];
    if (event.type === 'SessionEnded') return [{ collection: PLATFORM_SESSIONS, id: data.token_hash ?? '' }];
    return [];
  },
};
