/**
 * The validator certificate GOV_CERTIFICATE_V1: a quorum of signed ACCEPT votes on one bundle, and the
 * check a third party runs on it with the validators' public keys.
 */
import type { KeyObject } from 'node:crypto';
import type { ValidatorCertificate, ValidatorVote } from '../event-schemas';
import { canonicalHash } from './hash';
import { verifyRecord, without } from './signing';

export interface CertificateInput {
  body_hash: string;
  proposer_id: string;
  /** The ACCEPT votes; sorted here by validator_id so the certificate does not depend on arrival order. */
  votes: readonly ValidatorVote[];
  quorum: number;
  threshold: number;
}

export function buildCertificate(input: CertificateInput): ValidatorCertificate {
  const unhashed = {
    type: 'GOV_CERTIFICATE_V1' as const,
    body_hash: input.body_hash,
    proposer_id: input.proposer_id,
    votes: [...input.votes].sort((a, b) => compareStrings(a.validator_id, b.validator_id)),
    quorum: input.quorum,
    threshold: input.threshold,
  };
  return { ...unhashed, cert_hash: canonicalHash(unhashed) };
}

/** Whether a vote's signature is the named validator's, over the canonical JSON of the vote without it. */
export function verifyVoteSignature(vote: ValidatorVote, publicKey: KeyObject): boolean {
  return verifyRecord(without(vote, 'signature'), vote.signature, publicKey);
}

export type CertificateVerdict = { ok: true } | { ok: false; reason: string };

/** Checks every vote (signature, known and distinct validator, same body), the quorum and cert_hash. */
export function verifyCertificate(
  cert: ValidatorCertificate,
  publicKeysById: ReadonlyMap<string, KeyObject>,
  threshold: number,
): CertificateVerdict {
  if (cert.type !== 'GOV_CERTIFICATE_V1') return fail('the certificate is not a GOV_CERTIFICATE_V1');
  const seen = new Set<string>();
  for (const [index, vote] of cert.votes.entries()) {
    const which = `vote ${index} (validator ${vote.validator_id})`;
    if (vote.type !== 'GOV_VOTE_V1') return fail(`${which} is not a GOV_VOTE_V1`);
    if (vote.decision !== 'ACCEPT') return fail(`${which} is ${vote.decision}, not ACCEPT`);
    if (vote.body_hash !== cert.body_hash) return fail(`${which} is for another bundle (${vote.body_hash})`);
    const key = publicKeysById.get(vote.validator_id);
    if (!key) return fail(`${which} is from an unknown validator`);
    if (seen.has(vote.validator_id)) return fail(`${which} repeats a validator`);
    seen.add(vote.validator_id);
    if (!verifyVoteSignature(vote, key)) return fail(`${which} has an invalid signature`);
  }
  if (seen.size < threshold)
    return fail(`only ${seen.size} distinct ACCEPT votes; the quorum threshold is ${threshold}`);
  if (!publicKeysById.has(cert.proposer_id))
    return fail(`proposer ${cert.proposer_id} is not a known validator`);
  if (canonicalHash(without(cert, 'cert_hash')) !== cert.cert_hash)
    return fail("cert_hash is not the SHA-256 of the certificate's canonical JSON");
  return { ok: true };
}

/** Code-unit order, not locale order: every node must sort ids identically. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function fail(reason: string): CertificateVerdict {
  return { ok: false, reason };
}
