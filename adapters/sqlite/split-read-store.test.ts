import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readStoreContract } from '../../ports/contract/read-store.contract';
import { moveToSideStore } from './move-to-side-store';
import { SqliteReadStore } from './read-store';
import { SplitReadStore } from './split-read-store';

function tempDir(): { dir: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'split-read-store-'));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

// The contract, with every name kept in the side file and then every name in the main one.
for (const [label, owns] of [
  ['side', () => true],
  ['main', () => false],
] as const) {
  readStoreContract(`sqlite, split in two files, all in the ${label} file`, async () => {
    const { dir, remove } = tempDir();
    const store = SplitReadStore.open(path.join(dir, 'main.db'), path.join(dir, 'side.db'), owns);
    return {
      store,
      dispose: async () => {
        await store.close();
        remove();
      },
    };
  });
}

/** `cases` and `side…` names go to the side file. */
const sideOwns = (name: string) => /^(cases|side)/.test(name);

describe('SplitReadStore', () => {
  let dir: string;
  let remove: () => void;
  let mainFile: string;
  let sideFile: string;

  beforeEach(() => {
    ({ dir, remove } = tempDir());
    mainFile = path.join(dir, 'main.db');
    sideFile = path.join(dir, 'side.db');
  });
  afterEach(() => remove());

  /** What each file holds, read without the split. */
  async function inFile(file: string, collection: string, id: string) {
    const plain = new SqliteReadStore(file);
    try {
      return await plain.get(collection, id);
    } finally {
      await plain.close();
    }
  }

  it('given changes of the side and of the main file, when applied, then each file holds only its own', async () => {
    const store = SplitReadStore.open(mainFile, sideFile, sideOwns);
    await store.apply([{ kind: 'upsert', collection: 'cases', id: '1', position: 1, data: { n: 1 } }], {
      projector: 'side-projector',
      position: 1,
    });
    await store.apply([{ kind: 'upsert', collection: 'leaves', id: '1', position: 2, data: { n: 2 } }], {
      projector: 'governance',
      position: 2,
    });
    expect((await store.get('cases', '1'))?.data).toEqual({ n: 1 });
    expect((await store.get('leaves', '1'))?.data).toEqual({ n: 2 });
    await store.close();

    expect(await inFile(sideFile, 'cases', '1')).not.toBeNull();
    expect(await inFile(mainFile, 'cases', '1')).toBeNull();
    expect(await inFile(mainFile, 'leaves', '1')).not.toBeNull();
    expect(await inFile(sideFile, 'leaves', '1')).toBeNull();
  });

  it('given one batch with changes for both files, when applied, then it is refused and nothing is written', async () => {
    const store = SplitReadStore.open(mainFile, sideFile, sideOwns);
    await expect(
      store.apply(
        [
          { kind: 'upsert', collection: 'cases', id: '1', position: 1, data: {} },
          { kind: 'upsert', collection: 'leaves', id: '1', position: 1, data: {} },
        ],
        { projector: 'side-projector', position: 1 },
      ),
    ).rejects.toThrow(/cannot span both read-store files: leaves/);
    expect(await store.get('cases', '1')).toBeNull();
    expect(await store.getCheckpoint('side-projector')).toBeNull();
    await store.close();
  });

  it('given a main file written before the split, when opened split, then the side state is moved over once and nothing else', async () => {
    const before = new SqliteReadStore(mainFile);
    await before.apply(
      [
        { kind: 'upsert', collection: 'cases', id: 'queued', position: 7, data: { attempt: 1 } },
        { kind: 'upsert', collection: 'cases', id: 'sent', position: 8, data: { attempt: 2 } },
      ],
      { projector: 'side-projector', position: 8 },
    );
    await before.apply([{ kind: 'upsert', collection: 'leaves', id: 'l', position: 9, data: {} }], {
      projector: 'governance',
      position: 9,
    });
    await before.close();

    const store = SplitReadStore.open(mainFile, sideFile, sideOwns);
    expect((await store.get('cases', 'queued'))?.data).toEqual({ attempt: 1 });
    expect(await store.getCheckpoint('side-projector')).toBe(8);
    expect(await store.getCheckpoint('governance')).toBe(9);
    expect(await store.count('cases')).toBe(2);
    await store.close();
    // The main file no longer holds what moved; the side file holds nothing of the main's.
    expect(await inFile(mainFile, 'cases', 'queued')).toBeNull();
    expect(await inFile(sideFile, 'leaves', 'l')).toBeNull();
    expect(await inFile(mainFile, 'leaves', 'l')).not.toBeNull();

    // Opened again (or by a second process), nothing is moved twice.
    expect(moveToSideStore(mainFile, sideFile, sideOwns)).toBeNull();
  });

  it('given a side file that was already split, when the main file gains a stray side document, then it is not moved again', async () => {
    SplitReadStore.open(mainFile, sideFile, sideOwns).close();
    const stray = new SqliteReadStore(mainFile);
    await stray.apply([{ kind: 'upsert', collection: 'cases', id: 'stray', position: 1, data: {} }]);
    await stray.close();
    const store = SplitReadStore.open(mainFile, sideFile, sideOwns);
    expect(await store.get('cases', 'stray')).toBeNull();
    await store.close();
  });
});
