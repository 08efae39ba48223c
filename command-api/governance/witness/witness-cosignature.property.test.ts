/**
 * Properties of accepting a witness cosignature (`checkCosignature` and its event) for any signature
 * line a client can send: the body schema's pattern lets through much that is not a valid line.
 */
import fc from 'fast-check';
import { type SubmitWitnessSignatureBody, validateCommand } from '../../../event-schemas';
import { hostileBody, validCommandBody } from '../../../event-schemas/schema-arbitrary';
import {
  cosignatureLine,
  generateKeyPair,
  loadSignerKey,
  loadVerifierKey,
  SIGNATURE_TYPE_COSIGNATURE_V1,
  signCheckpoint,
} from '../../../merkle-core';
import { PROPERTY_OPTIONS, schemaProblems } from '../property-support';
import {
  COSIGNATURE_POINTER,
  checkCosignature,
  cosignatureEventId,
  decideRecordCosignature,
} from './witness-cosignature';

const ORIGIN = 'gov.example/gov/v1/log';
const logSigner = loadSignerKey(generateKeyPair(ORIGIN).signerKey);
const witnessPair = generateKeyPair('witness.example', SIGNATURE_TYPE_COSIGNATURE_V1);
const witness = {
  signer: loadSignerKey(witnessPair.signerKey),
  verifier: loadVerifierKey(witnessPair.verifierKey),
};
const stranger = loadSignerKey(generateKeyPair('witness.example', SIGNATURE_TYPE_COSIGNATURE_V1).signerKey);
const trusted = [witness.verifier];

/** The note the log signed at a size (any root: only signatures are checked here). */
const noteArb = fc
  .tuple(fc.integer({ min: 1, max: 2 ** 40 }), fc.uint8Array({ minLength: 32, maxLength: 32 }))
  .map(([size, rootHash]) => ({
    size,
    note: signCheckpoint({ origin: ORIGIN, size, rootHash, extensions: [] }, logSigner),
  }));
const timestampArb = fc.integer({ min: 0, max: 2 ** 40 });

/** Any line a client could send, as far as the request schema lets it through. */
const lineArb = fc
  .oneof(validCommandBody('submit-witness-signature'), hostileBody('submit-witness-signature'))
  .filter((body) => validateCommand('submit-witness-signature', body).ok)
  .map((body) => (body as SubmitWitnessSignatureBody).cosignature);

describe('checkCosignature', () => {
  it('given any line the request schema accepts, then it never throws and refuses it with a reason at /cosignature', async () => {
    await fc.assert(
      fc.asyncProperty(lineArb, noteArb, async (line, { size, note }) => {
        const check = await checkCosignature(line, size, note, trusted);
        expect(check).toMatchObject({
          ok: false,
          problem: { pointer: COSIGNATURE_POINTER, reason: expect.any(String) },
        });
      }),
      { ...PROPERTY_OPTIONS, numRuns: 300 },
    );
  });

  it('given a trusted witness’s cosignature of the note, then it is accepted, with or without its newline, as a valid event whose id depends only on key and size', async () => {
    await fc.assert(
      fc.asyncProperty(
        noteArb,
        timestampArb,
        timestampArb,
        fc.boolean(),
        async ({ size, note }, at, later, newline) => {
          const line = cosignatureLine(note, witness.signer, at);
          const check = await checkCosignature(newline ? line : line.trimEnd(), size, note, trusted);
          if (!check.ok) throw new Error(check.problem.reason);
          const event = decideRecordCosignature(null, check, 'c').events[0]!;
          expect(schemaProblems([event])).toEqual([]);
          expect(event.data).toMatchObject({ tree_size: size, timestamp: at, cosignature: line });
          expect(event.id).toBe(cosignatureEventId(witness.verifier, size));
          const again = await checkCosignature(
            cosignatureLine(note, witness.signer, later),
            size,
            note,
            trusted,
          );
          expect(again.ok && decideRecordCosignature(null, again, 'c').events[0]!.id).toBe(event.id);
        },
      ),
      { ...PROPERTY_OPTIONS, numRuns: 60 },
    );
  });

  it('given a cosignature with one signature byte changed, or of another note, or by an untrusted key of the same name, then it is refused', async () => {
    await fc.assert(
      fc.asyncProperty(noteArb, noteArb, timestampArb, fc.nat(), async (signed, other, at, position) => {
        fc.pre(signed.note !== other.note);
        const line = cosignatureLine(signed.note, witness.signer, at);
        const [dash, name, blob] = line.trimEnd().split(' ') as [string, string, string];
        const bytes = Buffer.from(blob, 'base64');
        bytes[4 + (position % (bytes.length - 4))]! ^= 0x01;
        const tampered = `${dash} ${name} ${bytes.toString('base64')}\n`;
        for (const [attempt, note] of [
          [tampered, signed.note],
          [line, other.note],
          [cosignatureLine(signed.note, stranger, at), signed.note],
        ] as const) {
          expect((await checkCosignature(attempt, signed.size, note, trusted)).ok).toBe(false);
        }
      }),
      { ...PROPERTY_OPTIONS, numRuns: 60 },
    );
  });
});
