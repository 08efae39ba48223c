import path from 'node:path';
import { PrivateFerretDb } from '../../tests/support/private-servers';
import { describeWithServer, MONGODB_SERVER } from '../../tests/support/servers';
import { tempDir } from '../../tests/support/temp-dir';
import { MongoReadStore } from './read-store';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The server's variable says FerretDB is installed (.ci/run); the tests freeze a private instance of
// it (SIGSTOP: connections stay open, nothing comes back on them), so no other suite is disturbed.
describeWithServer(MONGODB_SERVER, 'MongoReadStore: a server that stops answering', () => {
  const temp = tempDir('gov-mongo-unanswering');
  let ferret: PrivateFerretDb;
  const stores: MongoReadStore[] = [];

  beforeAll(async () => {
    ferret = await PrivateFerretDb.start(path.join(temp.dir, 'servers'));
  });
  afterEach(() => ferret.thaw());
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    ferret.dispose();
    temp.remove();
  });

  /** A store holding one document, on its own database. */
  async function connect(url: string, options: Parameters<typeof MongoReadStore.connect>[1]) {
    const store = await MongoReadStore.connect(url, options);
    stores.push(store);
    await store.apply([{ kind: 'upsert', collection: 'docs', id: 'a', position: 1, data: { n: 1 } }]);
    return store;
  }

  it("given a connected store, when the server stops answering, then an operation fails within the answer timeout and one retry (~31 s; with no answer timeout it took ~70 s here, until the driver's monitor gave the server up), and works again once the server answers", async () => {
    const store = await connect(ferret.url, { database: 'answer_timeout', answerTimeoutMs: 1000 });

    ferret.freeze();
    const started = Date.now();
    // The read times out after a second; the driver's one retry then waits out server selection (30 s).
    await expect(store.get('docs', 'a')).rejects.toThrow(/timed out/i);
    expect(Date.now() - started).toBeLessThan(45_000);

    ferret.thaw();
    expect((await store.get('docs', 'a'))?.data).toEqual({ n: 1 });
  }, 90_000);

  it('given a store whose client reports heartbeats, then it keeps its client; when no heartbeat finishes for longer than the stall limit (the server frozen mid-check), then the client is replaced, and the store works as soon as the server answers again', async () => {
    const renewals: number[] = [];
    const store = await connect(`${ferret.url}/?heartbeatFrequencyMS=500`, {
      database: 'renewing_client',
      stallWatch: { stallMs: 5000, checkEveryMs: 250, onRenewed: (silentMs) => renewals.push(silentMs) },
    });

    // Working: heartbeats every half second, no renewal over twice the stall limit.
    for (const until = Date.now() + 10_000; Date.now() < until; await pause(100))
      expect((await store.get('docs', 'a'))?.data).toEqual({ n: 1 });
    expect(renewals).toEqual([]);

    // Frozen: the monitor's check waits for an answer that does not come, so no heartbeat finishes.
    ferret.freeze();
    for (const until = Date.now() + 20_000; renewals.length === 0 && Date.now() < until; ) await pause(100);
    expect(renewals.length).toBeGreaterThan(0);
    expect(renewals[0]).toBeGreaterThanOrEqual(5000);

    ferret.thaw();
    const thawed = Date.now();
    expect((await store.get('docs', 'a'))?.data).toEqual({ n: 1 });
    expect(Date.now() - thawed).toBeLessThan(10_000);
  }, 90_000);
});
