import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readStoreContract } from '../../ports/contract/read-store.contract';
import type { Change } from '../../ports/read-store';
import { openSqlite, type SqliteDatabase } from './open';
import { SqliteReadStore } from './read-store';

/** A fresh directory per store, removed on dispose. */
function tempFile(): { file: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'read-store-'));
  return { file: path.join(dir, 'read.db'), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

readStoreContract('sqlite', async () => {
  const { file, remove } = tempFile();
  const store = new SqliteReadStore(file);
  return {
    store,
    dispose: async () => {
      await store.close();
      remove();
    },
  };
});

function upserts(collection: string, count: number, firstPosition = 1): Change[] {
  return Array.from({ length: count }, (_, i) => ({
    kind: 'upsert',
    collection,
    id: `doc-${i}`,
    position: firstPosition + i,
    data: {
      tenant: `t${i % 10}`,
      recorded_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
      n: i,
    },
  }));
}

describe('SqliteReadStore (SQLite specifics)', () => {
  let db: SqliteDatabase;
  let store: SqliteReadStore;
  let remove: () => void;

  beforeEach(() => {
    const temp = tempFile();
    remove = temp.remove;
    db = openSqlite(temp.file);
    store = new SqliteReadStore(db);
  });
  afterEach(async () => {
    await store.close();
    db.close();
    remove();
  });

  /** The plan does not depend on the bound values, so NULLs stand in for them. */
  const plan = (sql: string) => {
    const explain = db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
    const params = Array.from(sql.matchAll(/\?/g), () => null);
    return (explain.all(...params) as { detail: string }[]).map((row) => row.detail).join('\n');
  };

  it('given a shared database, when the store closes, then the database stays open for its owner', async () => {
    await store.close();
    expect(db.open).toBe(true);
  });

  it('given an index on the filtered and sorted members, then a find is an index search, not a scan', async () => {
    await store.ensureIndex({ collection: 'events', fields: ['tenant', 'recorded_at'] });
    await store.apply(upserts('events', 500));
    const query = {
      where: { tenant: 't3' },
      sort: { field: 'recorded_at', direction: 'desc' as const },
      limit: 5,
    };
    const first = await store.find('events', query);

    const prepare = jest.spyOn(db, 'prepare');
    await store.find('events', { ...query, cursor: first.nextCursor });
    const sql = String(prepare.mock.calls[0]?.[0]);
    prepare.mockRestore();

    const detail = plan(sql);
    expect(detail).toContain('USING INDEX read:events:tenant,recorded_at');
    expect(detail).not.toMatch(/\bSCAN\b/);
    expect(detail).not.toContain('TEMP B-TREE');
  });

  it('given an index on a member and only a range on it, then a find after a position reads through the index, not the whole collection', async () => {
    await store.ensureIndex({ collection: 'queue', fields: ['n'] });
    await store.apply(upserts('queue', 2000));
    const prepare = jest.spyOn(db, 'prepare');
    const page = await store.find('queue', {
      range: { n: { gt: 1990 } },
      sort: { field: 'n', direction: 'asc' },
      limit: 500,
    });
    const sql = String(prepare.mock.calls[0]?.[0]);
    prepare.mockRestore();

    expect(page.items.map((item) => item.data)).toHaveLength(9);
    const detail = plan(sql);
    // The primary key's collection prefix would match every document of the collection.
    expect(detail).toContain('USING INDEX read:queue:n');
    expect(detail).not.toContain('PRIMARY KEY');
    expect(detail).not.toContain('TEMP B-TREE');
  });

  it('given an index on the filtered members, then a count with a filter and a range reads only the index entries in the range', async () => {
    await store.ensureIndex({ collection: 'events', fields: ['tenant', 'recorded_at'] });
    await store.apply(upserts('events', 500));
    const prepare = jest.spyOn(db, 'prepare');
    const count = await store.count(
      'events',
      { tenant: 't3' },
      { recorded_at: { gte: '2026-01-01T00:01:00.000Z', lt: '2026-01-01T00:02:00.000Z' } },
    );
    const sql = String(prepare.mock.calls[0]?.[0]);
    prepare.mockRestore();

    expect(count).toBe(6); // documents 63, 73, …, 113: t3 within the minute from 00:01
    const detail = plan(sql);
    // Equality on the first indexed member, both bounds on the second: a range of index entries.
    expect(detail).toMatch(
      /USING (COVERING )?INDEX read:events:tenant,recorded_at \(<expr>=\? AND <expr>>\? AND <expr><\?\)/,
    );
    expect(detail).not.toMatch(/\bSCAN\b/);
  });

  it('given an existing file, when a store opens it, then the planner statistics for its indexes are in place', async () => {
    await store.ensureIndex({ collection: 'queue', fields: ['n', 'tenant'] });
    const reopened = new SqliteReadStore(db);
    const stats = db.prepare("SELECT idx, stat FROM sqlite_stat1 WHERE tbl = 'documents' ORDER BY idx").all();
    expect(stats).toEqual([
      { idx: 'read:queue:n,tenant', stat: '1000000 10 1 1' },
      { idx: 'sqlite_autoindex_documents_1', stat: '1000000 100000 1' },
    ]);
    await reopened.close();
  });

  it('given a file of an older release (documents WITHOUT ROWID), when a store opens it, then documents read and write as before and its key has its statistics', async () => {
    const older = tempFile();
    const file = openSqlite(older.file);
    file.exec(`CREATE TABLE documents (collection TEXT NOT NULL, id TEXT NOT NULL, position INTEGER NOT NULL,
      deleted INTEGER NOT NULL DEFAULT 0, data TEXT NOT NULL, PRIMARY KEY (collection, id)) WITHOUT ROWID`);
    file.prepare("INSERT INTO documents VALUES ('queue', 'kept', 1, 0, '{\"n\":1}')").run();
    const opened = new SqliteReadStore(file);
    try {
      await opened.apply(upserts('queue', 3, 10));
      expect((await opened.get('queue', 'kept'))?.data).toEqual({ n: 1 });
      expect(await opened.count('queue')).toBe(4);
      expect(file.prepare("SELECT idx FROM sqlite_stat1 WHERE tbl = 'documents'").pluck().all()).toEqual([
        'documents',
      ]);
    } finally {
      await opened.close();
      file.close();
      older.remove();
    }
  });

  it('given an index, then it is partial to its collection and leaves deleted documents out', async () => {
    await store.ensureIndex({ collection: 'events', fields: ['tenant'] });
    const row = db
      .prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?")
      .get('read:events:tenant') as {
      sql: string;
    };
    expect(row.sql).toContain("json_extract(data, '$.tenant'), id");
    expect(row.sql).toContain("WHERE collection = 'events' AND deleted = 0");
  });

  it('given a name outside [A-Za-z0-9_.], then ensureIndex rejects it before any SQL runs', async () => {
    await expect(store.ensureIndex({ collection: "x' OR '1'='1", fields: ['a'] })).rejects.toThrow(
      /collection name/,
    );
    await expect(
      store.ensureIndex({ collection: 'x', fields: ['a"); DROP TABLE documents; --'] }),
    ).rejects.toThrow(/member path/);
    await expect(store.ensureIndex({ collection: 'x', fields: [] })).rejects.toThrow();
  });

  it('given a batch of 1000 upserts, then apply commits it as one transaction', async () => {
    db.pragma('wal_autocheckpoint = 0');
    db.pragma('wal_checkpoint(TRUNCATE)');
    await store.apply(upserts('events', 1000), { projector: 'p', position: 1000 });
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)') as [{ log: number }];
    // One commit writes each touched page once; a commit per change would append ≥ 1000 frames.
    expect(log).toBeGreaterThan(0);
    expect(log).toBeLessThan(200);
    expect(await store.count('events')).toBe(1000);
  });

  it('given a warmed-up store, then apply and repeated finds prepare no statements', async () => {
    await store.apply(upserts('events', 10));
    await store.find('events', { where: { tenant: 't1' }, limit: 3 });
    const prepare = jest.spyOn(db, 'prepare');
    await store.apply(upserts('events', 1000, 100));
    await store.apply([
      { kind: 'increment', collection: 'stats', id: 's', position: 5000, field: 'n', by: 1 },
    ]);
    await store.find('events', { where: { tenant: 't2' }, limit: 3 });
    expect(prepare).not.toHaveBeenCalled();
    prepare.mockRestore();
  });

  it('given 1000 upserts, then apply takes well under 20 ms', async () => {
    await store.apply(upserts('warmup', 1000));
    const timings: number[] = [];
    for (let round = 0; round < 5; round++) {
      const started = process.hrtime.bigint();
      await store.apply(upserts(`events${round}`, 1000, round * 1000 + 1), {
        projector: 'p',
        position: round * 1000,
      });
      timings.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    timings.sort((a, b) => a - b);
    expect(timings[2]).toBeLessThan(20);
  });

  it('given integer increments, then the stored JSON keeps integers (no 3.0)', async () => {
    await store.apply([{ kind: 'increment', collection: 'stats', id: 's', position: 1, field: 'n', by: 3 }]);
    await store.incrementCounter('windows', 'w', 2);
    const rows = db
      .prepare('SELECT data FROM documents WHERE collection IN (?, ?) ORDER BY collection')
      .all('stats', 'windows');
    expect(rows).toEqual([{ data: '{"n":3}' }, { data: '{"value":2}' }]);
  });

  it('given a cursor from one filter, when used with another filter, then find rejects', async () => {
    await store.apply(upserts('events', 30));
    const first = await store.find('events', { where: { tenant: 't1' }, limit: 1 });
    expect(first.nextCursor).not.toBeNull();
    await expect(
      store.find('events', { where: { tenant: 't2' }, limit: 1, cursor: first.nextCursor }),
    ).rejects.toThrow(/different collection or filter/);
  });

  it('given a page size, then a file the store creates has it, and a file made before keeps its own', async () => {
    const temp = tempFile();
    const pageSize = (file: string) => {
      const probe = openSqlite(file);
      const size = probe.pragma('page_size', { simple: true });
      probe.close();
      return size;
    };
    const created = new SqliteReadStore(temp.file, { pageBytes: 8192 });
    await created.apply([{ kind: 'upsert', collection: 'c', id: 'x', position: 1, data: { ok: true } }]);
    await created.close();
    expect(pageSize(temp.file)).toBe(8192);

    const older = `${temp.file}.older`;
    await new SqliteReadStore(older).close();
    const reopened = new SqliteReadStore(older, { pageBytes: 8192 });
    await reopened.apply([{ kind: 'upsert', collection: 'c', id: 'y', position: 1, data: { ok: true } }]);
    expect(await reopened.get('c', 'y')).toMatchObject({ data: { ok: true } });
    await reopened.close();
    expect(pageSize(older)).toBe(4096);
    temp.remove();
  });

  it('given a file path, then the store opens its own database and closes it', async () => {
    const temp = tempFile();
    const own = new SqliteReadStore(temp.file);
    await own.apply([{ kind: 'upsert', collection: 'c', id: 'x', position: 1, data: { ok: true } }]);
    await own.close();
    const reopened = new SqliteReadStore(temp.file);
    expect(await reopened.get('c', 'x')).toEqual({ id: 'x', position: 1, data: { ok: true } });
    await reopened.close();
    temp.remove();
  });
});
