/**
 * The governance envelope GOV_GOVERNANCE_ENVELOPE_V1: the authorization leaf. It binds the bundle hash,
 * the validator signatures and the log, and is signed by the clearinghouse node (the authority).
 */
import type { KeyObject } from 'node:crypto';
import type { GovernanceEnvelope, ValidatorCertificate } from '../../event-schemas';
import { toHex } from '../../merkle-core';
import { leafHashOfRecord } from '../log';
import { publicKeyId, signRecord, verifyRecord, without } from './signing';

/** `node_` + the first 24 hex digits of SHA-256 of the node key's DER SubjectPublicKeyInfo. */
export function authorityNodeIdOf(publicKey: KeyObject): string {
  return `node_${publicKeyId(publicKey).slice(0, 24)}`;
}

export interface EnvelopeInput {
  /** The proof bundle's artifact_hash. */
  bundle_hash: string;
  /** Where the bundle is served (its replay_url). */
  payload_uri: string;
  tenant_id: string;
  subject_id: string;
  certificate: ValidatorCertificate;
  log_binding: { log_id: string; log_url: string };
  generated_at: string;
}

export interface Authority {
  privateKey: KeyObject;
  nodeId: string;
}

export type UnsignedEnvelope = Omit<GovernanceEnvelope, 'authority_signature'>;

/** A signed envelope and the leaf hash it is logged under. */
export interface SealedEnvelope {
  envelope: GovernanceEnvelope;
  leafHash: string;
}

export function buildEnvelope(input: EnvelopeInput, authority: Authority): GovernanceEnvelope {
  return signEnvelope(unsignedEnvelope(input, authority.nodeId), authority.privateKey);
}

/** The envelope's fields before the authority signs them. */
export function unsignedEnvelope(input: EnvelopeInput, authorityNodeId: string): UnsignedEnvelope {
  if (input.certificate.body_hash !== input.bundle_hash)
    throw new Error('the certificate is for another bundle than the envelope');
  return {
    type: 'GOV_GOVERNANCE_ENVELOPE_V1',
    version: 1,
    artifact_type: 'GOV_PROOF_BUNDLE_V1',
    artifact_hash: input.bundle_hash,
    payload_uri: input.payload_uri,
    tenant_id: input.tenant_id,
    subject_id: input.subject_id,
    validator_signatures: input.certificate.votes.map((vote) => ({
      validator_id: vote.validator_id,
      signature: vote.signature,
    })),
    certificate_hash: input.certificate.cert_hash,
    authority_node_id: authorityNodeId,
    log_binding: { log_id: input.log_binding.log_id, log_url: input.log_binding.log_url },
    generated_at: input.generated_at,
  };
}

function signEnvelope(unsigned: UnsignedEnvelope, privateKey: KeyObject): GovernanceEnvelope {
  return { ...unsigned, authority_signature: signRecord(unsigned, privateKey) };
}

/** Signs the envelope and computes its leaf hash (RFC 6962 leaf of its canonical JSON). */
export function sealEnvelope(unsigned: UnsignedEnvelope, privateKey: KeyObject): SealedEnvelope {
  const envelope = signEnvelope(unsigned, privateKey);
  return { envelope, leafHash: toHex(leafHashOfRecord(envelope)) };
}

/** Whether authority_signature is the given node key's signature over the rest of the envelope. */
export function verifyEnvelope(envelope: GovernanceEnvelope, authorityPublicKey: KeyObject): boolean {
  return verifyRecord(
    without(envelope, 'authority_signature'),
    envelope.authority_signature,
    authorityPublicKey,
  );
}
