/** The witness's durable memory: what it cosigned per origin, written atomically, one process at a time. */
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../tests/support/temp-dir';
import { FileWitnessStateStore, WitnessStateError } from './state-file';

const root = (byte: number) => new Uint8Array(32).fill(byte);

describe('the witness state file', () => {
  let temp: { dir: string; remove: () => void };
  let file: string;

  beforeEach(() => {
    temp = tempDir('gov-witness-state');
    file = path.join(temp.dir, 'state.json');
  });
  afterEach(() => temp.remove());

  it('starts empty when the file does not exist, and keeps what was set across reopenings', () => {
    const first = FileWitnessStateStore.open(file, () => new Date('2026-01-01T00:00:00Z'));
    expect(first.get('log.example/a')).toBeUndefined();
    expect(first.compareAndSet('log.example/a', undefined, { size: 4, rootHash: root(1) })).toBe(true);
    expect(first.compareAndSet('log.example/b', undefined, { size: 9, rootHash: root(2) })).toBe(true);
    first.close();

    const again = FileWitnessStateStore.open(file);
    expect(again.get('log.example/a')).toEqual({ size: 4, rootHash: root(1) });
    expect(again.get('log.example/b')).toEqual({ size: 9, rootHash: root(2) });
    again.close();
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
      format: 'gov-witness-state/1',
      logs: {
        'log.example/a': { size: 4, root_hash: '01'.repeat(32), updated_at: '2026-01-01T00:00:00.000Z' },
        'log.example/b': { size: 9, root_hash: '02'.repeat(32), updated_at: '2026-01-01T00:00:00.000Z' },
      },
    });
  });

  it('changes nothing, in memory or on disk, when the expected state is not the current one', () => {
    const store = FileWitnessStateStore.open(file);
    store.compareAndSet('log.example/a', undefined, { size: 4, rootHash: root(1) });
    const before = fs.readFileSync(file, 'utf8');
    expect(store.compareAndSet('log.example/a', undefined, { size: 8, rootHash: root(3) })).toBe(false);
    expect(
      store.compareAndSet('log.example/a', { size: 4, rootHash: root(9) }, { size: 8, rootHash: root(3) }),
    ).toBe(false);
    expect(store.get('log.example/a')).toEqual({ size: 4, rootHash: root(1) });
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    store.close();
  });

  it('replaces the file by rename, leaving no temporary file behind', () => {
    const store = FileWitnessStateStore.open(file);
    for (let size = 1; size <= 3; size++) {
      const expected = store.get('log.example/a');
      expect(store.compareAndSet('log.example/a', expected, { size, rootHash: root(size) })).toBe(true);
    }
    store.close();
    expect(fs.readdirSync(temp.dir)).toEqual(['state.json']);
  });

  it('refuses a file it cannot read as a state, saying to restore it rather than start over', () => {
    fs.writeFileSync(file, '{"format":"gov-witness-state/1","logs":{"log.example/a":{"size":-1}}}');
    expect(() => FileWitnessStateStore.open(file)).toThrow(WitnessStateError);
    expect(() => FileWitnessStateStore.open(file)).toThrow(/log\.example\/a.*Restore it from a backup/);
    fs.writeFileSync(file, 'not json');
    expect(() => FileWitnessStateStore.open(file)).toThrow(/not JSON/);
    // A refused open leaves no lock behind.
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });
});
