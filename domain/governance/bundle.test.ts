import { createHash } from 'node:crypto';
import { validateRecord } from '../../event-schemas';
import { canonicalJson } from '../../merkle-core';
import { artifactHashOf, buildProofBundle, sha256Hex } from './bundle';
import { hex, NOW, TENANT, validBody } from './test-fixtures';

describe('proof bundle', () => {
  const bundle = buildProofBundle({
    tenant_id: TENANT,
    body: validBody(),
    parent_bundle_hash: null,
    generated_at: NOW,
  });

  it('given valid evidence, then the bundle carries it with tenant, parent and time, and validates', () => {
    const body = validBody();
    expect(bundle).toEqual({
      type: 'GOV_PROOF_BUNDLE_V1',
      version: 1,
      tenant_id: TENANT,
      subject_id: body.subject_id,
      parent_bundle_hash: null,
      replay_seed: body.replay_seed,
      gate_results: body.gate_results,
      evidence: body.evidence,
      state_before_hash: body.state_before_hash,
      state_after_hash: body.state_after_hash,
      generated_at: NOW,
    });
    expect(validateRecord('proof-bundle', bundle).ok).toBe(true);
  });

  it('given a built bundle, when the request object changes afterwards, then the bundle does not', () => {
    const body = validBody();
    const built = buildProofBundle({
      tenant_id: TENANT,
      body,
      parent_bundle_hash: hex('9'),
      generated_at: NOW,
    });
    const before = artifactHashOf(built);
    body.gate_results.G1.confidence_interval_lower = 0.1;
    body.evidence.dataset_provenance_hash = hex('0');
    expect(artifactHashOf(built)).toBe(before);
  });

  it('artifact_hash is hex SHA-256 of the RFC 8785 canonical JSON, independent of key order', () => {
    const expected = createHash('sha256').update(canonicalJson(bundle)).digest('hex');
    expect(artifactHashOf(bundle)).toBe(expected);
    const reordered = Object.fromEntries(Object.entries(bundle).reverse()) as typeof bundle;
    expect(artifactHashOf(reordered)).toBe(expected);
    expect(artifactHashOf({ ...bundle, parent_bundle_hash: hex('1') })).not.toBe(expected);
  });

  it('sha256Hex hashes text as UTF-8 and bytes as they are, in lowercase hex', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex(new Uint8Array([0x61, 0x62, 0x63]))).toBe(sha256Hex('abc'));
  });
});
