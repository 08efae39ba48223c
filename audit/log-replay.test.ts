import { createHash } from 'node:crypto';
import { CompactRange, toHex } from '../merkle-core';
import type { TreeHeadFacts } from './event-facts';
import { LogReplay } from './log-replay';

const leaf = (n: number): Uint8Array => new Uint8Array(createHash('sha256').update(`leaf ${n}`).digest());

/** The root of leaves 0..size-1 as `leaf(n)` makes them. */
function rootOf(size: number): string {
  const range = new CompactRange();
  for (let i = 0; i < size; i++) range.append(leaf(i));
  return toHex(range.root());
}

let second = 0;
/** A tree head integrating `positions` from `first`, whose root is the honest one unless given. */
function head(first: number, positions: number[], root?: string): TreeHeadFacts {
  const size = first + positions.length;
  return {
    log: 'shared',
    origin: 'audit.example/log',
    treeSize: size,
    rootHash: root ?? rootOf(size),
    firstLeafIndex: first,
    leafPositions: positions,
    timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, ++second)).toISOString(),
    checkpoint: `checkpoint ${size}`,
  };
}

/** Admits leaf n at position 10 + n, as `leaf(n)`. */
function admit(replay: LogReplay, ...leaves: number[]): void {
  for (const n of leaves) replay.admit(10 + n, leaf(n));
}

const checks = (findings: { check: string }[]) => findings.map((f) => f.check);

describe('replaying the log', () => {
  it('given admissions integrated by honest tree heads, when replayed, then nothing is found, hooks see every leaf in order and every recomputed root', async () => {
    const leaves: number[] = [];
    const roots: [number, string, string][] = [];
    const replay = new LogReplay({
      onLeaf: (index, hash) => {
        expect(toHex(hash)).toBe(toHex(leaf(index)));
        leaves.push(index);
      },
      onTreeHead: (size, root, checkpoint) => {
        roots.push([size, toHex(root), checkpoint]);
      },
    });
    admit(replay, 0, 1, 2);
    expect(await replay.treeHead(20, head(0, [10, 11, 12]))).toEqual([]);
    expect(await replay.treeHead(21, head(3, []))).toEqual([]);
    admit(replay, 3);
    expect(await replay.treeHead(22, head(3, [13]))).toEqual([]);
    expect(leaves).toEqual([0, 1, 2, 3]);
    expect(roots).toEqual([
      [3, rootOf(3), 'checkpoint 3'],
      [3, rootOf(3), 'checkpoint 3'],
      [4, rootOf(4), 'checkpoint 4'],
    ]);
    expect(replay.finish()).toEqual({ treeSize: 4, rootHash: rootOf(4), notices: [] });
  });

  it('given a tree head whose root is not the root of its leaves, when replayed, then that root is reported and the next honest head checks out', async () => {
    const replay = new LogReplay();
    admit(replay, 0, 1);
    expect(checks(await replay.treeHead(20, head(0, [10, 11], rootOf(1))))).toEqual(['root-mismatch']);
    admit(replay, 2);
    expect(await replay.treeHead(21, head(2, [12]))).toEqual([]);
  });

  it('given admissions no tree head integrates, when finished, then they are a notice, not a finding', async () => {
    const replay = new LogReplay();
    admit(replay, 0, 1, 2);
    await replay.treeHead(20, head(0, [10]));
    const outcome = replay.finish();
    expect(outcome.treeSize).toBe(1);
    expect(outcome.notices).toEqual([
      expect.stringMatching(/^2 admission event\(s\) \(positions 11…12\) are not integrated/),
    ]);
  });

  it('given a tree head naming a position where no admission was read, when replayed, then it is reported, roots are unverifiable from there, once, and leaves stop at the gap', async () => {
    const seen: number[] = [];
    const replay = new LogReplay({ onLeaf: (index) => void seen.push(index) });
    admit(replay, 0, 2, 3);
    const findings = await replay.treeHead(20, head(0, [10, 11, 12]));
    expect(findings.map((f) => [f.check, f.leaf_index])).toEqual([
      ['leaf-position', 1],
      ['root-unverifiable', undefined],
    ]);
    expect(findings[0]!.message).toMatch(/position 11, where no admission event was read/);
    expect(await replay.treeHead(21, head(3, [13]))).toEqual([]);
    expect(seen).toEqual([0]);
    const outcome = replay.finish();
    expect(outcome).toMatchObject({ treeSize: 4, rootHash: null });
    expect(outcome.notices).toEqual([
      expect.stringMatching(/^1 more tree head\(s\) after leaf 1 could not be checked/),
    ]);
  });

  it('given an admission whose record cannot be read, when integrated, then roots are unverifiable from its tree head on', async () => {
    const replay = new LogReplay();
    replay.admit(10, null);
    expect(checks(await replay.treeHead(20, head(0, [10])))).toEqual(['root-unverifiable']);
  });

  it('given a tree head missing from the stream, when the next one starts ahead, then that is reported and the oldest pending admissions fill the gap, so its root still checks out', async () => {
    const replay = new LogReplay();
    admit(replay, 0, 1, 2, 3);
    // The head integrating positions 10 and 11 was dropped.
    const findings = await replay.treeHead(21, head(2, [12, 13]));
    expect(checks(findings)).toEqual(['first-leaf-index']);
    expect(findings[0]!.message).toMatch(
      /ahead of the 0 leaves .* its 2 leaves are taken to be the oldest pending/,
    );
    expect(replay.finish()).toEqual({ treeSize: 4, rootHash: rootOf(4), notices: [] });
  });

  it('given a tree head that starts behind the leaves already integrated, when replayed, then it is reported and later roots are unverifiable', async () => {
    const replay = new LogReplay();
    admit(replay, 0, 1);
    await replay.treeHead(20, head(0, [10, 11]));
    admit(replay, 2);
    expect(checks(await replay.treeHead(21, head(1, [12])))).toEqual([
      'first-leaf-index',
      'root-unverifiable',
    ]);
  });

  it('given a leaf integrated twice, when replayed, then the second time is reported', async () => {
    const replay = new LogReplay();
    admit(replay, 0);
    await replay.treeHead(20, head(0, [10]));
    const [finding] = await replay.treeHead(21, head(1, [10]));
    expect(finding).toMatchObject({ check: 'leaf-position', leaf_index: 1 });
    expect(finding!.message).toMatch(/at or before the last integrated admission/);
  });

  it('given a tree head naming a position at or after itself, when replayed, then it is reported', async () => {
    const replay = new LogReplay();
    const [finding] = await replay.treeHead(20, head(0, [25]));
    expect(finding!.message).toMatch(/position 25, which is not before the tree head \(position 20\)/);
  });

  it('given a tree head that integrates a later admission before an older pending one, when replayed, then the order is reported once', async () => {
    const replay = new LogReplay();
    admit(replay, 0, 1, 2);
    const findings = await replay.treeHead(20, {
      ...head(0, [11, 10, 12]),
      rootHash: (() => {
        const range = new CompactRange();
        for (const n of [1, 0, 2]) range.append(leaf(n));
        return toHex(range.root());
      })(),
    });
    expect(checks(findings)).toEqual(['leaf-order']);
  });

  it('given a tree head older than the previous one, when replayed, then its timestamp is reported', async () => {
    const replay = new LogReplay();
    await replay.treeHead(20, { ...head(0, []), timestamp: '2025-06-01T00:00:00.000Z' });
    expect(
      checks(await replay.treeHead(21, { ...head(0, []), timestamp: '2025-05-31T23:59:59.000Z' })),
    ).toEqual(['sth-timestamp']);
  });
});
