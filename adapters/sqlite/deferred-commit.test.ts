import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readStoreContract } from '../../ports/contract/read-store.contract';
import type { Change } from '../../ports/read-store';
import { openSqlite, type SqliteDatabase } from './open';
import { SqliteReadStore } from './read-store';

function tempFile(): { file: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deferred-commit-'));
  return { file: path.join(dir, 'read.db'), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

// Every promise of the port holds when applies are grouped: each settles only once committed.
readStoreContract('sqlite, applies committed in groups', async () => {
  const { file, remove } = tempFile();
  const store = new SqliteReadStore(file, { commitIntervalMs: 5 });
  return {
    store,
    dispose: async () => {
      await store.close();
      remove();
    },
  };
});

const upsert = (id: string, position: number, data: Record<string, unknown> = { id }): Change => ({
  kind: 'upsert',
  collection: 'docs',
  id,
  position,
  data,
});

describe('SqliteReadStore with grouped commits', () => {
  const INTERVAL_MS = 200;
  let file: string;
  let remove: () => void;
  let store: SqliteReadStore;
  /** Another connection to the same file: sees what is committed, nothing else. */
  let other: SqliteDatabase;
  const committedIds = () =>
    (
      other.prepare("SELECT id FROM documents WHERE collection = 'docs' ORDER BY id").all() as Array<{
        id: string;
      }>
    ).map((row) => row.id);

  beforeEach(() => {
    ({ file, remove } = tempFile());
    store = new SqliteReadStore(file, { commitIntervalMs: INTERVAL_MS });
    other = openSqlite(file, 'derived');
  });
  afterEach(async () => {
    await store.close();
    other.close();
    remove();
  });

  it('given applies issued together, then they commit as one transaction and each resolves only once committed', async () => {
    other.pragma('wal_autocheckpoint = 0');
    const settled: string[] = [];
    const first = store.apply([upsert('a', 1)]).then(() => settled.push('a'));
    const second = store
      .apply([upsert('b', 2)], { projector: 'p', position: 2 })
      .then(() => settled.push('b'));
    // Written, not yet committed: this connection reads them, another does not.
    expect(await store.get('docs', 'a')).not.toBeNull();
    expect(committedIds()).toEqual([]);
    expect(settled).toEqual([]);
    await Promise.all([first, second]);
    expect(committedIds()).toEqual(['a', 'b']);
    expect(await store.getCheckpoint('p')).toBe(2);
  });

  it('given a commit just made, when the next apply comes, then it waits out the interval before it commits', async () => {
    await store.apply([upsert('a', 1)]);
    const committedAt = performance.now();
    await store.apply([upsert('b', 2)]);
    expect(performance.now() - committedAt).toBeGreaterThanOrEqual(INTERVAL_MS - 5);
  });

  it('given a group, when one apply in it fails, then it alone is undone and rejected; the others commit', async () => {
    await store.apply([{ kind: 'upsert', collection: 'stats', id: 's', position: 1, data: { n: 'text' } }]);
    const good = store.apply([upsert('a', 2)]);
    const bad = store.apply([
      upsert('half-written', 3),
      { kind: 'increment', collection: 'stats', id: 's', position: 3, field: 'n', by: 1 },
    ]);
    const alsoGood = store.apply([upsert('b', 4)]);
    await expect(bad).rejects.toThrow(/holds a text, not a number/);
    await Promise.all([good, alsoGood]);
    expect(committedIds()).toEqual(['a', 'b']);
  });

  it('given the file cannot grow, when a write fails mid-group, then every apply that resolved is committed and every one that rejected is not', async () => {
    await store.apply([upsert('seed', 1)]);
    const pages = (other.pragma('page_count', { simple: true }) as number) + 2;
    const big = 'x'.repeat(3000);
    const applies = Array.from({ length: 20 }, (_, i) => {
      const id = `d${String(i).padStart(2, '0')}`;
      // Lowered after the group opened: the first writes fit, the later ones cannot.
      if (i === 3) (store as unknown as { db: SqliteDatabase }).db.pragma(`max_page_count = ${pages}`);
      return store.apply([upsert(id, 10 + i, { big })]).then(
        () => ({ id, committed: true }),
        () => ({ id, committed: false }),
      );
    });
    const outcomes = await Promise.all(applies);
    expect(outcomes.some((outcome) => !outcome.committed)).toBe(true);
    const visible = new Set(committedIds());
    for (const outcome of outcomes) expect(visible.has(outcome.id)).toBe(outcome.committed);
  });

  it('given an open group, when a write outside apply comes (a counter), then the group commits first', async () => {
    const grouped = store.apply([upsert('a', 1)]);
    await store.incrementCounter('windows', 'w', 1);
    expect(committedIds()).toEqual(['a']);
    await grouped;
  });

  it('given an open group, when the store closes, then the group is committed and its applies resolve', async () => {
    const grouped = store.apply([upsert('a', 1)]);
    await store.close();
    await grouped;
    expect(committedIds()).toEqual(['a']);
  });

  it('given a store on a shared connection, then it commits each apply at once (the connection has other writers)', async () => {
    const shared = openSqlite(path.join(path.dirname(file), 'shared.db'), 'derived');
    const onShared = new SqliteReadStore(shared, { commitIntervalMs: INTERVAL_MS });
    const started = performance.now();
    await onShared.apply([upsert('a', 1)]);
    await onShared.apply([upsert('b', 2)]);
    expect(performance.now() - started).toBeLessThan(INTERVAL_MS);
    expect(shared.inTransaction).toBe(false);
    await onShared.close();
    shared.close();
  });
});
