/**
 * Keep-alive connection pools for webhook targets, one per origin and set of checked addresses. A
 * pooled socket is reused only by an attempt whose own target check approved exactly the addresses
 * the socket was opened under, so a DNS answer that changed since (rebinding) gets a pool, and a
 * connection, of its own. Reuse saves a TCP (and TLS) handshake per delivery on both ends.
 */
import http from 'node:http';
import https from 'node:https';

/** Origins kept at once; the least recently used pool beyond that is closed. */
const MAX_POOLS = 256;
/** An idle pooled socket is closed after this long (receivers commonly keep idle ones 5–60 s). */
const IDLE_SOCKET_MS = 4_000;

export class PinnedAgents {
  private readonly pools = new Map<string, http.Agent>();

  agentFor(url: URL, addresses: readonly string[]): http.Agent {
    const key = `${url.protocol}//${url.host}@${[...addresses].sort().join(',')}`;
    let agent = this.pools.get(key);
    if (agent) {
      // Most recently used last: the first entry is the one to close when full.
      this.pools.delete(key);
    } else {
      const options = { keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' as const };
      agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
      if (this.pools.size >= MAX_POOLS) this.closeOldest();
    }
    this.pools.set(key, agent);
    return agent;
  }

  /** Closes every pooled socket (the worker is stopping). */
  close(): void {
    for (const agent of this.pools.values()) agent.destroy();
    this.pools.clear();
  }

  private closeOldest(): void {
    const oldest = this.pools.entries().next();
    if (oldest.done) return;
    const [key, agent] = oldest.value;
    this.pools.delete(key);
    agent.destroy();
  }
}
