/**
 * The validator certificate GOV_CERTIFICATE_V1: a quorum of signed ACCEPT votes on one bundle, and the
 * check a third party runs on it with the validators' public keys.
 */
import type { KeyObject } from 'node:crypto';
import type { ValidatorCertificate, ValidatorCertificateCurrent, ValidatorVote } from '../../event-schemas';
import { canonicalHash } from './hash';
import { verifyRecord, without } from './signing';

export interface CertificateInput {
  body_hash: string;
  proposer_id: string;
  /** The ACCEPT votes; sorted here by validator_id so the certificate does not depend on arrival order. */
  votes: readonly ValidatorVote[];
  /** Validators in the round (n). */
  validators: number;
  /** ACCEPT votes needed (2f + 1). */
  quorum: number;
}

export function buildCertificate(input: CertificateInput): ValidatorCertificateCurrent {
  const unhashed = {
    type: 'GOV_CERTIFICATE_V1' as const,
    body_hash: input.body_hash,
    proposer_id: input.proposer_id,
    votes: [...input.votes].sort((a, b) => compareStrings(a.validator_id, b.validator_id)),
    validators: input.validators,
    quorum: input.quorum,
  };
  return { ...unhashed, cert_hash: canonicalHash(unhashed) };
}

/** How many validators the round had and how many ACCEPT votes it needed. */
export interface CertificateCounts {
  validators: number;
  quorum: number;
}

/**
 * The counts of a certificate of either form. Earlier releases wrote `quorum` for the round's size and
 * `threshold` for the votes needed; their certificates keep those fields (cert_hash covers them).
 */
export function certificateCounts(cert: ValidatorCertificate): CertificateCounts {
  return 'validators' in cert
    ? { validators: cert.validators, quorum: cert.quorum }
    : { validators: cert.quorum, quorum: cert.threshold };
}

/**
 * For a certificate of the earlier form, what its own fields say (its `quorum` counts the validators,
 * which a reader comparing a report with the JSON must know); null for a current certificate.
 */
export function earlierFormNote(cert: ValidatorCertificate): string | null {
  if ('validators' in cert) return null;
  const { validators, quorum } = certificateCounts(cert);
  return `this earlier certificate's fields say quorum ${validators} and threshold ${quorum}`;
}

/** Whether a vote's signature is the named validator's, over the canonical JSON of the vote without it. */
export function verifyVoteSignature(vote: ValidatorVote, publicKey: KeyObject): boolean {
  return verifyRecord(without(vote, 'signature'), vote.signature, publicKey);
}

export type CertificateVerdict = { ok: true } | { ok: false; reason: string };

/**
 * Checks the counts (one form, 1 ≤ quorum ≤ validators), every vote (signature, known and distinct
 * validator, same body), that the distinct ACCEPT votes reach the certificate's quorum and
 * `minimumQuorum` (a verifier's own demand, such as 2f + 1), and cert_hash.
 */
export function verifyCertificate(
  cert: ValidatorCertificate,
  publicKeysById: ReadonlyMap<string, KeyObject>,
  minimumQuorum = 1,
): CertificateVerdict {
  if (cert.type !== 'GOV_CERTIFICATE_V1') return fail('the certificate is not a GOV_CERTIFICATE_V1');
  const problem = countsProblem(cert);
  if (problem) return fail(problem);
  const quorum = Math.max(certificateCounts(cert).quorum, minimumQuorum);
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
  if (seen.size < quorum) return fail(`only ${seen.size} distinct ACCEPT votes; the quorum is ${quorum}`);
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

/** Why the certificate's counts cannot be right, or null. A reader of the log may hand over any JSON. */
function countsProblem(cert: ValidatorCertificate): string | null {
  if ('validators' in cert && 'threshold' in cert)
    return 'the certificate mixes its two forms: validators with quorum, or (earlier releases) quorum with threshold';
  const { validators, quorum } = certificateCounts(cert);
  if (!Number.isInteger(validators) || !Number.isInteger(quorum) || quorum < 1 || quorum > validators)
    return `the certificate declares a quorum of ${quorum} of ${validators} validators`;
  if (cert.votes.length > validators)
    return `the certificate carries ${cert.votes.length} votes from a round of ${validators} validators`;
  return null;
}

function fail(reason: string): CertificateVerdict {
  return { ok: false, reason };
}
