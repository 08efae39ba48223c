/**
 * The access layer's view of agents and keys (`PlatformServices.agentDirectory`), read from the
 * agents read model. Every agent route asks it once or twice per request, so answers are remembered
 * for a moment: a second at most, and forgotten at once when this process deletes the agent or
 * revokes the key (`forget`), so the caller who revoked a key is never let in with
 * it again. Another process's deletion or revocation takes effect here within the second.
 */
import {
  AGENT_API_KEYS,
  AGENTS,
  type AgentKeyView,
  type AgentView,
  agentsProjection,
} from '../../../projectors/platform/agents';
import type { ReadModels } from '../../../read-api/engine/read-models';
import { hashesMatch } from '../accounts/tokens';
import type { AgentDirectory, AgentKeyHolder } from '../services';

type Owner = { userId: string; tenantId: string };

interface Remembered<T> {
  value: T;
  at: number;
}

export class ReadModelAgentDirectory implements AgentDirectory {
  private readonly owners = new Map<string, Remembered<Owner | null>>();
  private readonly keys = new Map<string, Remembered<AgentKeyHolder | null>>();

  constructor(
    private readonly readModels: Pick<ReadModels, 'get' | 'find'>,
    private readonly ttlMs = 1000,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  async ownerOf(agentId: string): Promise<Owner | null> {
    const remembered = this.recall(this.owners, agentId);
    if (remembered !== undefined) return remembered;
    const agent = await this.readModels.get<AgentView>(agentsProjection, AGENTS, agentId);
    const owner =
      agent && !agent.data.deleted ? { userId: agent.data.owner_id, tenantId: agent.data.tenant_id } : null;
    this.remember(this.owners, agentId, owner);
    return owner;
  }

  async keyByHash(sha256Hex: string): Promise<AgentKeyHolder | null> {
    const remembered = this.recall(this.keys, sha256Hex);
    if (remembered !== undefined) return remembered;
    const page = await this.readModels.find<AgentKeyView>(agentsProjection, AGENT_API_KEYS, {
      where: { key_hash: sha256Hex },
      limit: 1,
    });
    const key = page.items[0]?.data;
    // The index found it by hash; the comparison that admits it is made in constant time.
    const usable = key && key.revoked_at === null && hashesMatch(key.key_hash, sha256Hex);
    // A key of a deleted agent works no more.
    const holder =
      usable && (await this.ownerOf(key.agent_id))
        ? {
            keyId: key.key_id,
            agentId: key.agent_id,
            userId: key.owner_id,
            tenantId: key.tenant_id,
            scopes: key.scopes,
          }
        : null;
    this.remember(this.keys, sha256Hex, holder);
    return holder;
  }

  /**
   * After this process deleted the agent (no `keyId`) or revoked its key `keyId`: what is remembered
   * of them is dropped, so the next request reads the read model (which has applied the change: the
   * handler waited for it).
   */
  forget(agentId: string, keyId?: string): void {
    if (keyId === undefined) this.owners.delete(agentId);
    for (const [hash, entry] of this.keys)
      if (entry.value?.agentId === agentId && (keyId === undefined || entry.value.keyId === keyId))
        this.keys.delete(hash);
  }

  private recall<T>(map: Map<string, Remembered<T>>, id: string): T | undefined {
    const entry = map.get(id);
    if (!entry) return undefined;
    if (this.now() - entry.at < this.ttlMs) return entry.value;
    map.delete(id);
    return undefined;
  }

  private remember<T>(map: Map<string, Remembered<T>>, id: string, value: T): void {
    // Unknown agents and keys are not remembered: one made a moment ago must be found at once.
    if (value === null) return;
    if (map.size >= this.maxEntries) map.clear();
    map.set(id, { value, at: this.now() });
  }
}
