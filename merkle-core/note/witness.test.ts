/** The witness cosigns only checkpoints consistent with the last one it cosigned for the origin. */
import {
  generateKeyPair,
  loadSignerKey,
  loadVerifierKey,
  SIGNATURE_TYPE_COSIGNATURE_V1,
  signCheckpoint,
  TileLog,
  verifyCosignature,
  Witness,
} from '../index';
import { addSignatureLines } from './signing';

const ORIGIN = 'example.org/witnessed';
const logKeys = generateKeyPair(ORIGIN);
const logSigner = loadSignerKey(logKeys.signerKey);
const witnessKeys = generateKeyPair('witness.example.org', SIGNATURE_TYPE_COSIGNATURE_V1);

async function logOf(entries: string[]): Promise<TileLog> {
  const log = new TileLog();
  await log.appendLeaves(entries.map((e) => new TextEncoder().encode(e)));
  return log;
}

const checkpointAt = (log: TileLog, size: number): string =>
  signCheckpoint({ origin: ORIGIN, size, rootHash: log.root(size), extensions: [] }, logSigner);

const newWitness = (): Witness =>
  new Witness(
    loadSignerKey(witnessKeys.signerKey),
    [loadVerifierKey(logKeys.verifierKey)],
    undefined,
    () => 1.7e12,
  );

describe('Witness', () => {
  const entries = Array.from({ length: 20 }, (_, i) => `entry ${i}`);

  it('cosigns a new log from size 0 with an empty proof, then follows consistent growth', async () => {
    const log = await logOf(entries);
    const witness = newWitness();
    const first = await witness.addCheckpoint({
      oldSize: 0,
      consistencyProof: [],
      checkpoint: checkpointAt(log, 5),
    });
    expect(first).toMatchObject({ ok: true, timestamp: 1.7e9 });
    const note = checkpointAt(log, 13);
    const next = await witness.addCheckpoint({
      oldSize: 5,
      consistencyProof: log.consistencyProof(5, 13),
      checkpoint: note,
    });
    if (!next.ok) throw new Error(next.reason);
    const verdict = await verifyCosignature(
      addSignatureLines(note, [next.cosignature]),
      loadVerifierKey(witnessKeys.verifierKey),
    );
    expect(verdict).toMatchObject({ ok: true, checkpoint: { size: 13 } });
  });

  it('refuses a stale old size and says which size it holds', async () => {
    const log = await logOf(entries);
    const witness = newWitness();
    await witness.addCheckpoint({ oldSize: 0, consistencyProof: [], checkpoint: checkpointAt(log, 8) });
    const stale = await witness.addCheckpoint({
      oldSize: 5,
      consistencyProof: log.consistencyProof(5, 12),
      checkpoint: checkpointAt(log, 12),
    });
    expect(stale).toMatchObject({ ok: false, code: 'conflict', knownSize: 8 });
  });

  it('refuses a fork: a checkpoint that does not extend the cosigned tree', async () => {
    const log = await logOf(entries);
    const forked = await logOf(entries.map((e, i) => (i === 3 ? 'rewritten history' : e)));
    const witness = newWitness();
    await witness.addCheckpoint({ oldSize: 0, consistencyProof: [], checkpoint: checkpointAt(log, 8) });
    const refused = await witness.addCheckpoint({
      oldSize: 8,
      consistencyProof: forked.consistencyProof(8, 16),
      checkpoint: checkpointAt(forked, 16),
    });
    expect(refused).toMatchObject({
      ok: false,
      code: 'inconsistent',
      reason: expect.stringMatching(/consistency proof/),
    });
    const sameSizeFork = await witness.addCheckpoint({
      oldSize: 8,
      consistencyProof: [],
      checkpoint: checkpointAt(forked, 8),
    });
    expect(sameSizeFork).toMatchObject({ ok: false, code: 'inconsistent' });
  });

  it('refuses unknown logs, bad signatures, shrinking trees and non-empty proofs from size 0', async () => {
    const log = await logOf(entries);
    const witness = newWitness();
    const otherLog = loadSignerKey(generateKeyPair('example.org/other').signerKey);
    const foreign = signCheckpoint(
      { origin: 'example.org/other', size: 3, rootHash: log.root(3), extensions: [] },
      otherLog,
    );
    expect(
      await witness.addCheckpoint({ oldSize: 0, consistencyProof: [], checkpoint: foreign }),
    ).toMatchObject({
      ok: false,
      code: 'unknown-log',
    });
    const tampered = checkpointAt(log, 6).replace('\n6\n', '\n7\n');
    expect(
      await witness.addCheckpoint({ oldSize: 0, consistencyProof: [], checkpoint: tampered }),
    ).toMatchObject({
      ok: false,
      code: 'bad-signature',
    });
    expect(
      await witness.addCheckpoint({
        oldSize: 0,
        consistencyProof: log.consistencyProof(1, 6),
        checkpoint: checkpointAt(log, 6),
      }),
    ).toMatchObject({ ok: false, code: 'bad-request' });
    await witness.addCheckpoint({ oldSize: 0, consistencyProof: [], checkpoint: checkpointAt(log, 10) });
    expect(
      await witness.addCheckpoint({ oldSize: 10, consistencyProof: [], checkpoint: checkpointAt(log, 9) }),
    ).toMatchObject({
      ok: false,
      code: 'bad-request',
    });
  });
});
