/**
 * A MongoClient that is replaced by a fresh one when its server monitor stalls.
 *
 * Seen in the production topology's fault test (twice in 19 runs): after the read store was SIGKILLed
 * and restarted, one process's client kept failing server selection with the crash-time error
 * ("connection 9 … closed") for the 80-90 s the test still ran, while every other process's client
 * had reconnected within 2 s. The server description never changed in that time, so its monitor finished
 * no check. A working monitor finishes one (succeeded or failed) at least every heartbeat interval, or
 * fails it within the connect timeout; a client silent for longer than both is stuck. It is then
 * closed, and a new client on the same URL and options takes its place: the process recovers instead
 * of answering 500 until it is restarted.
 */
import { type Db, MongoClient, type MongoClientOptions } from 'mongodb';

/** The options a connection string names, by lower-case name (option names are case-insensitive). */
export function urlOptions(url: string): Map<string, string> {
  const named = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(url.split('?')[1] ?? ''))
    named.set(key.toLowerCase(), value);
  return named;
}

export interface StallWatch {
  /** No finished heartbeat for this long: the client is replaced. */
  stallMs: number;
  /** How often the watch looks. */
  checkEveryMs: number;
  /** Called with the replaced client's silence, in milliseconds (logging, tests). */
  onRenewed?: (silentMs: number) => void;
}

const DRIVER_CONNECT_TIMEOUT_MS = 30_000;
const DRIVER_HEARTBEAT_MS = 10_000;

/**
 * Longer than a heartbeat interval plus a check that fails by the connect timeout (the URL's, else the
 * driver's defaults), with margin.
 */
export function defaultStallWatch(url: string): StallWatch {
  const named = urlOptions(url);
  const connect = Number(named.get('connecttimeoutms') ?? DRIVER_CONNECT_TIMEOUT_MS);
  const heartbeat = Number(named.get('heartbeatfrequencyms') ?? DRIVER_HEARTBEAT_MS);
  return { stallMs: connect + heartbeat + 20_000, checkEveryMs: 5_000 };
}

export class RenewingClient {
  private client: MongoClient;
  private lastHeartbeat = Date.now();
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  private constructor(
    private readonly url: string,
    private readonly options: MongoClientOptions,
    private readonly watch: StallWatch,
    client: MongoClient,
  ) {
    this.client = this.watched(client);
    this.timer = setInterval(() => this.renewIfStalled(), watch.checkEveryMs);
    this.timer.unref();
  }

  /** Connects (the first connection must succeed), then keeps watching. */
  static async connect(url: string, options: MongoClientOptions, watch: StallWatch): Promise<RenewingClient> {
    const client = new MongoClient(url, options);
    await client.connect();
    return new RenewingClient(url, options, watch, client);
  }

  /** The database on the current client: ask again for each operation, not once. */
  db(name: string): Db {
    return this.client.db(name);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.client.close();
  }

  private watched(client: MongoClient): MongoClient {
    const beat = () => {
      if (this.client === client) this.lastHeartbeat = Date.now();
    };
    client.on('serverHeartbeatSucceeded', beat);
    client.on('serverHeartbeatFailed', beat);
    return client;
  }

  private renewIfStalled(): void {
    const silentMs = Date.now() - this.lastHeartbeat;
    if (this.closed || silentMs < this.watch.stallMs) return;
    const stalled = this.client;
    // The new client connects on its first operation; the stalled one's operations fail now.
    this.client = this.watched(new MongoClient(this.url, this.options));
    this.lastHeartbeat = Date.now();
    void this.client.connect().catch(() => undefined);
    void stalled.close().catch(() => undefined);
    this.watch.onRenewed?.(silentMs);
  }
}
