/**
 * The agent directory over the agents read model: owners and keys found, deleted agents and revoked
 * keys refused, answers remembered for a moment and forgotten at once when this process changes them.
 */
import type { FindQuery, Page, StoredDocument } from '../../../ports/read-store';
import {
  AGENT_API_KEYS,
  AGENTS,
  type AgentKeyView,
  type AgentView,
} from '../../../projectors/platform/agents';
import { ReadModelAgentDirectory } from './agent-directory';

const AGENT = `svc_${'a'.repeat(26)}`;
const HASH = 'f'.repeat(64);
const owner = { userId: `usr_${'1'.repeat(24)}`, tenantId: `ten_${'2'.repeat(24)}` };

/** A read model in memory, counting reads. */
class Documents {
  readonly agents = new Map<string, Partial<AgentView>>();
  readonly keys: AgentKeyView[] = [];
  reads = 0;

  async get<T>(_projection: unknown, collection: string, id: string): Promise<StoredDocument<T> | null> {
    this.reads++;
    const data = collection === AGENTS ? this.agents.get(id) : undefined;
    return data ? { id, position: 1, data: data as T } : null;
  }

  async find<T>(_projection: unknown, collection: string, query: FindQuery): Promise<Page<T>> {
    this.reads++;
    const items =
      collection === AGENT_API_KEYS ? this.keys.filter((key) => key.key_hash === query.where?.key_hash) : [];
    return {
      items: items.map((data) => ({ id: data.key_id, position: 1, data: data as T })),
      nextCursor: null,
    };
  }
}

function setup() {
  const documents = new Documents();
  documents.agents.set(AGENT, { owner_id: owner.userId, tenant_id: owner.tenantId, deleted: false });
  documents.keys.push({
    key_id: `key_${'3'.repeat(24)}`,
    agent_id: AGENT,
    owner_id: owner.userId,
    tenant_id: owner.tenantId,
    name: null,
    prefix: 'svc_sk_abcdefg',
    key_hash: HASH,
    scopes: ['chat'],
    created_at: '2026-03-01T10:00:00.000Z',
    revoked_at: null,
  });
  let now = 0;
  const directory = new ReadModelAgentDirectory(documents, 1000, 100, () => now);
  return { documents, directory, advance: (ms: number) => (now += ms) };
}

describe('ReadModelAgentDirectory', () => {
  it('given an agent and its key, then the owner and the key holder, read once within the second', async () => {
    const { documents, directory } = setup();
    expect(await directory.ownerOf(AGENT)).toEqual(owner);
    expect(await directory.keyByHash(HASH)).toEqual({
      keyId: `key_${'3'.repeat(24)}`,
      agentId: AGENT,
      ...owner,
      scopes: ['chat'],
    });
    const reads = documents.reads;
    await directory.ownerOf(AGENT);
    await directory.keyByHash(HASH);
    expect(documents.reads).toBe(reads);
  });

  it('given an unknown agent or key, then null, and asked again it is read again (one made since is found)', async () => {
    const { documents, directory } = setup();
    expect(await directory.ownerOf(`svc_${'b'.repeat(26)}`)).toBeNull();
    expect(await directory.keyByHash('e'.repeat(64))).toBeNull();
    documents.agents.set(`svc_${'b'.repeat(26)}`, {
      owner_id: owner.userId,
      tenant_id: owner.tenantId,
      deleted: false,
    });
    expect(await directory.ownerOf(`svc_${'b'.repeat(26)}`)).toEqual(owner);
  });

  it('given a revoked key or a deleted agent in the read model, then null', async () => {
    const { documents, directory } = setup();
    documents.keys[0] = { ...documents.keys[0]!, revoked_at: '2026-03-01T11:00:00.000Z' };
    expect(await directory.keyByHash(HASH)).toBeNull();
    documents.agents.set(AGENT, { ...documents.agents.get(AGENT), deleted: true });
    expect(await directory.ownerOf(AGENT)).toBeNull();
  });

  it('given remembered answers, when this process revokes the key or deletes the agent, then they are forgotten at once', async () => {
    const { documents, directory } = setup();
    await directory.keyByHash(HASH);
    documents.keys[0] = { ...documents.keys[0]!, revoked_at: '2026-03-01T11:00:00.000Z' };
    expect(await directory.keyByHash(HASH)).not.toBeNull();
    directory.forget(AGENT, documents.keys[0]!.key_id);
    expect(await directory.keyByHash(HASH)).toBeNull();

    const other = setup();
    await other.directory.keyByHash(HASH);
    other.documents.agents.set(AGENT, { ...other.documents.agents.get(AGENT), deleted: true });
    other.directory.forget(AGENT);
    expect(await other.directory.ownerOf(AGENT)).toBeNull();
    expect(await other.directory.keyByHash(HASH)).toBeNull();
  });

  it('given a change made elsewhere, then it is seen once the second is over', async () => {
    const { documents, directory, advance } = setup();
    await directory.ownerOf(AGENT);
    documents.agents.set(AGENT, { ...documents.agents.get(AGENT), deleted: true });
    expect(await directory.ownerOf(AGENT)).toEqual(owner);
    advance(1000);
    expect(await directory.ownerOf(AGENT)).toBeNull();
  });
});
