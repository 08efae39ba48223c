/** The JSON STH is the log's checkpoint note spelled as JSON: the two convert both ways, byte for byte. */
import { createHash } from 'node:crypto';
import {
  addSignatureLines,
  cosignatureLine,
  generateKeyPair,
  loadVerifierKey,
  parseNote,
  signCheckpoint,
  verifyCosignature,
} from '../../merkle-core';
import { freshKeys } from '../../merkle-core/test/signed-log';
import { checkpointNoteFromSth, sthFromCheckpointNote, timestampExtension, verifySth } from './index';

const ORIGIN = 'example.org/gov-log';
const ROOT = createHash('sha256').update('root').digest();
const TIME = new Date('2025-03-04T05:06:07.089Z');

const { logKeys, logSigner, logKey, witnessSigner, witnessKey } = freshKeys(ORIGIN, 'witness.example.org/w1');

const checkpoint = { origin: ORIGIN, size: 42, rootHash: ROOT, extensions: [timestampExtension(TIME)] };
const signed = signCheckpoint(checkpoint, logSigner);

describe('the timestamp extension line', () => {
  it('writes the time as ISO 8601 UTC with milliseconds', () => {
    expect(timestampExtension(TIME)).toBe('timestamp 2025-03-04T05:06:07.089Z');
  });
});

describe('JSON STH ↔ checkpoint note', () => {
  const cosigned = addSignatureLines(signed, [cosignatureLine(signed, witnessSigner, 1_700_000_123)]);
  const sth = sthFromCheckpointNote(cosigned, logKeys.verifierKey);

  it('carries the checkpoint fields in the spec JSON shape', () => {
    expect(sth).toEqual({
      log_id: logKeys.verifierKey,
      tree_size: 42,
      root_hash: ROOT.toString('hex'),
      timestamp: '2025-03-04T05:06:07.089Z',
      log_signature: parseNote(signed).signatures[0]!.line.trim().split(' ')[2],
      witness_signatures: [{ name: witnessKey.name, signature: expect.any(String) }],
    });
  });

  it('turns back into the exact signed note, and both forms verify', async () => {
    expect(checkpointNoteFromSth(sth)).toBe(cosigned);
    expect(await verifySth(sth, logKey)).toMatchObject({ ok: true });
    expect(await verifyCosignature(checkpointNoteFromSth(sth), witnessKey)).toMatchObject({ ok: true });
  });

  it('rejects an STH whose size, root, timestamp or log_id was changed', async () => {
    const other = loadVerifierKey(generateKeyPair(ORIGIN).verifierKey);
    expect((await verifySth({ ...sth, tree_size: 41 }, logKey)).ok).toBe(false);
    expect((await verifySth({ ...sth, root_hash: `00${sth.root_hash.slice(2)}` }, logKey)).ok).toBe(false);
    expect((await verifySth({ ...sth, timestamp: '2025-03-04T05:06:07.090Z' }, logKey)).ok).toBe(false);
    expect((await verifySth({ ...sth, timestamp: '2025-03-04T05:06:07Z' }, logKey)).ok).toBe(false);
    expect((await verifySth({ ...sth, log_id: other.text }, logKey)).ok).toBe(false);
    expect((await verifySth(sth, other)).ok).toBe(false);
  });

  it('refuses checkpoints that have no timestamp line or are not signed first by the log', () => {
    const bare = signCheckpoint({ ...checkpoint, extensions: [] }, logSigner);
    expect(() => sthFromCheckpointNote(bare, logKeys.verifierKey)).toThrow(/timestamp/);
    const witnessFirst = `${parseNote(cosigned).text}\n${parseNote(cosigned).signatures[1]!.line}`;
    expect(() => sthFromCheckpointNote(witnessFirst, logKeys.verifierKey)).toThrow(/first signature/);
  });
});
