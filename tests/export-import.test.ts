/**
 * Acceptance: `gov export` then `gov import` through the real CLI moves the whole event stream of a
 * stopped server to a fresh data folder. After `gov rebuild`, every read model is identical to the
 * original's and a server started there serves the same signed log: the same latest tree head and the
 * same root at every size ever signed. A damaged export (truncated, a flipped byte, a wrong count)
 * imports nothing, and a store that already holds events is refused.
 *
 * The same export also goes into EventStoreDB (the in-memory imitation of its client, which gives
 * events positions of its own as a server does), is rebuilt, sequenced and audited there, then exported
 * from it and imported back into an embedded store: every event, read model and signed root is the
 * original's, modulo positions (which no API shows; see tests/support/store-positions.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { type EsdbClient, EsdbEventStore } from '../adapters/eventstoredb/event-store';
import { readExportFile, readExportStream } from '../adapters/ndjson/export-file';
import { writeExport } from '../adapters/ndjson/export-writer';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { SqliteReadStore } from '../adapters/sqlite/read-store';
import { eventsAuditSource, runAudit, trustFromPublishedKeys } from '../audit';
import { importWithNewPositions } from '../cli/repositioned-import';
import type { JsonSth } from '../domain/log';
import type { RecordedEvent } from '../ports/event-store';
import type { StoredDocument } from '../ports/read-store';
import { projections } from '../projectors';
import { rebuildProjection } from '../projectors/engine/rebuild';
import { LOG_STREAM, LogSequencer } from '../projectors/log/log-sequencer';
import { readPublishedKeys } from '../runtime/keys/key-history';
import { openServerKeyring } from '../runtime/keys/keyring';
import { createLogger } from '../runtime/support/logger';
import { createMetrics } from '../runtime/support/metrics';
import { type RunningServer, startEmbedded } from '../runtime/wiring/embedded';
import { type GovRun, runGov } from './support/children';
import { FakeEsdbClient } from './support/fake-esdb-client';
import {
  failingEvidence,
  GovClient,
  MINUTE_MS,
  type Registration,
  startTestServer,
  type TestServer,
  testConfig,
} from './support/governance-client';
import { readModels } from './support/read-models';
import { documentsModuloPositions, eventsModuloPositions } from './support/store-positions';
import { tempDir } from './support/temp-dir';
import { unlimitedInSharedLog } from './support/unlimited-tenant';
import { WebhookReceiver } from './support/webhook-receiver';

/** Runs `gov` as an operator would, on the stores of `dataDir`. */
function gov(dataDir: string, ...args: string[]): Promise<GovRun> {
  return runGov(args, { dataDir });
}

async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

/** Every event of the embedded store of `dataDir` (an absent store reads as empty). */
async function storedEvents(dataDir: string): Promise<RecordedEvent[]> {
  const file = path.join(dataDir, 'events.db');
  if (!fs.existsSync(file)) return [];
  const store = new SqliteEventStore({ file });
  try {
    return await collect(store.readAll());
  } finally {
    await store.close();
  }
}

function readStoreFile(dataDir: string): string {
  return path.join(dataDir, 'read-models.db');
}

/** What the public log endpoints say: its keys, the latest tree head and the root at each signed size. */
async function publishedLog(client: GovClient, sizes: readonly number[]) {
  const keys = await client.get('/gov/v1/log/keys');
  expect(keys.status).toBe(200);
  const latest = await client.get<JsonSth>('/gov/v1/log/sth');
  expect(latest.status).toBe(200);
  const roots: Record<number, string> = {};
  for (const size of sizes) {
    const pinned = await client.get<JsonSth>(`/gov/v1/log/sth?tree_size=${size}`);
    expect({ size, status: pinned.status }).toEqual({ size, status: 200 });
    roots[size] = pinned.body.root_hash;
  }
  return { keys: keys.body, latest: latest.body, roots };
}

describe('gov export and gov import move the whole event stream to a fresh store', () => {
  let original: TestServer;
  let receiver: WebhookReceiver;
  let work: ReturnType<typeof tempDir>;
  let exportFile: string;
  let originalEvents: RecordedEvent[];
  let originalModels: Record<string, StoredDocument<unknown>[]>;
  let originalLog: Awaited<ReturnType<typeof publishedLog>>;
  let signedSizes: number[];

  /** A fresh data folder holding only the original's keys (they are not part of the event stream). */
  const freshDataDir = (name: string): string => {
    const dataDir = path.join(work.dir, name);
    fs.cpSync(path.join(original.dataDir, 'keys'), path.join(dataDir, 'keys'), { recursive: true });
    return dataDir;
  };

  beforeAll(async () => {
    work = tempDir('gov-export-import');
    receiver = await WebhookReceiver.start();
    original = await startTestServer('gov-export-source', { env: { GOV_WEBHOOK_ALLOW: '127.0.0.1' } });
    const client = () => original.client;
    const step = () => original.clock.advance(MINUTE_MS);

    const tenants: Registration[] = [];
    for (let i = 0; i < 3; i++) {
      tenants.push(await client().register());
      step();
    }
    for (const tenant of tenants) {
      await client().admit(tenant.api_key);
      step();
      await client().admit(tenant.api_key);
      step();
    }
    const failed = await client().submitEvidence(tenants[0]!.api_key, failingEvidence());
    expect(failed.status).toBe(422);
    step();

    const loop = await client().register({ email: 'loop@example.com' });
    await unlimitedInSharedLog(original.server, loop.tenant_id);
    step();
    const authorization = await client().admit(loop.api_key);
    step();
    const execution = await client().post(
      '/governance/execution',
      { parent_auth_leaf_hash: authorization.leaf_hash, outcome: 'FAILED' },
      loop.api_key,
    );
    expect(execution.status).toBe(201);
    step();

    const rotated = await client().post<{ api_key: string }>(
      '/api-key/rotate',
      undefined,
      tenants[1]!.api_key,
    );
    expect(rotated.status).toBe(200);
    step();
    // A log key rotation: later tree heads are signed with a new key, earlier ones keep the retired one.
    await original.stop();
    const rotatedLogKey = await gov(original.dataDir, 'keys', 'rotate', 'log');
    expect({ code: rotatedLogKey.code, stderr: rotatedLogKey.stderr }).toEqual({ code: 0, stderr: '' });
    await original.start();
    await client().admit(tenants[0]!.api_key);
    step();
    const webhook = await client().post(
      '/webhooks',
      { url: receiver.url, events: ['leaf_admitted'], secret: 'an-export-test-secret-0123' },
      tenants[2]!.api_key,
    );
    expect(webhook.status).toBe(201);
    step();
    await client().admit(tenants[2]!.api_key);

    const store = original.server.services.eventStore;
    await original.server.supervisor.catchUp();
    signedSizes = (await collect(store.readStream(LOG_STREAM))).map(
      (e) => (e.data as { tree_size: number }).tree_size,
    );
    originalLog = await publishedLog(client(), signedSizes);
    await original.stop();

    originalEvents = await storedEvents(original.dataDir);
    originalModels = await readModels(original.dataDir);
    exportFile = path.join(work.dir, 'events.ndjson');
    const exported = await gov(original.dataDir, 'export', '--out', exportFile, '--json');
    expect({ code: exported.code, stderr: exported.stderr }).toEqual({ code: 0, stderr: '' });
  }, 120_000);

  afterAll(async () => {
    await original?.dispose();
    await receiver?.close();
    work?.remove();
  });

  it('given the seeded server, then its stream holds every kind of event the scenario produced', () => {
    const types = new Set(originalEvents.map((e) => e.type));
    for (const type of [
      'EvidenceAdmitted',
      'ExecutionAdmitted',
      'VarianceRecorded',
      'TenantTierChanged',
      'TreeHeadSigned',
    ])
      expect(types).toContain(type);
    expect(signedSizes.length).toBeGreaterThan(3);
    // Tree heads before the log key rotation verify under the retired key only.
    expect((originalLog.keys as { retired?: { log?: unknown[] } }).retired?.log).toHaveLength(1);
    expect(Object.values(originalModels).flat().length).toBeGreaterThan(20);
  });

  it('when exported through the CLI, then the file reads back (checksum verified) as exactly the stored events', async () => {
    expect(await collect(readExportFile(exportFile))).toEqual(originalEvents);
  });

  it('when exported to standard output (--out -), then the same events stream out, the summary going to stderr', async () => {
    const run = await gov(original.dataDir, 'export', '--out', '-');
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/exported \d+ events .* to standard output/);
    expect(await collect(readExportStream([Buffer.from(run.stdout)]))).toEqual(originalEvents);
  });

  describe('imported through the CLI into a fresh data folder, then rebuilt', () => {
    let dataDir: string;
    let imported: RunningServer | null = null;

    beforeAll(async () => {
      dataDir = freshDataDir('imported');
      const run = await gov(dataDir, 'import', exportFile);
      expect({ code: run.code, stdout: run.stdout }).toEqual({
        code: 0,
        stdout: expect.stringMatching(/imported \d+ events/),
      });
      const rebuilt = await gov(dataDir, 'rebuild');
      expect(rebuilt.code).toBe(0);
    });
    afterAll(async () => {
      await imported?.close();
    });

    it('then every event is kept exactly: ids, streams, revisions, positions, recorded_at and data', async () => {
      expect(await storedEvents(dataDir)).toEqual(originalEvents);
    });

    it('then every document of every collection of tenants, governance and tree-heads equals the original', async () => {
      const models = await readModels(dataDir);
      expect(Object.keys(models).sort()).toEqual(Object.keys(originalModels).sort());
      for (const [collection, documents] of Object.entries(originalModels))
        expect({ collection, documents: models[collection] }).toEqual({ collection, documents });
    });

    it('then a server started on it serves the same latest STH and the same root at every size ever signed', async () => {
      imported = await startEmbedded(testConfig(dataDir), createLogger('silent'), {
        clock: original.clock.fn,
      });
      const log = await publishedLog(new GovClient(imported.url), signedSizes);
      expect(log.keys).toEqual(originalLog.keys);
      expect(log.latest).toEqual(originalLog.latest);
      expect(log.roots).toEqual(originalLog.roots);
      await imported.close();
      imported = null;
    });

    it('when importing again into it (no longer empty), then exit code 1, a clear message, and nothing changes', async () => {
      const before = await storedEvents(dataDir);
      const run = await gov(dataDir, 'import', exportFile);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/already holds events .*import only into an empty store/);
      expect(await storedEvents(dataDir)).toEqual(before);
    });
  });

  describe('imported into EventStoreDB (the imitation of its client), rebuilt there, exported from it and imported back', () => {
    let esdb: EsdbEventStore;
    let esdbEvents: RecordedEvent[];
    let esdbDir: string;
    let esdbExport: string;

    beforeAll(async () => {
      esdb = new EsdbEventStore(new FakeEsdbClient() as unknown as EsdbClient);
      await importWithNewPositions({ file: exportFile, target: esdb });
      esdbEvents = await collect(esdb.readAll());
      // The read models built from EventStoreDB, as projectors started on an empty read store build them.
      esdbDir = freshDataDir('esdb-read-models');
      const readStore = new SqliteReadStore(readStoreFile(esdbDir));
      try {
        for (const projection of projections)
          await rebuildProjection({
            projection,
            eventStore: esdb,
            readStore,
            metrics: createMetrics(undefined, { defaults: false }),
            logger: createLogger('silent'),
            mode: 'in-place',
          });
      } finally {
        await readStore.close();
      }
      esdbExport = path.join(work.dir, 'from-esdb.ndjson');
      const output = fs.createWriteStream(esdbExport);
      await writeExport({ store: esdb, source: 'esdb://imitation:2113', output });
      await new Promise((resolve) => output.end(resolve));
    });
    afterAll(async () => {
      await esdb?.close();
    });

    it('then every event is there in order with its id, stream, revision, data and recorded_at, at positions of EventStoreDB', () => {
      expect(eventsModuloPositions(esdbEvents)).toEqual(eventsModuloPositions(originalEvents));
      const moved = esdbEvents.filter((event, i) => event.position !== originalEvents[i]!.position);
      expect(moved).toHaveLength(esdbEvents.length);
    });

    it('then every read model rebuilt from it equals the original, each position naming the same event', async () => {
      expect(documentsModuloPositions(await readModels(esdbDir), esdbEvents)).toEqual(
        documentsModuloPositions(originalModels, originalEvents),
      );
    });

    it('then a log sequencer started on it rebuilds the tree and checks it against the last signed head: the original latest STH', async () => {
      const keyring = await openServerKeyring(esdbDir, testConfig(esdbDir).logOrigin);
      const sequencer = new LogSequencer({
        eventStore: esdb,
        signer: keyring.logSigner,
        retiredVerifierKeys: keyring.retiredLogVerifierKeys,
        logger: createLogger('silent'),
      });
      try {
        let timer: NodeJS.Timeout | undefined;
        const ready = await Promise.race([
          sequencer.start().then(() => 'ready'),
          new Promise((resolve) => {
            timer = setTimeout(() => resolve('the sequencer did not start within 10 s'), 10_000);
          }),
        ]).finally(() => clearTimeout(timer));
        expect(ready).toBe('ready');
        // GET …/sth names its log.
        expect({ log: 'shared', ...sequencer.latest().sth }).toEqual(originalLog.latest);
      } finally {
        await sequencer.stop();
        keyring.release();
      }
    });

    it('then the audit of it is clean: every leaf, every root and every tree head the original signed', async () => {
      const report = await runAudit(eventsAuditSource(esdb.readAll()), {
        trust: trustFromPublishedKeys(readPublishedKeys(path.join(original.dataDir, 'keys'))),
        workers: 0,
      });
      expect(report.discrepancies).toEqual([]);
      expect(report.tree_size).toBe(signedSizes[signedSizes.length - 1]);
      expect(report.root_hash).toBe(originalLog.roots[report.tree_size]);
    });

    it('when exported from it and imported back into an embedded store through the CLI, then rebuilt: the same events, read models and signed log as the original', async () => {
      const dataDir = freshDataDir('back-from-esdb');
      const run = await gov(dataDir, 'import', esdbExport);
      expect({ code: run.code, stdout: run.stdout }).toEqual({
        code: 0,
        stdout: expect.stringMatching(/imported \d+ events .*from esdb:\/\/imitation:2113/),
      });
      expect((await gov(dataDir, 'rebuild')).code).toBe(0);
      const events = await storedEvents(dataDir);
      expect(events).toEqual(esdbEvents);
      expect(eventsModuloPositions(events)).toEqual(eventsModuloPositions(originalEvents));
      expect(documentsModuloPositions(await readModels(dataDir), events)).toEqual(
        documentsModuloPositions(originalModels, originalEvents),
      );
      const server = await startEmbedded(testConfig(dataDir), createLogger('silent'), {
        clock: original.clock.fn,
      });
      try {
        const log = await publishedLog(new GovClient(server.url), signedSizes);
        expect(log).toEqual(originalLog);
      } finally {
        await server.close();
      }
    });
  });

  describe('a damaged export imports nothing', () => {
    const damaged: [string, (text: Buffer) => Buffer, RegExp][] = [
      ['truncated in the middle', (bytes) => bytes.subarray(0, Math.floor(bytes.length / 2)), /truncated/],
      [
        'one byte flipped in a signed root hash',
        (bytes) => {
          const copy = Buffer.from(bytes);
          const at = copy.indexOf('"root_hash":"') + '"root_hash":"'.length;
          copy[at] = copy[at] === 0x30 ? 0x31 : 0x30;
          return copy;
        },
        /checksum mismatch/,
      ],
      [
        'a trailer with the wrong event count',
        (bytes) => {
          const text = bytes.toString('utf8');
          const trailerAt = text.lastIndexOf('{"trailer"');
          const trailer = text
            .slice(trailerAt)
            .replace(/"events":(\d+)/, (_, n: string) => `"events":${Number(n) - 1}`);
          return Buffer.from(text.slice(0, trailerAt) + trailer);
        },
        /the trailer counts \d+ events but the file holds \d+/,
      ],
    ];

    it.each(damaged)(
      'given an export %s, then exit code 1 and the target store stays empty',
      async (name, damage, reason) => {
        const file = path.join(work.dir, `${name.replaceAll(' ', '-')}.ndjson`);
        fs.writeFileSync(file, damage(fs.readFileSync(exportFile)));
        const dataDir = freshDataDir(`damaged-${name.replaceAll(' ', '-')}`);
        const run = await gov(dataDir, 'import', file);
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(reason);
        expect(run.stderr).toMatch(/Nothing was imported/);
        expect(await storedEvents(dataDir)).toEqual([]);
      },
    );
  });
});
