import path from 'node:path';
import { PrivateFerretDb } from '../../tests/support/private-servers';
import { describeWithServer, MONGODB_SERVER } from '../../tests/support/servers';
import { tempDir } from '../../tests/support/temp-dir';
import { MongoReadStore } from './read-store';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The server's variable says FerretDB is installed (.ci/run); the test freezes a private instance of it,
// so no other suite is disturbed.
describeWithServer(MONGODB_SERVER, 'MongoReadStore: a client whose server monitor stalls', () => {
  const temp = tempDir('gov-mongo-renewing-client');
  let ferret: PrivateFerretDb | null = null;
  let store: MongoReadStore | null = null;

  afterAll(async () => {
    ferret?.thaw();
    await store?.close();
    ferret?.dispose();
    temp.remove();
  });

  it('given a store whose client reports heartbeats, then it keeps its client; when no heartbeat finishes for longer than the stall limit (the server frozen mid-check), then the client is replaced, and the store works as soon as the server answers again', async () => {
    ferret = await PrivateFerretDb.start(path.join(temp.dir, 'servers'));
    const renewals: number[] = [];
    store = await MongoReadStore.connect(`${ferret.url}/?heartbeatFrequencyMS=500`, {
      database: 'renewing_client',
      stallWatch: { stallMs: 5000, checkEveryMs: 250, onRenewed: (silentMs) => renewals.push(silentMs) },
    });
    await store.apply([{ kind: 'upsert', collection: 'docs', id: 'a', position: 1, data: { n: 1 } }]);

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
