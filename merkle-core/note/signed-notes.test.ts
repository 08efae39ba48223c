/** Keys, checkpoints and cosignatures, as the C2SP specs define them. */
import { createHash } from 'node:crypto';
import { fromBase64, toHex } from '../encoding/bytes';
import { generateKeyPair, loadVerifierKey, verifyCheckpoint, verifyCosignature } from '../index';
import { freshKeys } from '../test/signed-log';
import { formatCheckpoint, parseCheckpoint } from './checkpoint';
import { parseNote } from './note';
import { addSignatureLines, cosignatureLine, signCheckpoint } from './signing';

const ORIGIN = 'example.org/gov-log';
const ROOT = createHash('sha256').update('root').digest();

const { logKeys, logSigner, logKey, witnessSigner, witnessKey } = freshKeys(ORIGIN, 'witness.example.org/w1');

const checkpoint = {
  origin: ORIGIN,
  size: 42,
  rootHash: ROOT,
  extensions: ['timestamp 2025-03-04T05:06:07.089Z'],
};
const signed = signCheckpoint(checkpoint, logSigner);

describe('keys in note format', () => {
  it('derives the key ID as SHA-256(name ‖ 0x0A ‖ type ‖ public key)[:4]', () => {
    const expected = createHash('sha256')
      .update(Buffer.concat([Buffer.from(`${ORIGIN}\n`), Buffer.from([0x01]), logSigner.publicKey]))
      .digest()
      .subarray(0, 4);
    expect(toHex(logKey.keyId)).toBe(toHex(expected));
    expect(logKeys.verifierKey).toMatch(new RegExp(`^${ORIGIN}\\+${toHex(expected)}\\+`));
    expect(fromBase64(logKeys.verifierKey.split('+').slice(2).join('+'))[0]).toBe(0x01);
    expect(witnessKey.type).toBe(0x04);
  });

  it('round-trips signer and verifier keys and rejects a wrong key ID', () => {
    expect(logSigner.verifierKey).toBe(logKeys.verifierKey);
    expect(logKeys.signerKey.startsWith(`PRIVATE+KEY+${ORIGIN}+`)).toBe(true);
    const wrongId = logKeys.verifierKey.replace(/\+[0-9a-f]{8}\+/, '+00000000+');
    expect(() => loadVerifierKey(wrongId)).toThrow(/key ID/);
    expect(() => loadVerifierKey('no-plus-signs')).toThrow();
  });
});

describe('checkpoints', () => {
  it('formats origin, size, base64 root and extension lines, and parses them back', () => {
    const text = formatCheckpoint(checkpoint);
    expect(text).toBe(`${ORIGIN}\n42\n${ROOT.toString('base64')}\ntimestamp 2025-03-04T05:06:07.089Z\n`);
    expect(parseCheckpoint(text)).toEqual({ ...checkpoint, rootHash: new Uint8Array(ROOT) });
    expect(() => parseCheckpoint(`${ORIGIN}\n042\n${ROOT.toString('base64')}\n`)).toThrow(/size/);
  });

  it('signs as a signed note the log key verifies, and rejects other keys and edits', async () => {
    expect(signed.startsWith(`${formatCheckpoint(checkpoint)}\n\u2014 ${ORIGIN} `)).toBe(true);
    expect(await verifyCheckpoint(signed, logKey)).toMatchObject({ ok: true, checkpoint: { size: 42 } });
    const other = loadVerifierKey(generateKeyPair(ORIGIN).verifierKey);
    expect(await verifyCheckpoint(signed, other)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/no signature/),
    });
    expect((await verifyCheckpoint(signed.replace('\n42\n', '\n43\n'), logKey)).ok).toBe(false);
  });
});

describe('cosignatures (cosignature/v1)', () => {
  it('signs "cosignature/v1\\ntime <t>\\n<checkpoint>" with an 8-byte timestamp before the signature', async () => {
    const line = cosignatureLine(signed, witnessSigner, 1_700_000_000);
    const blob = fromBase64(line.trim().split(' ')[2]!);
    expect(blob.length).toBe(4 + 8 + 64);
    expect(Buffer.from(blob.subarray(4, 12)).readBigUInt64BE()).toBe(1_700_000_000n);
    const cosigned = addSignatureLines(signed, [line]);
    expect(await verifyCosignature(cosigned, witnessKey)).toMatchObject({
      ok: true,
      timestamp: 1_700_000_000,
    });
    expect(await verifyCheckpoint(cosigned, logKey)).toMatchObject({ ok: true });
    const message = Buffer.from(`cosignature/v1\ntime 1700000000\n${parseNote(signed).text}`);
    const { verify, createPublicKey } = await import('node:crypto');
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), witnessSigner.publicKey]);
    expect(
      verify(null, message, createPublicKey({ key: spki, format: 'der', type: 'spki' }), blob.subarray(12)),
    ).toBe(true);
  });

  it('rejects a cosignature whose timestamp was changed', async () => {
    const line = cosignatureLine(signed, witnessSigner, 1_700_000_000);
    const blob = fromBase64(line.trim().split(' ')[2]!);
    blob[11]! ^= 1;
    const forged = `\u2014 ${witnessKey.name} ${Buffer.from(blob).toString('base64')}\n`;
    expect((await verifyCosignature(addSignatureLines(signed, [forged]), witnessKey)).ok).toBe(false);
  });
});
