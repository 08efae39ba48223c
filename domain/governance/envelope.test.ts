import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import type { GovernanceEnvelope } from '../../event-schemas';
import { validateRecord } from '../../event-schemas';
import { authorityNodeIdOf, buildEnvelope, verifyEnvelope } from './envelope';
import { ed25519Keys, voteRequest } from './test-fixtures';
import { createLocalValidators, runValidatorRound } from './validators';

const [authorityKey, otherKey] = ed25519Keys(2) as [KeyObject, KeyObject];
const authorityPublic = createPublicKey(authorityKey);

async function envelope(): Promise<GovernanceEnvelope> {
  const request = voteRequest();
  const certificate = await runValidatorRound(createLocalValidators(ed25519Keys(4)), request);
  return buildEnvelope(
    {
      bundle_hash: request.artifact_hash,
      payload_uri: `https://gov.example/gov/v1/bundles/${request.artifact_hash}`,
      tenant_id: request.bundle.tenant_id,
      subject_id: request.bundle.subject_id,
      certificate,
      log_binding: { log_id: 'gov.example/log+1a2b3c4d+AQID', log_url: 'https://log.gov.example' },
      generated_at: '2025-06-01T12:00:01.000Z',
    },
    { privateKey: authorityKey, nodeId: authorityNodeIdOf(authorityPublic) },
  );
}

describe('governance envelope', () => {
  it('authority_node_id is node_ + the first 24 hex of SHA-256 of the DER SubjectPublicKeyInfo', () => {
    const der = authorityPublic.export({ type: 'spki', format: 'der' });
    expect(authorityNodeIdOf(authorityPublic)).toBe(
      `node_${createHash('sha256').update(der).digest('hex').slice(0, 24)}`,
    );
  });

  it('given a certificate, then the envelope carries its votes and hash, validates and verifies', async () => {
    const env = await envelope();
    expect(env).toMatchObject({
      type: 'GOV_GOVERNANCE_ENVELOPE_V1',
      version: 1,
      artifact_type: 'GOV_PROOF_BUNDLE_V1',
      authority_node_id: authorityNodeIdOf(authorityPublic),
    });
    expect(env.validator_signatures).toHaveLength(4);
    expect(validateRecord('governance-envelope', env)).toEqual({ ok: true, value: env });
    expect(verifyEnvelope(env, authorityPublic)).toBe(true);
  });

  it.each<[string, (e: GovernanceEnvelope) => GovernanceEnvelope]>([
    ['a changed artifact hash', (e) => ({ ...e, artifact_hash: '0'.repeat(64) })],
    [
      'a dropped validator signature',
      (e) => ({ ...e, validator_signatures: e.validator_signatures.slice(1) }),
    ],
    [
      'a changed log binding',
      (e) => ({ ...e, log_binding: { ...e.log_binding, log_url: 'https://evil.example' } }),
    ],
    [
      'a garbled signature',
      (e) => ({ ...e, authority_signature: `${e.authority_signature.slice(0, -4)}AAA=` }),
    ],
    ['a non-base64 signature', (e) => ({ ...e, authority_signature: 'not base64!' })],
  ])('given %s, then the authority signature no longer verifies', async (_case, tamper) => {
    expect(verifyEnvelope(tamper(await envelope()), authorityPublic)).toBe(false);
  });

  it('given another node key, then the signature does not verify', async () => {
    expect(verifyEnvelope(await envelope(), createPublicKey(otherKey))).toBe(false);
  });

  it('given a certificate for another bundle, then no envelope is built', async () => {
    const request = voteRequest();
    const certificate = await runValidatorRound(createLocalValidators(ed25519Keys(4)), request);
    expect(() =>
      buildEnvelope(
        {
          bundle_hash: '1'.repeat(64),
          payload_uri: 'x',
          tenant_id: 't',
          subject_id: 's',
          certificate,
          log_binding: { log_id: 'l', log_url: 'u' },
          generated_at: '2025-06-01T12:00:01.000Z',
        },
        { privateKey: authorityKey, nodeId: 'node_x' },
      ),
    ).toThrow(/another bundle/);
  });
});
