/**
 * An admission's signing step as one unit: the validator round certifies the bundle, the certificate
 * is bound into the envelope, and the node signs the envelope and leaf-hashes it. Being one unit, it
 * can run elsewhere (the validator thread) in a single message with exactly the inline result.
 */
import type { ValidatorCertificate } from '../../event-schemas';
import {
  type Authority,
  type EnvelopeInput,
  type SealedEnvelope,
  sealEnvelope,
  unsignedEnvelope,
} from './envelope';
import { runValidatorRound } from './validator-round';
import type { Validator } from './validators';
import type { VoteRequest } from './vote-checks';

/** What the envelope says besides the certificate, which the round makes. */
export type EnvelopeFields = Omit<EnvelopeInput, 'certificate'>;

export interface CertifiedEnvelope extends SealedEnvelope {
  certificate: ValidatorCertificate;
}

/** Certifies and seals somewhere else (the validator thread): the same bytes, another core. */
export type AdmissionCertifier = (request: VoteRequest, fields: EnvelopeFields) => Promise<CertifiedEnvelope>;

/**
 * Runs the round and seals its envelope. Fails as the round does (QuorumNotReachedError,
 * ValidatorNetworkError), and then nothing is signed.
 */
export async function certifyAndSeal(
  validators: readonly Validator[],
  request: VoteRequest,
  fields: EnvelopeFields,
  authority: Authority,
): Promise<CertifiedEnvelope> {
  const certificate = await runValidatorRound(validators, request);
  const sealed = sealEnvelope(
    unsignedEnvelope({ ...fields, certificate }, authority.nodeId),
    authority.privateKey,
  );
  return { certificate, ...sealed };
}
