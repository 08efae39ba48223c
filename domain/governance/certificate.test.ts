import { createPublicKey, type KeyObject } from 'node:crypto';
import type { ValidatorCertificate } from '../../event-schemas';
import { validateRecord } from '../../event-schemas';
import { certificateCounts, verifyCertificate } from './certificate';
import { canonicalHash } from './hash';
import { without } from './signing';
import { ed25519Keys, legacyFormOf, voteRequest } from './test-fixtures';
import legacyVector from './test-vectors/legacy-certificate.json';
import { createLocalValidators, runValidatorRound, validatorIdOf } from './validators';

const validators = createLocalValidators(ed25519Keys(4));
const keyMap = new Map<string, KeyObject>(validators.map((v) => [v.id, v.publicKey]));

/** A certificate as it was stored, with the public keys of the validators that signed it. */
const legacy = legacyVector.certificate as ValidatorCertificate;
const legacyKeys = new Map<string, KeyObject>(
  legacyVector.validator_public_keys_spki_der_base64.map((der) => {
    const key = createPublicKey({ key: Buffer.from(der, 'base64'), format: 'der', type: 'spki' });
    return [validatorIdOf(key), key];
  }),
);
/** Either round's votes verify with these. */
const bothKeys = new Map([...keyMap, ...legacyKeys]);

/** `cert` with `changes` applied and cert_hash recomputed, as a forger (or a careless writer) would. */
function rehashed(cert: ValidatorCertificate, changes: Record<string, unknown>): ValidatorCertificate {
  const changed: Record<string, unknown> = { ...without(cert, 'cert_hash'), ...changes };
  for (const [field, value] of Object.entries(changes)) if (value === undefined) delete changed[field];
  return { ...changed, cert_hash: canonicalHash(changed) } as ValidatorCertificate;
}

let current: ValidatorCertificate;
beforeAll(async () => {
  current = await runValidatorRound(validators, voteRequest());
});

describe('the two forms of GOV_CERTIFICATE_V1', () => {
  it('given a certificate a previous release stored (quorum 4, threshold 3), then the schema accepts it, it reads as 4 validators with a quorum of 3 and verifies under its own cert_hash', () => {
    expect(Object.keys(legacy)).toContain('threshold');
    expect(validateRecord('validator-certificate', legacy)).toEqual({ ok: true, value: legacy });
    expect(certificateCounts(legacy)).toEqual({ validators: 4, quorum: 3 });
    expect(canonicalHash(without(legacy, 'cert_hash'))).toBe(legacy.cert_hash);
    expect(verifyCertificate(legacy, legacyKeys)).toEqual({ ok: true });
    expect(verifyCertificate(legacy, legacyKeys, 3)).toEqual({ ok: true });
    expect(legacy.body_hash).toBe(voteRequest().artifact_hash);
  });

  it('given a round of 4 validators, then its certificate names validators 4 and quorum 3, and no threshold', () => {
    expect(Object.keys(current).sort()).toEqual(
      ['body_hash', 'cert_hash', 'proposer_id', 'quorum', 'type', 'validators', 'votes'].sort(),
    );
    expect(current).toMatchObject({ validators: 4, quorum: 3 });
    expect(certificateCounts(current)).toEqual({ validators: 4, quorum: 3 });
    expect(validateRecord('validator-certificate', current).ok).toBe(true);
    expect(verifyCertificate(current, keyMap)).toEqual({ ok: true });
  });

  it('given the same round written in the old form, then both forms read alike and both verify', () => {
    const old = legacyFormOf(current);
    expect(old).toMatchObject({ quorum: 4, threshold: 3 });
    expect(old).not.toHaveProperty('validators');
    expect(validateRecord('validator-certificate', old).ok).toBe(true);
    expect(certificateCounts(old)).toEqual(certificateCounts(current));
    expect(verifyCertificate(old, keyMap)).toEqual({ ok: true });
  });

  it.each([
    ['validators beside threshold', () => rehashed(current, { threshold: 3 })],
    ['validators in an old-form certificate', () => rehashed(legacy, { validators: 4 })],
    ['validators and threshold without quorum', () => rehashed(current, { quorum: undefined, threshold: 3 })],
  ])('given a certificate mixing the forms (%s), then the schema and verification refuse it', (_, make) => {
    const mixed = make();
    expect(validateRecord('validator-certificate', mixed).ok).toBe(false);
    expect(verifyCertificate(mixed, bothKeys)).toEqual({ ok: false, reason: expect.stringMatching(/mixes/) });
  });

  it.each([
    ['a quorum above the validators', () => rehashed(current, { quorum: 5 }), /quorum of 5 of 4 validators/],
    [
      'an old threshold above its quorum (n)',
      () => rehashed(legacy, { threshold: 5 }),
      /quorum of 5 of 4 validators/,
    ],
    ['a quorum of 0', () => rehashed(current, { quorum: 0 }), /quorum of 0 of 4 validators/],
    [
      'more votes than validators',
      () => rehashed(current, { validators: 3 }),
      /4 votes from a round of 3 validators/,
    ],
  ])('given %s, then verification refuses it', (_, make, reason) => {
    expect(verifyCertificate(make(), bothKeys)).toEqual({ ok: false, reason: expect.stringMatching(reason) });
  });

  it('given fewer ACCEPT votes than its own quorum, then it is refused even when the caller asks for fewer', () => {
    const short = rehashed(current, { quorum: 4, votes: current.votes.slice(0, 3) });
    expect(verifyCertificate(short, keyMap, 3)).toEqual({
      ok: false,
      reason: 'only 3 distinct ACCEPT votes; the quorum is 4',
    });
  });

  it('given a caller demanding more than the certificate declares, then the higher quorum is required', () => {
    const low = rehashed(current, { quorum: 2, votes: current.votes.slice(0, 2) });
    expect(verifyCertificate(low, keyMap)).toEqual({ ok: true });
    expect(verifyCertificate(low, keyMap, 3)).toEqual({
      ok: false,
      reason: 'only 2 distinct ACCEPT votes; the quorum is 3',
    });
  });
});
