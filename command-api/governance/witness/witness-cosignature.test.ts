/**
 * Given/when/then for recording a witness cosignature. A witness key's stream decides nothing from its
 * past: a repeat decides the same event, with the same id, which the store keeps once.
 */
import {
  cosignatureLine,
  generateKeyPair,
  loadSignerKey,
  loadVerifierKey,
  SIGNATURE_TYPE_COSIGNATURE_V1,
  signCheckpoint,
  toHex,
} from '../../../merkle-core';
import { deciderSpecification } from '../../engine/decider-specification';
import {
  type CosignatureCheck,
  checkCosignature,
  cosignatureEventId,
  decideRecordCosignature,
  witnessAggregate,
} from './witness-cosignature';

const ORIGIN = 'gov.example/gov/v1/log';
const logSigner = loadSignerKey(generateKeyPair(ORIGIN).signerKey);
const witnessPair = generateKeyPair('witness.example', SIGNATURE_TYPE_COSIGNATURE_V1);
const witnessSigner = loadSignerKey(witnessPair.signerKey);
const witnessKey = loadVerifierKey(witnessPair.verifierKey);
const rootHash = new Uint8Array(32).fill(7);

const given = deciderSpecification(
  witnessAggregate,
  (state, accepted: Extract<CosignatureCheck, { ok: true }>) => decideRecordCosignature(state, accepted, 'c'),
);

let accepted: Extract<CosignatureCheck, { ok: true }>;
beforeAll(async () => {
  const note = signCheckpoint({ origin: ORIGIN, size: 42, rootHash, extensions: [] }, logSigner);
  const check = await checkCosignature(cosignatureLine(note, witnessSigner, 1_700_000_000), 42, note, [
    witnessKey,
  ]);
  if (!check.ok) throw new Error(check.problem.reason);
  accepted = check;
});

describe('decideRecordCosignature', () => {
  const recorded = () => ({
    type: 'WitnessCosigned' as const,
    data: {
      origin: ORIGIN,
      tree_size: 42,
      root_hash: toHex(rootHash),
      witness_key: witnessKey.text,
      timestamp: 1_700_000_000,
      cosignature: accepted.line,
    },
  });

  it('given no cosignature by the key, when a verified one comes, then WitnessCosigned with the checkpoint it signs', () => {
    given([]).when(accepted).then([recorded()]);
  });

  it('given the key’s cosignature of that size, when it comes again, then the same event with the same id (the store keeps one)', () => {
    given([recorded()]).when(accepted).then([recorded()]);
    expect(decideRecordCosignature(null, accepted, 'c').events[0]!.id).toBe(
      cosignatureEventId(witnessKey, 42),
    );
  });

  it('given a head of another log, when cosigned, then the event names the log, and its id is not the shared log’s of the same size', () => {
    const of = (log: string) => decideRecordCosignature(null, accepted, 'c', log).events[0]!;
    expect(of('test').data).toEqual({ ...recorded().data, log: 'test' });
    expect(of('shared').data).toEqual(recorded().data);
    expect(of('shared').id).toBe(cosignatureEventId(witnessKey, 42));
    expect(new Set([of('shared').id, of('test').id, of(`dedicated-${'a'.repeat(24)}`).id]).size).toBe(3);
    expect(of('test').id).toBe(cosignatureEventId(witnessKey, 42, 'test'));
  });
});
