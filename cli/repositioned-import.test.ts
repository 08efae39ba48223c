/**
 * `gov import` into EventStoreDB (importWithNewPositions), on the in-memory imitation of its client,
 * which gives events commit positions of its own as a server does: the export is verified whole before
 * anything is appended; events keep their ids, streams, revisions, data and recorded_at, tree heads
 * name the admissions' new positions; a store that holds events is refused; an import that stops part
 * way continues with `resume`, and only from the export's own beginning.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EsdbClient } from '../adapters/eventstoredb/event-store';
import { EsdbEventStore } from '../adapters/eventstoredb/event-store';
import { ExportIntegrityError } from '../adapters/ndjson/export-file';
import type { RecordedEvent } from '../ports/event-store';
import { LeafPositionError } from '../projectors/log/leaf-positions';
import { writeExportFile } from '../tests/support/export-files';
import { FakeEsdbClient } from '../tests/support/fake-esdb-client';
import { eventsModuloPositions } from '../tests/support/store-positions';
import { tempDir } from '../tests/support/temp-dir';
import {
  ImportInterruptedError,
  ImportRefusedError,
  importWithNewPositions,
  TargetNotEmptyError,
} from './repositioned-import';

/** A small log as the embedded store records it: dense positions, tenants' admissions, tree heads. */
function history(): RecordedEvent[] {
  const events: RecordedEvent[] = [];
  const revisions = new Map<string, number>();
  const add = (stream: string, type: string, data: Record<string, unknown>) => {
    const revision = revisions.get(stream) ?? 0;
    revisions.set(stream, revision + 1);
    const position = events.length + 1;
    events.push({
      id: randomUUID(),
      type,
      stream,
      revision,
      position,
      recorded_at: new Date(Date.UTC(2024, 1, 29, 12, 0, position)).toISOString(),
      tenant_id: stream === 'merkle-log' ? 'system' : stream,
      correlation_id: `c-${position}`,
      causation_id: null,
      schema_version: 1,
      data,
    });
    return position;
  };
  let size = 0;
  const head = (leaves: number[]) => {
    add('merkle-log', 'TreeHeadSigned', {
      tree_size: size + leaves.length,
      first_leaf_index: size,
      leaf_positions: leaves,
    });
    size += leaves.length;
  };
  head([]);
  add('tenant-a', 'TenantRegistered', { n: 1 });
  add('tenant-b', 'TenantRegistered', { n: 2 });
  const first = [
    add('tenant-a', 'EvidenceAdmitted', { n: 3 }),
    add('tenant-b', 'EvidenceAdmitted', { n: 4 }),
  ];
  add('tenant-a', 'GateFailed', { n: 5 });
  head(first);
  const second = [add('tenant-b', 'ExecutionAdmitted', { n: 6 })];
  head(second);
  add('tenant-a', 'EvidenceAdmitted', { n: 7 }); // the sequencer had not integrated it yet
  return events;
}

describe('importing a gov export into EventStoreDB (on the imitation of its client)', () => {
  let work: ReturnType<typeof tempDir>;
  let source: RecordedEvent[];
  let exportFile: string;
  let client: FakeEsdbClient;
  let store: EsdbEventStore;

  beforeEach(async () => {
    work = tempDir('gov-esdb-import');
    source = history();
    exportFile = await exported(source, 'events.ndjson');
    client = new FakeEsdbClient();
    store = new EsdbEventStore(client as unknown as EsdbClient);
  });
  afterEach(async () => {
    await store.close();
    work.remove();
  });

  const exported = (events: RecordedEvent[], name: string) =>
    writeExportFile(events, path.join(work.dir, name));

  const stored = async () => {
    const events: RecordedEvent[] = [];
    for await (const event of store.readAll()) events.push(event);
    return events;
  };
  /** Nothing of ours in the database: no event, and not even an id claim. */
  const expectNothingWritten = async () => {
    expect(await stored()).toEqual([]);
    expect(client.streamNames('gov-event-id-')).toEqual([]);
  };

  it('given an empty database, then every event is stored in order with its id, stream, revision, data and recorded_at, at positions of its own, and tree heads name the admissions by those', async () => {
    const phases: string[] = [];
    const result = await importWithNewPositions({
      file: exportFile,
      target: store,
      onProgress: (phase) => {
        if (phases[phases.length - 1] !== phase) phases.push(phase);
      },
    });
    const events = await stored();
    expect(eventsModuloPositions(events)).toEqual(eventsModuloPositions(source));
    expect(events.map((e) => e.position)).not.toEqual(source.map((e) => e.position));
    const heads = events.filter((e) => e.type === 'TreeHeadSigned');
    const admissions = events.filter((e) => /Admitted$/.test(e.type));
    expect(heads.map((e) => (e.data as { leaf_positions: number[] }).leaf_positions)).toEqual([
      [],
      [admissions[0]!.position, admissions[1]!.position],
      [admissions[2]!.position],
    ]);
    expect(result).toMatchObject({
      appended: source.length,
      kept: 0,
      last_position: events[events.length - 1]!.position,
      unintegrated: 1,
      trailer: { events: source.length },
    });
    expect(phases).toEqual(['verify', 'import']);
  });

  it('given an export with one byte flipped, then the checksum fails before anything is appended', async () => {
    const bytes = fs.readFileSync(exportFile);
    const at = bytes.lastIndexOf('"n":7') + 4;
    bytes[at] = '8'.charCodeAt(0);
    fs.writeFileSync(exportFile, bytes);
    await expect(importWithNewPositions({ file: exportFile, target: store })).rejects.toThrow(
      ExportIntegrityError,
    );
    await expect(importWithNewPositions({ file: exportFile, target: store })).rejects.toThrow(
      /checksum mismatch/,
    );
    await expectNothingWritten();
  });

  it('given a tree head naming a position where no admission waits, then LeafPositionError before anything is appended', async () => {
    const broken = source.map((event) =>
      event.type === 'TreeHeadSigned' && event.revision === 2
        ? { ...event, data: { ...(event.data as object), leaf_positions: [3] } }
        : event,
    );
    const file = await exported(broken, 'broken.ndjson');
    await expect(importWithNewPositions({ file, target: store })).rejects.toThrow(LeafPositionError);
    await expect(importWithNewPositions({ file, target: store })).rejects.toThrow(
      /integrates position 3, which is not an admission event imported before it and not integrated yet/,
    );
    await expectNothingWritten();
  });

  it('given an event EventStoreDB would store differently (an upper-case id), then refused before anything is appended', async () => {
    const last = source.length - 1;
    const file = await exported(
      source.map((event, i) => (i === last ? { ...event, id: event.id.toUpperCase() } : event)),
      'upper.ndjson',
    );
    await expect(importWithNewPositions({ file, target: store })).rejects.toThrow(ImportRefusedError);
    await expect(importWithNewPositions({ file, target: store })).rejects.toThrow(
      new RegExp(`position ${source.length} .*not a lower-case UUID`),
    );
    await expectNothingWritten();
  });

  it('given a database that already holds an event, then TargetNotEmptyError and nothing more is written', async () => {
    await store.append('other', [{ type: 'Was', data: {}, tenant_id: 't', correlation_id: 'c' }]);
    const before = await stored();
    await expect(importWithNewPositions({ file: exportFile, target: store })).rejects.toBeInstanceOf(
      TargetNotEmptyError,
    );
    expect(await stored()).toEqual(before);
  });

  it('when the connection is lost part way, then the error says how many events are stored; resumed, the import appends the rest once and ends as if it had never stopped', async () => {
    const flaky = new EsdbEventStore(failingAfter(client, 4));
    const failure = await importWithNewPositions({ file: exportFile, target: flaky }).catch(
      (e: unknown) => e,
    );
    await flaky.close();
    expect(failure).toBeInstanceOf(ImportInterruptedError);
    expect(failure).toMatchObject({ appended: 4, kept: 0, total: source.length });
    expect((failure as Error).message).toMatch(/UNAVAILABLE/);
    expect(await stored()).toHaveLength(4);

    await expect(importWithNewPositions({ file: exportFile, target: store })).rejects.toBeInstanceOf(
      TargetNotEmptyError,
    );
    const resumed = await importWithNewPositions({ file: exportFile, target: store, resume: true });
    expect(resumed).toMatchObject({ kept: 4, appended: source.length - 4 });
    expect(eventsModuloPositions(await stored())).toEqual(eventsModuloPositions(source));

    const again = await importWithNewPositions({ file: exportFile, target: store, resume: true });
    expect(again).toMatchObject({ kept: source.length, appended: 0 });
    expect(await stored()).toHaveLength(source.length);
  });

  it('given --resume on a database holding other events, then refused, naming the first difference, and nothing is appended', async () => {
    const other = await exported(history(), 'other.ndjson');
    await importWithNewPositions({ file: other, target: store });
    const before = await stored();
    await expect(importWithNewPositions({ file: exportFile, target: store, resume: true })).rejects.toThrow(
      /--resume: the store does not hold the beginning of this export: its event 1 .* is not the export's event 1/,
    );
    expect(await stored()).toEqual(before);
  });
});

/** The client, except that appends of events (not id claims) fail after `appends` of them: a lost node. */
function failingAfter(client: FakeEsdbClient, appends: number): EsdbClient {
  let left = appends;
  const append: EsdbClient['appendToStream'] = (async (stream: string, ...rest: unknown[]) => {
    if (!stream.startsWith('gov-event-id-') && left-- <= 0)
      throw new Error('14 UNAVAILABLE: Connection dropped');
    return (client.appendToStream as (...args: unknown[]) => unknown)(stream, ...rest);
  }) as EsdbClient['appendToStream'];
  return {
    appendToStream: append,
    readStream: client.readStream.bind(client),
    readAll: client.readAll.bind(client),
    subscribeToAll: client.subscribeToAll.bind(client),
    dispose: client.dispose.bind(client),
  } as unknown as EsdbClient;
}
