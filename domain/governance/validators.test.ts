import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import type { ValidatorCertificateCurrent, ValidatorVote } from '../../event-schemas';
import { validateRecord } from '../../event-schemas';
import { canonicalJson } from '../../merkle-core';
import { artifactHashOf, buildProofBundle } from './bundle';
import { ed25519Keys, hex, NOW, policyWith, TENANT, validBody, voteRequest } from './test-fixtures';
import {
  createLocalValidators,
  LocalValidator,
  proposerOf,
  QuorumNotReachedError,
  runValidatorRound,
  type Validator,
  ValidatorNetworkError,
  type VoteRequest,
  validatorIdOf,
  verifyCertificate,
} from './validators';

const keys = ed25519Keys(5);
const honest = createLocalValidators(keys.slice(0, 4));
const outsider = new LocalValidator(keys[4] as KeyObject);
const keyMap = new Map(honest.map((v) => [v.id, v.publicKey]));

const unreachable = (id: string): Validator => ({
  id,
  vote: () => Promise.reject(new Error('connect ECONNREFUSED')),
});
/** A validator that rejects whatever it is asked (signed, so its vote is genuine). */
const rejecting = (validator: LocalValidator): Validator => ({
  id: validator.id,
  publicKey: validator.publicKey,
  vote: (request) => validator.vote({ ...request, expected_parent_hash: hex('0') }),
});

function bundleAt(
  generatedAt: string,
  changes: Partial<ReturnType<typeof validBody>> = {},
): Partial<VoteRequest> {
  const bundle = buildProofBundle({
    tenant_id: TENANT,
    body: { ...validBody(), ...changes },
    parent_bundle_hash: null,
    generated_at: generatedAt,
  });
  return { bundle, artifact_hash: artifactHashOf(bundle) };
}

const resign = (cert: Omit<ValidatorCertificateCurrent, 'cert_hash'>): ValidatorCertificateCurrent => ({
  ...cert,
  cert_hash: createHash('sha256').update(canonicalJson(cert)).digest('hex'),
});
const withoutHash = ({ cert_hash: _, ...rest }: ValidatorCertificateCurrent) => rest;

describe('validator identity', () => {
  it('given an Ed25519 key, then validator_id is hex SHA-256 of its DER SubjectPublicKeyInfo', () => {
    const publicKey = createPublicKey(keys[0] as KeyObject);
    const der = publicKey.export({ type: 'spki', format: 'der' });
    expect(validatorIdOf(publicKey)).toBe(createHash('sha256').update(der).digest('hex'));
    expect(honest[0]?.id).toBe(validatorIdOf(publicKey));
  });

  it('given a key that is not Ed25519, then a local validator refuses it', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(() => new LocalValidator(privateKey)).toThrow(TypeError);
  });
});

describe('a validator vote', () => {
  const validator = honest[0] as LocalValidator;

  it('given a valid bundle, then it is a signed ACCEPT without reasons that validates', async () => {
    const request = voteRequest();
    const vote = await validator.vote(request);
    expect(vote).toEqual({
      type: 'GOV_VOTE_V1',
      validator_id: validator.id,
      decision: 'ACCEPT',
      body_hash: request.artifact_hash,
      voted_at: NOW,
      signature: expect.stringMatching(/^[A-Za-z0-9+/]{86}==$/),
    });
    expect(validateRecord('validator-vote', vote).ok).toBe(true);
  });

  it.each<[string, () => VoteRequest, RegExp]>([
    [
      'an evidence hash that is not 64 lowercase hex',
      () => {
        const request = voteRequest();
        const bundle = {
          ...request.bundle,
          evidence: { ...request.bundle.evidence, evaluation_trace_hash: 'ABC' },
        };
        return { ...request, bundle, artifact_hash: artifactHashOf(bundle) };
      },
      /^evidence\.evaluation_trace_hash is not a SHA-256 digest/,
    ],
    [
      'a missing evidence hash',
      () => {
        const request = voteRequest();
        const { capability_certificate_hash: _, ...evidence } = request.bundle.evidence;
        const bundle = { ...request.bundle, evidence };
        return { ...request, bundle, artifact_hash: artifactHashOf(bundle) };
      },
      /^evidence\.capability_certificate_hash is missing$/,
    ],
    [
      'a gate that does not pass under the policy',
      () => voteRequest({ policy: policyWith({ g1_min_confidence_lower: 0.9 }) }),
      /^G1 does not pass: confidence_interval_lower 0.85 is below the policy minimum 0.90$/,
    ],
    [
      'a protected metric above the maximum its submission declared',
      () => {
        const request = voteRequest();
        const gates = request.bundle.gate_results as Record<string, Record<string, unknown>>;
        const G3 = { ...gates.G3, protected_metrics: { bias: 1e9 }, metric_maximums: { bias: 0.1 } };
        const bundle = { ...request.bundle, gate_results: { ...gates, G3 } };
        return { ...request, bundle, artifact_hash: artifactHashOf(bundle) };
      },
      /^G3 does not pass: protected metric bias 1000000000 exceeds its declared maximum 0\.10 \(declared by the submission\)$/,
    ],
    [
      'a broken parent chain',
      () => voteRequest({ expected_parent_hash: hex('7') }),
      /^parent_bundle_hash null is not/,
    ],
    [
      'a wrong artifact hash',
      () => voteRequest({ artifact_hash: hex('0') }),
      /^artifact_hash 0{64} is not the SHA-256/,
    ],
    [
      'a bundle from more than 5 s in the future',
      () => voteRequest(bundleAt('2025-06-01T12:00:05.001Z')),
      /is 5\.001 s in the future/,
    ],
    [
      'a bundle older than the replay window',
      () => voteRequest(bundleAt('2025-06-01T11:54:59.999Z')),
      /is 300\.001 s old, outside the replay window of 300 s/,
    ],
  ])('given %s, then it votes REJECT with the reason', async (_case, request, reason) => {
    const vote = await validator.vote(request());
    expect(vote.decision).toBe('REJECT');
    expect(vote.reasons).toEqual([expect.stringMatching(reason)]);
    expect(validateRecord('validator-vote', vote).ok).toBe(true);
  });

  it('given a bundle exactly 5 s ahead or exactly at the edge of the replay window, then it accepts', async () => {
    expect((await validator.vote(voteRequest(bundleAt('2025-06-01T12:00:05.000Z')))).decision).toBe('ACCEPT');
    expect((await validator.vote(voteRequest(bundleAt('2025-06-01T11:55:00.000Z')))).decision).toBe('ACCEPT');
  });
});

describe('proposerOf', () => {
  it('picks sorted ids[SHA-256(raw artifact hash bytes) mod n], whatever the order of the ids', () => {
    const ids = honest.map((v) => v.id);
    const artifact = voteRequest().artifact_hash;
    const digest = createHash('sha256').update(Buffer.from(artifact, 'hex')).digest('hex');
    const expected = [...ids].sort()[Number(BigInt(`0x${digest}`) % 4n)];
    expect(proposerOf(ids, artifact)).toBe(expected);
    expect(proposerOf([...ids].reverse(), artifact)).toBe(expected);
  });

  it('given no validators or a malformed hash, then it throws', () => {
    expect(() => proposerOf([], hex('a'))).toThrow(RangeError);
    expect(() => proposerOf(['x'], 'abc')).toThrow(TypeError);
  });
});

describe('runValidatorRound', () => {
  it('given 4 honest validators, then a certificate with 4 sorted ACCEPT votes, 4 validators and quorum 3', async () => {
    const request = voteRequest();
    const cert = await runValidatorRound(honest, request);
    expect(cert).toMatchObject({
      type: 'GOV_CERTIFICATE_V1',
      body_hash: request.artifact_hash,
      proposer_id: proposerOf(
        honest.map((v) => v.id),
        request.artifact_hash,
      ),
      validators: 4,
      quorum: 3,
    });
    expect(cert.votes.map((v) => v.validator_id)).toEqual(honest.map((v) => v.id).sort());
    expect(cert.votes.every((v) => v.decision === 'ACCEPT')).toBe(true);
    expect(cert.cert_hash).toBe(
      createHash('sha256')
        .update(canonicalJson(withoutHash(cert)))
        .digest('hex'),
    );
    expect(validateRecord('validator-certificate', cert).ok).toBe(true);
    expect(verifyCertificate(cert, keyMap, 3)).toEqual({ ok: true });
  });

  it('given one validator unreachable, then the other 3 still certify', async () => {
    const validators = [...honest.slice(0, 3), unreachable((honest[3] as LocalValidator).id)];
    const cert = await runValidatorRound(validators, voteRequest());
    expect(cert.votes).toHaveLength(3);
    expect(verifyCertificate(cert, keyMap, 3)).toEqual({ ok: true });
  });

  it('given a validator whose vote() throws synchronously, then it counts as a network failure', async () => {
    const throwing: Validator = {
      id: (honest[3] as LocalValidator).id,
      vote: () => {
        throw new Error('boom');
      },
    };
    await expect(runValidatorRound([...honest.slice(0, 3), throwing], voteRequest())).resolves.toMatchObject({
      validators: 4,
    });
  });

  it('given two validators unreachable, then ValidatorNetworkError names them (no certificate)', async () => {
    const validators = [...honest.slice(0, 2), ...honest.slice(2).map((v) => unreachable(v.id))];
    const error = await runValidatorRound(validators, voteRequest()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidatorNetworkError);
    expect((error as ValidatorNetworkError).failures).toEqual(
      honest.slice(2).map((v) => ({ validator_id: v.id, message: 'connect ECONNREFUSED' })),
    );
  });

  it('given a rejecting majority, then QuorumNotReachedError carries their reasons', async () => {
    const validators = [honest[0] as LocalValidator, ...honest.slice(1).map(rejecting)];
    const error = await runValidatorRound(validators, voteRequest()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuorumNotReachedError);
    const quorumError = error as QuorumNotReachedError;
    expect(quorumError).toMatchObject({ accepted: 1, quorum: 3 });
    expect(quorumError.reasons).toEqual([expect.stringMatching(/^parent_bundle_hash null is not/)]);
  });

  it('given two rejecting and one unreachable, then the rejections decide: QuorumNotReachedError', async () => {
    const validators = [
      honest[0] as LocalValidator,
      rejecting(honest[1] as LocalValidator),
      rejecting(honest[2] as LocalValidator),
      unreachable((honest[3] as LocalValidator).id),
    ];
    await expect(runValidatorRound(validators, voteRequest())).rejects.toBeInstanceOf(QuorumNotReachedError);
  });

  it('given a validator returning a vote with a forged signature, then that vote is not counted', async () => {
    const forger = honest[3] as LocalValidator;
    const forged: Validator = {
      id: forger.id,
      publicKey: forger.publicKey,
      vote: async (request) => ({
        ...(await forger.vote(request)),
        signature: (await outsider.vote(request)).signature,
      }),
    };
    const unreachableTwo = unreachable((honest[2] as LocalValidator).id);
    const error = await runValidatorRound(
      [...honest.slice(0, 2), unreachableTwo, forged],
      voteRequest(),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidatorNetworkError);
    expect((error as ValidatorNetworkError).failures.map((f) => f.message)).toContain(
      'returned a bad signature',
    );
  });

  it('given a custom quorum or duplicate validators, then the round honours or refuses them', async () => {
    const cert = await runValidatorRound(honest, voteRequest(), { quorum: 4 });
    expect(cert).toMatchObject({ validators: 4, quorum: 4 });
    await expect(runValidatorRound(honest, voteRequest(), { quorum: 5 })).rejects.toThrow(RangeError);
    await expect(runValidatorRound([...honest, honest[0] as LocalValidator], voteRequest())).rejects.toThrow(
      RangeError,
    );
    await expect(runValidatorRound([], voteRequest())).rejects.toThrow(RangeError);
  });

  it.each([
    [1, 1],
    [4, 3],
    [7, 5],
  ])('given n = %i validators, then the default quorum is %i (2f + 1)', async (n, quorum) => {
    const validators = n <= 4 ? honest.slice(0, n) : createLocalValidators(ed25519Keys(n));
    expect(await runValidatorRound(validators, voteRequest())).toMatchObject({ validators: n, quorum });
  });
});

describe('verifyCertificate', () => {
  let cert: ValidatorCertificateCurrent;
  beforeAll(async () => {
    cert = await runValidatorRound(honest, voteRequest());
  });
  const editVote = (index: number, edit: (vote: ValidatorVote) => ValidatorVote) =>
    resign({ ...withoutHash(cert), votes: cert.votes.map((v, i) => (i === index ? edit(v) : v)) });

  it('given a tampered vote (re-hashed certificate), then its signature no longer verifies', () => {
    const tampered = editVote(0, (v) => ({ ...v, voted_at: '2030-01-01T00:00:00.000Z' }));
    expect(verifyCertificate(tampered, keyMap, 3)).toEqual({
      ok: false,
      reason: expect.stringMatching(/invalid signature/),
    });
  });

  it('given a signature replaced by another validly formed one, then it is detected', () => {
    const other = cert.votes[1] as ValidatorVote;
    const tampered = editVote(0, (v) => ({ ...v, signature: other.signature }));
    expect(verifyCertificate(tampered, keyMap, 3)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/invalid signature/),
    });
  });

  it('given a field changed without re-hashing, then cert_hash no longer matches', () => {
    const tampered = { ...cert, quorum: 2 };
    expect(verifyCertificate(tampered, keyMap, 3)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/cert_hash/),
    });
  });

  it('given fewer ACCEPT votes than the quorum, then the quorum is missing', () => {
    const short = resign({ ...withoutHash(cert), votes: cert.votes.slice(0, 2) });
    expect(verifyCertificate(short, keyMap, 3)).toEqual({
      ok: false,
      reason: 'only 2 distinct ACCEPT votes; the quorum is 3',
    });
  });

  it('given the same vote twice, then it is not counted twice', () => {
    const first = cert.votes[0] as ValidatorVote;
    const doubled = resign({ ...withoutHash(cert), votes: [first, first, cert.votes[1] as ValidatorVote] });
    expect(verifyCertificate(doubled, keyMap, 3)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/repeats/),
    });
  });

  it('given a vote from a key not among the validators, then it is refused', () => {
    const keysWithoutFirst = new Map([...keyMap].filter(([id]) => id !== cert.votes[0]?.validator_id));
    expect(verifyCertificate(cert, keysWithoutFirst, 3)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/unknown validator/),
    });
  });

  it('given a vote for another bundle, then it is refused', () => {
    const tampered = editVote(1, (v) => ({ ...v, body_hash: hex('0') }));
    expect(verifyCertificate(tampered, keyMap, 3)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/another bundle/),
    });
  });
});
