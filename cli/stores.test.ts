/**
 * How the operator commands choose their event store (an embedded SQLite file, or EventStoreDB by URL),
 * and that an EventStoreDB which cannot be reached fails a command quickly (exit 1) with a message that
 * names it, never its password, and never hangs. No EventStoreDB server is needed.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ConfigError, loadConfig } from '../runtime/config/config';
import { runGov } from '../tests/support/children';
import { tempDir } from '../tests/support/temp-dir';
import { UsageError } from './command';
import { auditSourceOf, chooseEventStore, storeName } from './stores';

const noConfig = () => {
  throw new Error('the configuration must not be read');
};
const configured = (eventStoreUrl: string | null) => () => ({
  eventStoreFile: '/data/events.db',
  eventStoreUrl,
});

describe('choosing the event store', () => {
  it('given --store with an esdb:// or esdb+discover:// URL, then EventStoreDB', () => {
    expect(chooseEventStore('esdb://127.0.0.1:2113?tls=false', noConfig)).toEqual({
      kind: 'eventstoredb',
      url: 'esdb://127.0.0.1:2113?tls=false',
    });
    expect(chooseEventStore('esdb+discover://cluster.internal:2113', noConfig)).toMatchObject({
      kind: 'eventstoredb',
    });
  });

  it('given --store with a path, then that SQLite file, resolved', () => {
    expect(chooseEventStore('data/events.db', noConfig)).toEqual({
      kind: 'sqlite',
      file: path.resolve('data/events.db'),
    });
  });

  it('given --store with a URL of another kind, or empty, then a usage error', () => {
    expect(() => chooseEventStore('mongodb://127.0.0.1:27017', noConfig)).toThrow(UsageError);
    expect(() => chooseEventStore('mongodb://127.0.0.1:27017', noConfig)).toThrow(/neither a file nor/);
    expect(() => chooseEventStore(' ', noConfig)).toThrow(UsageError);
  });

  it('given no --store and GOV_EVENT_STORE_URL configured, then that EventStoreDB', () => {
    expect(chooseEventStore(undefined, configured('esdb://es:2113'))).toEqual({
      kind: 'eventstoredb',
      url: 'esdb://es:2113',
    });
  });

  it('given --store and GOV_EVENT_STORE_URL, then --store wins', () => {
    expect(chooseEventStore('x.db', configured('esdb://es:2113'))).toMatchObject({ kind: 'sqlite' });
  });

  it('given neither, then the server’s embedded store file', () => {
    expect(chooseEventStore(undefined, configured(null))).toEqual({
      kind: 'sqlite',
      file: '/data/events.db',
    });
  });

  it('given GOV_EVENT_STORE_URL that is not an EventStoreDB URL, then a configuration error that does not repeat it', () => {
    const choose = () =>
      chooseEventStore(undefined, () => loadConfig({ GOV_EVENT_STORE_URL: 'http://admin:secret@host:2113' }));
    expect(choose).toThrow(ConfigError);
    expect(choose).toThrow(/GOV_EVENT_STORE_URL must be/);
    expect(choose).not.toThrow(/secret/);
  });

  it('names EventStoreDB without its password, in messages, export headers and audit reports', () => {
    const location = chooseEventStore('esdb://admin:changeit@es:2113', noConfig);
    expect(storeName(location)).toBe('esdb://admin:***@es:2113');
    expect(auditSourceOf(location).description).toBe('esdb://admin:***@es:2113');
    expect(storeName({ kind: 'sqlite', file: '/d/events.db' })).toBe('sqlite:/d/events.db');
  });
});

describe('an EventStoreDB that cannot be reached, through the gov CLI', () => {
  let folder: ReturnType<typeof tempDir>;
  let trust: string;
  beforeEach(() => {
    folder = tempDir('gov-esdb-cli');
    trust = path.join(folder.dir, 'trust.json');
    fs.writeFileSync(trust, JSON.stringify({ log: [], authority: [], validators: [] }));
  });
  afterEach(() => folder.remove());

  it('when nothing listens at its address, then gov audit --store URL exits 1 at once, naming it without the password', async () => {
    const started = Date.now();
    const run = await gov([
      'audit',
      '--trust',
      trust,
      '--store',
      'esdb://admin:secret@127.0.0.1:1?tls=false',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /EventStoreDB at esdb:\/\/admin:\*\*\*@127\.0\.0\.1:1\?tls=false cannot be read/,
    );
    expect(run.stderr + run.stdout).not.toMatch(/secret/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('when the node accepts connections but never answers, then gov export gives up after 5 s with exit 1, and writes no file', async () => {
    await withSilentServer(async (port) => {
      const out = path.join(folder.dir, 'events.ndjson');
      const started = Date.now();
      const run = await gov(['export', '--store', `esdb://127.0.0.1:${port}?tls=false`, '--out', out]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/cannot be read: no answer within 5 s.*no export was written/);
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(fs.readdirSync(folder.dir)).toEqual(['trust.json']);
    });
  });

  it('given GOV_EVENT_STORE_URL, then gov export uses it', async () => {
    const out = path.join(folder.dir, 'events.ndjson');
    const run = await gov(['export', '--out', out], {
      GOV_EVENT_STORE_URL: 'esdb://ops:hunter2@127.0.0.1:1?tls=false',
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/EventStoreDB at esdb:\/\/ops:\*\*\*@127\.0\.0\.1:1/);
    expect(run.stderr).not.toMatch(/hunter2/);
  });

  it('when nothing listens at its address, then gov import --store URL exits 1 at once, having written nothing', async () => {
    const file = path.join(folder.dir, 'events.ndjson');
    fs.writeFileSync(file, '');
    const run = await gov(['import', file, '--store', 'esdb://admin:secret@127.0.0.1:1?tls=false']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /EventStoreDB at esdb:\/\/admin:\*\*\*@127\.0\.0\.1:1\?tls=false cannot be read/,
    );
    expect(run.stderr).toMatch(/Nothing was written/);
    expect(run.stderr).not.toMatch(/secret/);
  });

  it('given --resume with the embedded store, then exit 2 (usage): its import is all or nothing', async () => {
    const file = path.join(folder.dir, 'events.ndjson');
    fs.writeFileSync(file, '');
    const run = await gov(['import', file, '--resume']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--resume applies to EventStoreDB only/);
  });

  it('given --store with a URL of another kind, then exit 2 (usage)', async () => {
    const run = await gov(['audit', '--trust', trust, '--store', 'mongodb://127.0.0.1:27017']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/neither a file nor an EventStoreDB URL/);
  });

  /** Runs gov with the folder as its data folder, no configured store of the test's own environment. */
  function gov(args: string[], env: NodeJS.ProcessEnv = {}) {
    return runGov(args, { dataDir: folder.dir, env });
  }
});

/** A TCP server that accepts connections and never says a word: a node that hangs. */
async function withSilentServer(work: (port: number) => Promise<void>): Promise<void> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await work((server.address() as net.AddressInfo).port);
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('operator commands on the configured stores, when these are not there or do not answer', () => {
  let folder: ReturnType<typeof tempDir>;
  beforeEach(() => {
    folder = tempDir('gov-configured-stores');
  });
  afterEach(() => folder.remove());

  const tenant = 'ten_0123456789abcdef01234567';
  const esdb = { GOV_EVENT_STORE_URL: 'esdb://ops:hunter2@127.0.0.1:1?tls=false' };
  // The driver's own wait for a server, shortened: nothing listens there.
  const mongo = { GOV_READ_STORE_URL: 'mongodb://ops:hunter2@127.0.0.1:1/?serverSelectionTimeoutMS=300' };

  /** Runs gov on the empty data folder; the folder must stay empty: no store file made on the way. */
  async function refused(args: string[], env: NodeJS.ProcessEnv, message: RegExp): Promise<void> {
    const run = await runGov(args, { dataDir: folder.dir, env });
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/hunter2/);
    expect(fs.readdirSync(folder.dir)).toEqual([]);
  }

  it('given GOV_EVENT_STORE_URL, when gov tenant tier runs and EventStoreDB does not answer, then exit 1 naming it, and no embedded store is made', async () => {
    await refused(
      ['tenant', 'tier', tenant, 'L2'],
      esdb,
      /^gov tenant: EventStoreDB at esdb:\/\/ops:\*\*\*@127\.0\.0\.1:1\?tls=false cannot be read/,
    );
  });

  it('given GOV_READ_STORE_URL, when gov projections or gov rebuild runs and MongoDB does not answer, then exit 1 naming it, and no embedded store is made', async () => {
    const unreachable =
      /the read store at mongodb:\/\/ops:\*\*\*@127\.0\.0\.1:1\/\S* \(database gov\) cannot be reached/;
    await refused(['projections'], mongo, unreachable);
    // The event store (here EventStoreDB) is opened first; with both unreachable, it is the one named.
    await refused(['rebuild'], { ...esdb, ...mongo }, /EventStoreDB at esdb:\/\/ops:\*\*\*@/);
  });

  it('given the embedded stores and a data folder without them, when gov projections, tenant tier or rebuild runs, then exit 1 saying where none was found', async () => {
    await refused(['projections'], {}, /there is no read store at .*read-models\.db; set GOV_DATA_DIR/);
    await refused(
      ['tenant', 'tier', tenant, 'L2'],
      {},
      /there is no event store at .*events\.db; set GOV_DATA_DIR/,
    );
    await refused(['rebuild'], {}, /there is no event store at .*events\.db/);
  });

  it('given GOV_EVENT_STORE_URL, when gov keys generate --force runs and EventStoreDB does not answer, then exit 1: it cannot know the keys signed nothing', async () => {
    await refused(
      ['keys', 'generate', '--force'],
      esdb,
      /cannot tell whether the event store holds anything signed with the keys, so nothing was changed: EventStoreDB at/,
    );
  });
});
