/**
 * `gov import` as an operator runs it, into the embedded store (the command itself, with --store FILE)
 * and into EventStoreDB (its import path, on the imitation of the client): an event whose data nests
 * deeper than any the HTTP API accepts is refused before anything is stored, naming its line; and the
 * `--json` summary has the same members whichever store the export went into.
 */
import path from 'node:path';
import type { EsdbClient } from '../adapters/eventstoredb/event-store';
import { EsdbEventStore } from '../adapters/eventstoredb/event-store';
import { HISTORY } from '../adapters/ndjson/importable-store.contract';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { eventsAuditSource, runAudit } from '../audit';
import { SyntheticLog } from '../audit/synthetic-log';
import type { EvidenceAdmitted } from '../event-schemas';
import { jsonShapeProblem } from '../event-schemas/json-shape';
import { collect } from '../ports/contract/event-store.contract';
import type { RecordedEvent } from '../ports/event-store';
import { writeExportFile } from '../tests/support/export-files';
import { FakeEsdbClient } from '../tests/support/fake-esdb-client';
import { eventsModuloPositions } from '../tests/support/store-positions';
import { tempDir } from '../tests/support/temp-dir';
import { EXIT } from './command';
import { importCommand } from './import-command';
import { importIntoEventStoreDb } from './import-eventstoredb';

/** `{"a":{"a":…{"a":1}}}` with `levels` objects. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

/** What the command printed on standard output and standard error while `run` ran. */
async function printed(
  run: () => Promise<number>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((...args) => out.push(args.join(' ')));
  const error = jest.spyOn(console, 'error').mockImplementation((...args) => err.push(args.join(' ')));
  try {
    const code = await run();
    return { code, stdout: out.join('\n'), stderr: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe('gov import', () => {
  let work: ReturnType<typeof tempDir>;
  let esdb: EsdbEventStore;

  beforeEach(() => {
    work = tempDir('gov-import-command');
    esdb = new EsdbEventStore(new FakeEsdbClient() as unknown as EsdbClient);
  });
  afterEach(async () => {
    await esdb.close();
    work.remove();
  });

  const exportOf = (events: readonly RecordedEvent[], name = 'events.ndjson') =>
    writeExportFile(events, path.join(work.dir, name));

  /** `gov import FILE --store <sqlite file> --json`; then what the store holds. */
  async function importEmbedded(file: string) {
    const storeFile = path.join(work.dir, 'events.db');
    const run = await printed(() => importCommand.run([file, '--store', storeFile, '--json']));
    const store = new SqliteEventStore({ file: storeFile });
    try {
      return { ...run, stored: await collect(store.readAll()) };
    } finally {
      await store.close();
    }
  }

  async function importEventStoreDb(file: string) {
    const run = await printed(() =>
      importIntoEventStoreDb({ target: esdb, storeName: 'esdb://fake', file, json: true, resume: false }),
    );
    return { ...run, stored: await collect(esdb.readAll()) };
  }

  describe('given an export whose 3rd event (line 4) has data nested 1,000 deep', () => {
    const deep = HISTORY.map((event, i) =>
      i === 2 ? { ...event, data: { execution_context: nested(1000) } } : event,
    );

    it('when imported into the embedded store, then exit 1 naming line 4 and the nesting, and the store stays empty', async () => {
      const run = await importEmbedded(await exportOf(deep));
      expect(run.code).toBe(EXIT.failure);
      expect(run.stderr).toMatch(
        /line 4: the event's \/data\/execution_context(\/a)+ nests deeper than 36 levels of objects and arrays; no such event can be imported/,
      );
      expect(run.stderr).toMatch(/Nothing was imported/);
      expect(run.stored).toEqual([]);
    });

    it('when imported into EventStoreDB, then exit 1 naming line 4 and the nesting, before anything is appended', async () => {
      const run = await importEventStoreDb(await exportOf(deep));
      expect(run.code).toBe(EXIT.failure);
      expect(run.stderr).toMatch(
        /line 4: the event's \/data\/execution_context(\/a)+ nests deeper than 36 levels/,
      );
      expect(run.stderr).toMatch(/Nothing was written/);
      expect(run.stored).toEqual([]);
    });
  });

  it('given an event with a member named __proto__ (refused by the HTTP API), when imported, then refused naming its line', async () => {
    const polluted = HISTORY.map((event, i) =>
      i === 1 ? { ...event, data: JSON.parse('{"x":{"__proto__":{"admin":true}}}') as unknown } : event,
    );
    const run = await importEmbedded(await exportOf(polluted));
    expect(run.code).toBe(EXIT.failure);
    expect(run.stderr).toMatch(/line 3: the event's \/data\/x\/__proto__ is a reserved member name/);
    expect(run.stored).toEqual([]);
  });

  it('given the deepest execution_context the HTTP API accepts, stored in an ExecutionAdmitted trace, when imported, then it is imported', async () => {
    const deepest = nested(31);
    expect(jsonShapeProblem({ execution_context: deepest })).toBeNull();
    expect(jsonShapeProblem({ execution_context: nested(32) })).not.toBeNull();
    const events = HISTORY.map((event, i) =>
      i === 2 ? { ...event, data: { trace: { execution_context: deepest } } } : event,
    );
    const run = await importEmbedded(await exportOf(events));
    expect(run.code).toBe(EXIT.ok);
    expect(run.stored).toEqual(events);
  });

  it('given an export from an earlier release (certificates with quorum = n and threshold), when imported, then it is kept as exported and audits clean', async () => {
    const log = new SyntheticLog();
    const authorization = await log.admitEvidence('tnt_a', 'model-1', undefined, { certificates: 'earlier' });
    await log.admitEvidence('tnt_b', 'model-2', undefined, { certificates: 'earlier' });
    log.execute(authorization, 'FAILED');
    log.signTreeHead();
    const run = await importEmbedded(await exportOf(log.events));
    expect(run.code).toBe(EXIT.ok);
    expect(run.stored).toEqual(log.events);
    const certificates = run.stored
      .filter((e) => e.type === 'EvidenceAdmitted')
      .map((e) => (e.data as EvidenceAdmitted).certificate);
    expect(certificates).toEqual([
      expect.objectContaining({ quorum: 4, threshold: 3 }),
      expect.objectContaining({ quorum: 4, threshold: 3 }),
    ]);
    const audit = await runAudit(eventsAuditSource(run.stored), { trust: log.trust, workers: 0 });
    expect(audit).toMatchObject({ leaves: 4, tree_heads: 1, discrepancies: [], notices: [] });
  });

  it('given an export of three logs (shared, test, dedicated: LogCreated events, admissions and heads naming their log), when imported into the embedded store and into EventStoreDB, then every event and member is kept and each log audits clean as before', async () => {
    const dedicated = `dedicated-${'cd'.repeat(12)}`;
    const log = new SyntheticLog();
    await log.admitEvidence('tnt_a');
    log.createLog('test');
    await log.admitEvidence('tnt_t', 'model-t', undefined, { log: 'test' });
    log.createLog(dedicated);
    const authorization = await log.admitEvidence(`ten_${'cd'.repeat(12)}`, 'model-4', undefined, {
      log: dedicated,
    });
    log.signTreeHead('test');
    log.execute(authorization, 'EXECUTED');
    log.signTreeHead();
    log.signTreeHead(dedicated);
    await log.admitEvidence('tnt_t', 'model-t', undefined, { log: 'test' });
    log.signTreeHead('test');
    const before = await runAudit(eventsAuditSource(log.events), { trust: log.trust, workers: 0 });
    expect(before.discrepancies).toEqual([]);
    expect(before.logs.map((l) => [l.log, l.leaves, l.tree_heads])).toEqual([
      ['shared', 1, 1],
      [dedicated, 3, 1],
      ['test', 2, 2],
    ]);
    const file = await exportOf(log.events);

    const embedded = await importEmbedded(file);
    expect(embedded.code).toBe(EXIT.ok);
    expect(embedded.stored).toEqual(log.events);

    const eventStoreDb = await importEventStoreDb(file);
    expect(eventStoreDb.code).toBe(EXIT.ok);
    expect(eventsModuloPositions(eventStoreDb.stored)).toEqual(eventsModuloPositions(log.events));
    for (const stored of [embedded.stored, eventStoreDb.stored]) {
      const after = await runAudit(eventsAuditSource(stored), { trust: log.trust, workers: 0 });
      expect(after.discrepancies).toEqual([]);
      expect(after.notices).toEqual([]);
      // The same figures; a LogCreated's position is the store's own.
      const figures = (logs: typeof before.logs) => logs.map(({ created_at: _, ...figures }) => figures);
      expect(figures(after.logs)).toEqual(figures(before.logs));
    }
  });

  it('given the same export, when imported with --json into the embedded store and into EventStoreDB, then both summaries have the same members, counting what each run stored', async () => {
    // No tree head: EventStoreDB's import checks that one names admissions, which HISTORY's do not.
    const events = HISTORY.filter((event) => event.type !== 'TreeHeadSigned');
    const file = await exportOf(events);
    const embedded = await importEmbedded(file);
    const eventStoreDb = await importEventStoreDb(file);
    expect([embedded.code, eventStoreDb.code]).toEqual([EXIT.ok, EXIT.ok]);
    const summaries = [JSON.parse(embedded.stdout), JSON.parse(eventStoreDb.stdout)] as Record<
      string,
      unknown
    >[];
    expect(Object.keys(summaries[0]!)).toEqual(Object.keys(summaries[1]!));
    expect(summaries[0]).toMatchObject({
      file,
      store: `sqlite:${path.join(work.dir, 'events.db')}`,
      source: 'sqlite:/test/events.db',
      events: events.length,
      appended: events.length,
      already_imported: 0,
      last_position: events[events.length - 1]!.position,
    });
    expect(summaries[1]).toMatchObject({
      file,
      store: 'esdb://fake',
      events: events.length,
      appended: events.length,
      already_imported: 0,
      last_position: eventStoreDb.stored[eventStoreDb.stored.length - 1]!.position,
      sha256: summaries[0]!.sha256,
    });
  });
});
