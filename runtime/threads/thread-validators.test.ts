import { createPublicKey } from 'node:crypto';
import {
  type CertifiedEnvelope,
  certifyAndSeal,
  type EnvelopeFields,
} from '../../domain/governance/admission-round';
import { artifactHashOf, buildProofBundle } from '../../domain/governance/bundle';
import { authorityNodeIdOf } from '../../domain/governance/envelope';
import { ed25519Keys, hex, NOW, TENANT, validBody, voteRequest } from '../../domain/governance/test-fixtures';
import {
  createLocalValidators,
  QuorumNotReachedError,
  ValidatorNetworkError,
  type VoteRequest,
} from '../../domain/governance/validators';
import { ROUNDS_PER_MESSAGE, ValidatorThread } from './thread-validators';

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

function fieldsFor(request: VoteRequest, subjectId = 'subject-1'): EnvelopeFields {
  return {
    bundle_hash: request.artifact_hash,
    payload_uri: `https://gov.example/governance/replay/${request.artifact_hash}`,
    tenant_id: TENANT,
    subject_id: subjectId,
    log_binding: { log_id: 'log', log_url: 'https://gov.example/gov/v1/log' },
    generated_at: NOW,
  };
}

describe('the admission round on the validator thread', () => {
  const keys = ed25519Keys(4);
  const [authorityKey] = ed25519Keys(1) as [ReturnType<typeof ed25519Keys>[number]];
  const inline = createLocalValidators(keys);
  const authority = { privateKey: authorityKey, nodeId: authorityNodeIdOf(createPublicKey(authorityKey)) };
  let thread: ValidatorThread;

  beforeAll(() => {
    thread = ValidatorThread.start(keys, authorityKey);
  });
  afterAll(async () => {
    await thread.close();
  });

  it('given a valid bundle, when the round runs on the thread, then certificate, envelope and leaf hash are byte for byte the inline ones', async () => {
    const request = voteRequest();
    const certified = await thread.certify(request, fieldsFor(request));
    expect(certified).toEqual(await certifyAndSeal(inline, request, fieldsFor(request), authority));
    expect(certified.envelope.authority_node_id).toBe(authority.nodeId);
    expect(certified.certificate).toMatchObject({ validators: 4, quorum: 3 });
    expect(certified.certificate).not.toHaveProperty('threshold');
  });

  it('given 200 concurrent rounds, when they run on the thread, then each gets the envelope of its own bundle', async () => {
    const requests = Array.from({ length: 200 }, (_, i) => bundleRequest(`subject-${i}`));
    const threaded = await Promise.all(
      requests.map((request, i) => thread.certify(request, fieldsFor(request, `subject-${i}`))),
    );
    const expected: CertifiedEnvelope[] = [];
    for (const [i, request] of requests.entries())
      expected.push(await certifyAndSeal(inline, request, fieldsFor(request, `subject-${i}`), authority));
    expect(threaded).toEqual(expected);
    expect(new Set(threaded.map((certified) => certified.leafHash)).size).toBe(200);
  });

  it('given a burst of rounds in one turn, then they leave in messages of ROUNDS_PER_MESSAGE as they are asked, the rest at the end of the turn', async () => {
    const worker = (thread as unknown as { running(): { postMessage(message: unknown): void } }).running();
    const sizes: number[] = [];
    const post = worker.postMessage.bind(worker);
    const spy = jest.spyOn(worker, 'postMessage').mockImplementation((message) => {
      sizes.push((message as { rounds: unknown[] }).rounds.length);
      post(message);
    });
    try {
      const count = 2 * ROUNDS_PER_MESSAGE + 1;
      const rounds: Promise<CertifiedEnvelope>[] = [];
      for (let i = 0; i < count; i++) {
        const request = bundleRequest(`burst-${i}`);
        rounds.push(thread.certify(request, fieldsFor(request, `burst-${i}`)));
        // The full messages are already on their way while the turn goes on.
        expect(sizes).toEqual(Array(Math.floor((i + 1) / ROUNDS_PER_MESSAGE)).fill(ROUNDS_PER_MESSAGE));
      }
      expect(new Set((await Promise.all(rounds)).map((certified) => certified.leafHash)).size).toBe(count);
      expect(sizes).toEqual([ROUNDS_PER_MESSAGE, ROUNDS_PER_MESSAGE, 1]);
    } finally {
      spy.mockRestore();
    }
  });

  it('given a bundle the validators reject, when the round runs on the thread, then it fails as the inline round does, with their reasons', async () => {
    const request = voteRequest({ artifact_hash: hex('f') });
    const failure = await thread.certify(request, fieldsFor(request)).catch((error: unknown) => error);
    const inlineFailure = await certifyAndSeal(inline, request, fieldsFor(request), authority).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(QuorumNotReachedError);
    expect(failure).toEqual(inlineFailure);
    expect(failure).toMatchObject({ accepted: 0, quorum: 3 });
    expect((failure as QuorumNotReachedError).reasons.join(' ')).toContain(`artifact_hash ${hex('f')}`);
  });

  it('given a request that cannot be examined, then the round fails as a validator failure and the thread keeps serving', async () => {
    const broken = { ...voteRequest(), bundle: null } as unknown as VoteRequest;
    const failure = await thread.certify(broken, fieldsFor(broken)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ValidatorNetworkError);
    expect((failure as ValidatorNetworkError).failures).toHaveLength(4);
    const request = voteRequest();
    await expect(thread.certify(request, fieldsFor(request))).resolves.toMatchObject({
      certificate: { type: 'GOV_CERTIFICATE_V1' },
    });
  });

  it('given a closed thread, then a round fails saying so', async () => {
    const closed = ValidatorThread.start(keys, authorityKey);
    await closed.close();
    const request = voteRequest();
    await expect(closed.certify(request, fieldsFor(request))).rejects.toThrow(
      'the validator thread is closed',
    );
  });
});
