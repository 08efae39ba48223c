import path from 'node:path';
import { PrivateFerretDb } from '../../tests/support/private-servers';
import { describeWithServer, MONGODB_SERVER } from '../../tests/support/servers';
import { tempDir } from '../../tests/support/temp-dir';
import { MongoReadStore } from './read-store';

// The server's variable says FerretDB is installed (.ci/run); the test freezes a private instance of it,
// so no other suite is disturbed.
describeWithServer(MONGODB_SERVER, 'MongoReadStore: a server that stops answering', () => {
  const temp = tempDir('gov-mongo-answer-timeout');
  let ferret: PrivateFerretDb | null = null;
  let store: MongoReadStore | null = null;

  afterAll(async () => {
    ferret?.thaw();
    await store?.close();
    ferret?.dispose();
    temp.remove();
  });

  it("given a connected store, when the server stops answering, then an operation fails within the answer timeout and one retry (~31 s; with no answer timeout it took ~70 s here, until the driver's monitor gave the server up), and works again once the server answers", async () => {
    ferret = await PrivateFerretDb.start(path.join(temp.dir, 'servers'));
    store = await MongoReadStore.connect(ferret.url, { database: 'answer_timeout', answerTimeoutMs: 1000 });
    await store.apply([{ kind: 'upsert', collection: 'docs', id: 'a', position: 1, data: { n: 1 } }]);

    ferret.freeze();
    const started = Date.now();
    // The read times out after a second; the driver's one retry then waits out server selection (30 s).
    await expect(store.get('docs', 'a')).rejects.toThrow(/timed out/i);
    expect(Date.now() - started).toBeLessThan(45_000);

    ferret.thaw();
    expect((await store.get('docs', 'a'))?.data).toEqual({ n: 1 });
  }, 90_000);
});
