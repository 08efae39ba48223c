/** A witness round: given its state and the checkpoint a log serves, it cosigns or it refuses. */
import fs from 'node:fs';
import path from 'node:path';
import {
  addSignatureLines,
  generateKeyPair,
  loadSignerKey,
  loadVerifierKey,
  SIGNATURE_TYPE_COSIGNATURE_V1,
  toHex,
  verifyCosignature,
} from '../merkle-core';
import { checkpointOf, FakeLogKey, type FakeLogView, fakeTree } from '../tests/support/fake-log';
import { tempDir } from '../tests/support/temp-dir';
import { WitnessFollower } from './follower';
import { type LogClient, LogClientError, type SubmittedCosignature } from './log-client';
import { FileWitnessStateStore } from './state-file';

const NOW = Date.UTC(2026, 0, 15, 12);
const witnessKeys = generateKeyPair('witness.example', SIGNATURE_TYPE_COSIGNATURE_V1);
const cosigner = loadSignerKey(witnessKeys.signerKey);
const witnessVerifier = loadVerifierKey(witnessKeys.verifierKey);

/** A log client over a view the test changes between rounds; it records what the witness asked. */
class ScriptedLog implements LogClient {
  readonly url = 'http://log.test/gov/v1/log';
  readonly proofsAsked: [number, number][] = [];
  readonly submitted: { treeSize: number; cosignature: string }[] = [];
  /** Runs when a cosignature is submitted, before it is accepted. */
  onSubmit: () => void = () => {};
  failSubmit = false;

  constructor(public view: FakeLogView) {}

  async checkpoint(): Promise<string> {
    return this.view.note;
  }

  async consistencyProof(from: number, to: number): Promise<Uint8Array[]> {
    this.proofsAsked.push([from, to]);
    return this.view.tree.consistencyProof(from, to);
  }

  async submitCosignature(treeSize: number, cosignature: string): Promise<SubmittedCosignature> {
    this.onSubmit();
    if (this.failSubmit) throw new LogClientError('POST witness-signatures answered 503: try later', 503);
    this.submitted.push({ treeSize, cosignature });
    return {
      tree_size: treeSize,
      witness_key: witnessKeys.verifierKey,
      timestamp: 0,
      cosignature,
      sth: { tree_size: treeSize, witness_signatures: [] },
    };
  }
}

describe('a witness round', () => {
  const logKey = new FakeLogKey('log.example/witnessed');
  let temp: { dir: string; remove: () => void };
  let stateFile: string;
  let state: FileWitnessStateStore;

  beforeEach(() => {
    temp = tempDir('gov-witness-round');
    stateFile = path.join(temp.dir, 'state.json');
    state = FileWitnessStateStore.open(stateFile);
  });
  afterEach(() => {
    state.close();
    temp.remove();
  });

  const followerOf = (log: LogClient) =>
    new WitnessFollower({ client: log, logKey: logKey.verifier, cosigner, state, now: () => NOW });

  async function servedAt(size: number, rewrite: Record<number, string> = {}): Promise<FakeLogView> {
    const tree = await fakeTree(Math.max(size, 1), rewrite);
    return { tree, size, note: checkpointOf(tree, size, logKey) };
  }

  it('given a log it has never seen, when a round runs, then it cosigns the checkpoint with an empty proof and records its size and root', async () => {
    const log = new ScriptedLog(await servedAt(5));
    const outcome = await followerOf(log).round();

    expect(outcome).toMatchObject({
      kind: 'cosigned',
      origin: logKey.origin,
      previous: null,
      checkpoint: { size: 5 },
    });
    expect(log.proofsAsked).toEqual([]);
    expect(log.submitted).toHaveLength(1);
    const verdict = await verifyCosignature(
      addSignatureLines(log.view.note, [log.submitted[0]!.cosignature]),
      witnessVerifier,
    );
    expect(verdict).toMatchObject({ ok: true, timestamp: NOW / 1000, checkpoint: { size: 5 } });
    expect(state.get(logKey.origin)).toEqual({ size: 5, rootHash: log.view.tree.root(5) });
  });

  it('given two logs of one server (shared and test, each its own key and origin) in one state file, when each is followed, then each keeps its own cosigned tree', async () => {
    const testKey = new FakeLogKey(`${logKey.origin}/test`);
    const shared = new ScriptedLog(await servedAt(5));
    const testTree = await fakeTree(3, { 1: 'test leaf' });
    const test = new ScriptedLog({ tree: testTree, size: 3, note: checkpointOf(testTree, 3, testKey) });
    const testFollower = new WitnessFollower({
      client: test,
      logKey: testKey.verifier,
      cosigner,
      state,
      now: () => NOW,
    });
    expect(await followerOf(shared).round()).toMatchObject({ kind: 'cosigned', origin: logKey.origin });
    expect(await testFollower.round()).toMatchObject({
      kind: 'cosigned',
      origin: testKey.origin,
      previous: null,
    });
    expect(state.get(logKey.origin)).toEqual({ size: 5, rootHash: shared.view.tree.root(5) });
    expect(state.get(testKey.origin)).toEqual({ size: 3, rootHash: testTree.root(3) });
    // The test log rolled back: refused there, the shared log's tree untouched.
    test.view = { tree: testTree, size: 2, note: checkpointOf(testTree, 2, testKey) };
    expect(await testFollower.round()).toMatchObject({ kind: 'refused', origin: testKey.origin });
    // A checkpoint of the test log signed with the shared log's key is not the test log's.
    test.view = { tree: testTree, size: 3, note: checkpointOf(testTree, 3, logKey) };
    expect(await testFollower.round()).toMatchObject({ kind: 'refused' });
    expect(state.get(logKey.origin)).toEqual({ size: 5, rootHash: shared.view.tree.root(5) });
    expect(state.get(testKey.origin)).toEqual({ size: 3, rootHash: testTree.root(3) });
  });

  it('given a cosigned size, when the log has grown consistently, then it checks the proof from that size and cosigns the new one', async () => {
    const log = new ScriptedLog(await servedAt(5));
    const follower = followerOf(log);
    await follower.round();
    log.view = await servedAt(12);

    const outcome = await follower.round();

    expect(outcome).toMatchObject({ kind: 'cosigned', previous: { size: 5 }, checkpoint: { size: 12 } });
    expect(log.proofsAsked).toEqual([[5, 12]]);
    expect(log.submitted.map((s) => s.treeSize)).toEqual([5, 12]);
    expect(state.get(logKey.origin)?.size).toBe(12);
  });

  it('writes the state file before the cosignature leaves the process', async () => {
    const log = new ScriptedLog(await servedAt(7));
    let onDisk: unknown;
    log.onSubmit = () => {
      onDisk = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
    };
    await followerOf(log).round();
    expect(onDisk).toMatchObject({
      logs: { [logKey.origin]: { size: 7, root_hash: toHex(log.view.tree.root(7)) } },
    });
  });

  it('given the log still serves the cosigned tree with this cosignature, when a round runs, then it does nothing', async () => {
    const log = new ScriptedLog(await servedAt(5));
    const follower = followerOf(log);
    await follower.round();
    log.view = { ...log.view, note: addSignatureLines(log.view.note, [log.submitted[0]!.cosignature]) };

    expect(await follower.round()).toMatchObject({ kind: 'up-to-date', checkpoint: { size: 5 } });
    expect(log.submitted).toHaveLength(1);
  });

  it('given a cosignature the log did not take, when the next round sees the same tree, then it cosigns it again', async () => {
    const log = new ScriptedLog(await servedAt(5));
    const follower = followerOf(log);
    log.failSubmit = true;
    await expect(follower.round()).rejects.toThrow(
      new LogClientError(
        `cosigned ${logKey.origin} at size 5 (state saved), but the log did not take the cosignature: POST witness-signatures answered 503: try later. The next round sends it again.`,
      ),
    );
    expect(state.get(logKey.origin)?.size).toBe(5);

    log.failSubmit = false;
    expect(await follower.round()).toMatchObject({
      kind: 'cosigned',
      previous: { size: 5 },
      checkpoint: { size: 5 },
    });
    expect(log.submitted.map((s) => s.treeSize)).toEqual([5]);
  });

  it('given a cosigned tree, when the log serves a larger tree that rewrites it, then it refuses, signs nothing and keeps its state', async () => {
    const log = new ScriptedLog(await servedAt(8));
    const follower = followerOf(log);
    await follower.round();
    const before = fs.readFileSync(stateFile, 'utf8');
    log.view = await servedAt(16, { 3: 'rewritten history' });

    const outcome = await follower.round();

    expect(outcome).toMatchObject({
      kind: 'refused',
      code: 'inconsistent',
      reason: expect.stringMatching(/consistency proof/),
      previous: { size: 8 },
      claimed: { size: 16, verified: true },
      note: log.view.note,
    });
    expect(log.submitted).toHaveLength(1);
    expect(fs.readFileSync(stateFile, 'utf8')).toBe(before);
  });

  it('given a cosigned tree, when the log serves another root at the same size, then it refuses', async () => {
    const log = new ScriptedLog(await servedAt(8));
    const follower = followerOf(log);
    await follower.round();
    log.view = await servedAt(8, { 0: 'forked' });

    expect(await follower.round()).toMatchObject({ kind: 'refused', code: 'inconsistent' });
    expect(state.get(logKey.origin)).toEqual({ size: 8, rootHash: (await fakeTree(8)).root(8) });
  });

  it('given a cosigned tree, when the log serves a smaller one, then it refuses the rollback', async () => {
    const log = new ScriptedLog(await servedAt(8));
    const follower = followerOf(log);
    await follower.round();
    log.view = await servedAt(6);

    expect(await follower.round()).toMatchObject({
      kind: 'refused',
      code: 'bad-request',
      previous: { size: 8 },
    });
    expect(log.proofsAsked).toEqual([]);
    expect(log.submitted).toHaveLength(1);
  });

  it('given a checkpoint not signed by the trusted log key, when a round runs, then it refuses before asking for a proof', async () => {
    const impostor = new FakeLogKey(logKey.origin);
    const tree = await fakeTree(9);
    const log = new ScriptedLog({ tree, size: 9, note: checkpointOf(tree, 9, impostor) });

    const outcome = await followerOf(log).round();

    expect(outcome).toMatchObject({
      kind: 'refused',
      code: 'bad-signature',
      previous: null,
      claimed: { size: 9, verified: false },
    });
    expect(log.proofsAsked).toEqual([]);
    expect(log.submitted).toEqual([]);
    expect(state.get(logKey.origin)).toBeUndefined();
    expect(fs.existsSync(stateFile)).toBe(false);
  });

  it('given a tampered checkpoint, when a round runs, then it refuses it as badly signed', async () => {
    const view = await servedAt(6);
    const log = new ScriptedLog({ ...view, note: view.note.replace('\n6\n', '\n7\n') });
    expect(await followerOf(log).round()).toMatchObject({
      kind: 'refused',
      code: 'bad-signature',
      claimed: { size: 7 },
    });
    expect(log.submitted).toEqual([]);
  });
});
