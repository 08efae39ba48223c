/** Given/when/then for the vault's decisions on a user's stream. */
import { deciderSpecification, refusedWith } from '../../engine/decider-specification';
import { type UserEvent, type UserState, userAggregate } from '../accounts/user-state';
import { decideDeleteVaultKey, decideStoreVaultKey, type StoreVaultKey } from './vault-commands';

const USER = `usr_${'a'.repeat(24)}`;
const TENANT = `ten_${'b'.repeat(24)}`;
const AGENT = `svc_${'a'.repeat(26)}`;
const OTHER_AGENT = `svc_${'b'.repeat(26)}`;
const DK = `dk_${'1'.repeat(16)}`;
const DK_2 = `dk_${'2'.repeat(16)}`;
const MASTER_ID = 'f'.repeat(16);
const sealed = (c: string) => `v1.${c.repeat(16)}.${c.repeat(22)}.${c.repeat(40)}`;
const NOW = new Date('2026-03-01T10:00:00.000Z');
const at = NOW.toISOString();

const requested: UserEvent = {
  type: 'SignInRequested',
  data: {
    user_id: USER,
    email: 'ada@example.com',
    token_hash: 'a'.repeat(64),
    requested_at: '2026-03-01T08:59:00.000Z',
    expires_at: '2026-03-01T09:14:00.000Z',
  },
};
const signedUp: UserEvent = {
  type: 'UserRegistered',
  data: {
    user_id: USER,
    email: 'ada@example.com',
    tenant_id: TENANT,
    registered_at: '2026-03-01T09:00:00.000Z',
  },
};
const registered = [requested, signedUp];
const dataKeyCreated = (id = DK): UserEvent => ({
  type: 'VaultDataKeyCreated',
  data: {
    user_id: USER,
    data_key_id: id,
    master_key_id: MASTER_ID,
    wrapped_key: sealed('w'),
    created_at: at,
  },
});
const stored = (agent = AGENT, provider: 'openai' | 'google' = 'openai', c = 's'): UserEvent => ({
  type: 'VaultKeyStored',
  data: {
    user_id: USER,
    agent_id: agent,
    provider,
    prefix: 'sk-proj-…',
    data_key_id: DK,
    sealed_key: sealed(c),
    stored_at: at,
  },
});
const deleted = (agent = AGENT): UserEvent => ({
  type: 'VaultKeyDeleted',
  data: { user_id: USER, agent_id: agent, provider: 'openai', deleted_at: at },
});

const context = { now: NOW, correlationId: 'c' };
const spec = <C>(decide: (state: UserState, command: C) => { events: UserEvent[]; result: unknown }) =>
  deciderSpecification(userAggregate, decide as never);

const first: StoreVaultKey = {
  agentId: AGENT,
  provider: 'openai',
  prefix: 'sk-proj-…',
  dataKeyId: DK,
  sealedKey: sealed('s'),
  newDataKey: { master_key_id: MASTER_ID, wrapped_key: sealed('w') },
};
const withCurrent = (c = 's', agentId = AGENT): StoreVaultKey => ({
  agentId,
  provider: 'openai',
  prefix: 'sk-proj-…',
  dataKeyId: DK,
  sealedKey: sealed(c),
});

describe('storing a key', () => {
  const given = spec((state, command: StoreVaultKey) => decideStoreVaultKey(state, command, context));

  it('given a user without a vault, when a key comes with a new data key, then the data key and the key are stored', () => {
    given([...registered])
      .when(first)
      .then([dataKeyCreated(), stored()]);
  });

  it("given a user's data key, when a key sealed with it comes, then it is stored (replacing the provider's earlier one)", () => {
    given([...registered, dataKeyCreated(), stored()])
      .when(withCurrent('t'))
      .then([stored(AGENT, 'openai', 't')]);
  });

  it('given a data key made meanwhile, when a key comes with another new data key, then 409 and nothing appended', () => {
    given([...registered, dataKeyCreated()])
      .when(first)
      .thenThrows(refusedWith('conflict', 409));
  });

  it('given another data key than the one the key was sealed with, then 409 and nothing appended', () => {
    given([...registered, dataKeyCreated(DK_2)])
      .when(withCurrent())
      .thenThrows(refusedWith('conflict', 409));
  });

  it('given no user, then 404', () => {
    given([]).when(first).thenThrows(refusedWith('not_found', 404));
  });
});

describe('deleting a key', () => {
  const given = spec((state, command: { agentId: string }) =>
    decideDeleteVaultKey(state, { agentId: command.agentId, provider: 'openai' }, context),
  );

  it("given the agent's key, when it is deleted, then VaultKeyDeleted", () => {
    given([...registered, dataKeyCreated(), stored()])
      .when({ agentId: AGENT })
      .then([deleted()]);
  });

  it("given only another agent's key, then 404 and nothing appended", () => {
    given([...registered, dataKeyCreated(), stored(OTHER_AGENT)])
      .when({ agentId: AGENT })
      .thenThrows(refusedWith('not_found', 404));
  });

  it('given a key deleted already, then 404', () => {
    given([...registered, dataKeyCreated(), stored(), deleted()])
      .when({ agentId: AGENT })
      .thenThrows(refusedWith('not_found', 404));
  });
});

describe('the user aggregate with a vault', () => {
  it('keeps its sessions when vault events arrive (each vault event has its own time)', () => {
    let state = userAggregate.initial();
    for (const event of [...registered, dataKeyCreated(), stored(), stored(OTHER_AGENT, 'google'), deleted()])
      state = userAggregate.evolve(state, event);
    expect(state.registered).toBe(true);
    expect(state.vault.data_key?.data_key_id).toBe(DK);
    expect([...state.vault.entries.keys()]).toEqual([`${OTHER_AGENT}/google`]);
  });
});
