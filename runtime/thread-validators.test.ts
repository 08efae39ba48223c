import { artifactHashOf, buildProofBundle } from '../domain/bundle';
import { sealEnvelope, unsignedEnvelope } from '../domain/envelope';
import { ed25519Keys, hex, NOW, TENANT, validBody, voteRequest } from '../domain/test-fixtures';
import {
  createLocalValidators,
  QuorumNotReachedError,
  runValidatorRound,
  type VoteRequest,
} from '../domain/validators';
import { ValidatorThread } from './thread-validators';

/** A vote request on a bundle of its own subject. */
function bundleRequest(subjectId: string): VoteRequest {
  const bundle = buildProofBundle({
    tenant_id: TENANT,
    body: { ...validBody(), subject_id: subjectId },
    parent_bundle_hash: null,
    generated_at: NOW,
  });
  return voteRequest({ bundle, artifact_hash: artifactHashOf(bundle) });
}

describe('validators on the validator thread', () => {
  const keys = ed25519Keys(4);
  const inline = createLocalValidators(keys);
  let thread: ValidatorThread;

  const [authorityKey] = ed25519Keys(1);
  beforeAll(() => {
    thread = ValidatorThread.start(keys, authorityKey);
  });
  afterAll(async () => {
    await thread.close();
  });

  it('given the same keys, then they are the same validators (ids, public keys) as the inline ones', () => {
    expect(thread.validators.map((v) => v.id)).toEqual(inline.map((v) => v.id));
    expect(thread.validators.every((v, i) => v.publicKey?.equals(inline[i]!.publicKey))).toBe(true);
  });

  it('given a valid bundle, when a round runs on the thread, then its certificate is byte for byte the inline one', async () => {
    const request = voteRequest();
    expect(await runValidatorRound(thread.validators, request)).toEqual(
      await runValidatorRound(inline, request),
    );
  });

  it('given 200 concurrent rounds, when they run on the thread, then each gets the certificate of its own bundle', async () => {
    const requests = Array.from({ length: 200 }, (_, i) => bundleRequest(`subject-${i}`));
    const threaded = await Promise.all(
      requests.map((request) => runValidatorRound(thread.validators, request)),
    );
    const expected = await Promise.all(requests.map((request) => runValidatorRound(inline, request)));
    expect(threaded).toEqual(expected);
    expect(new Set(threaded.map((certificate) => certificate.body_hash)).size).toBe(200);
  });

  it('given a bundle the validators reject, when a round runs on the thread, then the quorum fails with their reasons', async () => {
    const request = voteRequest({ artifact_hash: hex('f') });
    const failure = await runValidatorRound(thread.validators, request).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(QuorumNotReachedError);
    expect((failure as QuorumNotReachedError).reasons.join(' ')).toContain(`artifact_hash ${hex('f')}`);
  });

  it('given a request that cannot be examined, then every validator of the round fails and the thread keeps serving', async () => {
    const broken = { ...voteRequest(), bundle: null } as unknown as VoteRequest;
    await expect(runValidatorRound(thread.validators, broken)).rejects.toThrow(/validator/);
    await expect(runValidatorRound(thread.validators, voteRequest())).resolves.toMatchObject({
      type: 'GOV_CERTIFICATE_V1',
    });
  });

  it('given a closed thread, then a vote fails saying so', async () => {
    const closed = ValidatorThread.start(keys);
    await closed.close();
    await expect(closed.validators[0]!.vote(voteRequest())).rejects.toThrow('the validator thread is closed');
  });

  it('given envelopes to seal, when they are sealed on the thread, then signature and leaf hash are byte for byte the inline ones', async () => {
    const envelopes = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const request = bundleRequest(`sealed-${i}`);
        const certificate = await runValidatorRound(inline, request);
        return unsignedEnvelope(
          {
            bundle_hash: request.artifact_hash,
            payload_uri: `https://gov.example/replay/${request.artifact_hash}`,
            tenant_id: TENANT,
            subject_id: `sealed-${i}`,
            certificate,
            log_binding: { log_id: 'log', log_url: 'https://gov.example/gov/v1/log' },
            generated_at: NOW,
          },
          'node_0123456789abcdef01234567',
        );
      }),
    );
    const sealed = await Promise.all(envelopes.map((unsigned) => thread.seal(unsigned)));
    expect(sealed).toEqual(envelopes.map((unsigned) => sealEnvelope(unsigned, authorityKey!)));
    expect(new Set(sealed.map((s) => s.leafHash)).size).toBe(20);
  });

  it('given a thread started without the authority key, then sealing fails saying so', async () => {
    const keyless = ValidatorThread.start(keys);
    try {
      const certificate = await runValidatorRound(inline, voteRequest());
      const unsigned = unsignedEnvelope(
        {
          bundle_hash: certificate.body_hash,
          payload_uri: 'https://gov.example/replay',
          tenant_id: TENANT,
          subject_id: 'keyless',
          certificate,
          log_binding: { log_id: 'log', log_url: 'https://gov.example/gov/v1/log' },
          generated_at: NOW,
        },
        'node_0123456789abcdef01234567',
      );
      await expect(keyless.seal(unsigned)).rejects.toThrow('holds no authority key');
    } finally {
      await keyless.close();
    }
  });
});
