/**
 * Keep-alive connection pools for webhook targets, one per origin and set of checked addresses. A
 * pooled connection is reused only by an attempt whose own target check approved exactly the
 * addresses it was opened under, so a DNS answer that changed since (rebinding) gets a pool, and a
 * connection, of its own. Reuse saves a TCP (and TLS) handshake per delivery on both ends.
 *
 * The pools are undici's: a POST through them costs about half the CPU of node:http's client
 * (~40 µs against ~70 per attempt to a local receiver), which on a loaded server is time taken from
 * admissions.
 */
import { isIP, type LookupFunction } from 'node:net';
import { Client, Pool } from 'undici';

/** Origins kept at once; the least recently used pool beyond that is closed. */
const MAX_POOLS = 256;
/** An idle pooled connection is closed after this long (receivers commonly keep idle ones 5–60 s). */
const IDLE_SOCKET_MS = 4_000;

export class PinnedPools {
  private readonly pools = new Map<string, Pool>();

  poolFor(url: URL, addresses: readonly string[]): Pool {
    const key = `${url.protocol}//${url.host}@${[...addresses].sort().join(',')}`;
    let pool = this.pools.get(key);
    if (pool) {
      // Most recently used last: the first entry is the one to close when full.
      this.pools.delete(key);
    } else {
      pool = new Pool(url.origin, pinnedOptions(addresses));
      if (this.pools.size >= MAX_POOLS) this.closeOldest();
    }
    this.pools.set(key, pool);
    return pool;
  }

  /** Closes every pooled connection (the worker is stopping). */
  close(): void {
    for (const pool of this.pools.values()) void pool.destroy().catch(() => undefined);
    this.pools.clear();
  }

  private closeOldest(): void {
    const oldest = this.pools.entries().next();
    if (oldest.done) return;
    const [key, pool] = oldest.value;
    this.pools.delete(key);
    void pool.close().catch(() => undefined);
  }
}

/** A client of its own for one attempt (no pool given): one connection, closed after the attempt. */
export function oneOffClient(url: URL, addresses: readonly string[]): Client {
  return new Client(url.origin, { ...pinnedOptions(addresses), pipelining: 0 });
}

function pinnedOptions(addresses: readonly string[]) {
  return {
    keepAliveTimeout: IDLE_SOCKET_MS,
    keepAliveMaxTimeout: IDLE_SOCKET_MS,
    // A host name connects to the checked addresses only, whatever DNS answers now.
    connect: { lookup: pinnedLookup(addresses) },
  };
}

/** A `lookup` that answers with the checked addresses only. */
function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const records = addresses.map((address) => ({ address, family: isIP(address) }));
  return (_hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const usable = records.filter((record) => !family || record.family === family);
    const first = usable[0];
    if (!first) {
      const error: NodeJS.ErrnoException = new Error('no checked address of the requested family');
      error.code = 'ENOTFOUND';
      callback(error, '');
    } else if (options.all) {
      callback(null, usable);
    } else {
      callback(null, first.address, first.family);
    }
  };
}
