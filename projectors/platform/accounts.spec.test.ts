/** Specifications of the accounts read model: the users and sessions the access layer and /v1/auth/me read. */
import { ProjectionSpecification, type SpecEvent } from '../engine/projection-spec';
import { PLATFORM_SESSIONS, PLATFORM_USERS, platformAccountsProjection } from './accounts';

const given = ProjectionSpecification.for(platformAccountsProjection);

const USER = `usr_${'a'.repeat(24)}`;
const TENANT = `ten_${'b'.repeat(24)}`;
const SESSION = `ses_${'1'.repeat(24)}`;
const TOKEN_HASH = 'c'.repeat(64);

const registered: SpecEvent = {
  type: 'UserRegistered',
  data: {
    user_id: USER,
    email: 'ada@example.com',
    tenant_id: TENANT,
    registered_at: '2026-03-01T10:00:00.000Z',
  },
};
const started: SpecEvent = {
  type: 'SessionStarted',
  data: {
    user_id: USER,
    session_id: SESSION,
    token_hash: TOKEN_HASH,
    sign_in_token_hash: 'd'.repeat(64),
    started_at: '2026-03-01T10:00:00.000Z',
    expires_at: '2026-03-31T10:00:00.000Z',
  },
};
const user = {
  user_id: USER,
  email: 'ada@example.com',
  role: 'user',
  tenant_id: TENANT,
  registered_at: '2026-03-01T10:00:00.000Z',
};
const session = {
  session_id: SESSION,
  user_id: USER,
  started_at: '2026-03-01T10:00:00.000Z',
  expires_at: '2026-03-31T10:00:00.000Z',
  ended_at: null,
};

describe('the platform accounts projection', () => {
  it('given a first sign-in, then the user (role user) and its session by token hash', async () => {
    await given([registered, started]).thenDocuments({
      [PLATFORM_USERS]: { [USER]: user },
      [PLATFORM_SESSIONS]: { [TOKEN_HASH]: session },
    });
  });

  it('when the admin role is granted, then the user is admin', async () => {
    await given([registered, started])
      .when([
        {
          type: 'UserRoleChanged',
          data: {
            user_id: USER,
            role: 'admin',
            previous_role: 'user',
            changed_at: '2026-03-01T11:00:00.000Z',
            changed_by: 'ops',
          },
        },
      ])
      .thenDocuments({ [PLATFORM_USERS]: { [USER]: { ...user, role: 'admin' } } });
  });

  it('when the session ends, then it is marked ended (also when delivered twice)', async () => {
    await given([registered, started])
      .when(
        [
          {
            type: 'SessionEnded',
            data: {
              user_id: USER,
              session_id: SESSION,
              token_hash: TOKEN_HASH,
              ended_at: '2026-03-02T10:00:00.000Z',
              reason: 'logout',
            },
          },
        ],
        { numberOfTimes: 2 },
      )
      .thenDocuments({
        [PLATFORM_SESSIONS]: { [TOKEN_HASH]: { ...session, ended_at: '2026-03-02T10:00:00.000Z' } },
      });
  });
});
