/**
 * One validator round: ask every validator in parallel, count valid ACCEPT votes, and certify when at
 * least 2f + 1 of n = 3f + 1 agree. Never returns a partial result: the caller gets a certificate or an
 * error, so no envelope is written without a quorum.
 */
import { createHash, type KeyObject } from 'node:crypto';
import type { ValidatorCertificateCurrent, ValidatorVote } from '../../event-schemas';
import { buildCertificate, compareStrings, verifyVoteSignature } from './certificate';
import { isSha256Hex } from './hash';
import type { VoteRequest } from './vote-checks';

/** What the round asks of each validator (a port; validators.ts has the local, in-process one). */
export interface Validator {
  /** hex SHA-256 of the validator key's DER SubjectPublicKeyInfo. */
  readonly id: string;
  /** When known, the round checks each vote's signature before counting it. */
  readonly publicKey?: KeyObject;
  /**
   * An in-process signer whose votes this process made itself: re-verifying them proves nothing and
   * costs an Ed25519 verification per vote (the auditor still verifies every stored vote).
   */
  readonly inProcess?: boolean;
  /** Resolves with a signed vote; rejects only when the validator cannot be reached or fails. */
  vote(request: VoteRequest): Promise<ValidatorVote>;
}

export interface RoundOptions {
  /** ACCEPT votes needed; default 2f + 1 with f = ⌊(n − 1) / 3⌋. */
  quorum?: number;
}

/** Enough validators said REJECT (or did not say ACCEPT) that the bundle cannot be certified. */
export class QuorumNotReachedError extends Error {
  override readonly name = 'QuorumNotReachedError';
  constructor(
    readonly accepted: number,
    /** ACCEPT votes needed. */
    readonly quorum: number,
    /** Distinct reasons given in REJECT votes. */
    readonly reasons: string[],
    readonly votes: ValidatorVote[],
  ) {
    super(`validator quorum not reached: ${accepted} ACCEPT of ${quorum} needed (${reasons.join('; ')})`);
  }
}

/** Validators that could not be reached (or answered with an unusable vote) kept the round from a quorum. */
export class ValidatorNetworkError extends Error {
  override readonly name = 'ValidatorNetworkError';
  constructor(
    readonly accepted: number,
    /** ACCEPT votes needed. */
    readonly quorum: number,
    readonly failures: { validator_id: string; message: string }[],
  ) {
    super(
      `validator network error: ${accepted} ACCEPT of ${quorum} needed; ` +
        failures.map((f) => `${f.validator_id}: ${f.message}`).join('; '),
    );
  }
}

export function quorumThreshold(n: number): number {
  const f = Math.floor((n - 1) / 3);
  return 2 * f + 1;
}

/** The round's proposer: sorted ids[SHA-256(32 raw bytes of the artifact hash) mod n]. */
export function proposerOf(validatorIds: readonly string[], artifactHash: string): string {
  if (validatorIds.length === 0) throw new RangeError('no validators');
  if (!isSha256Hex(artifactHash)) throw new TypeError('artifact hash must be 64 lowercase hex characters');
  const sorted = [...validatorIds].sort(compareStrings);
  const digest = createHash('sha256').update(Buffer.from(artifactHash, 'hex')).digest('hex');
  return sorted[Number(BigInt(`0x${digest}`) % BigInt(sorted.length))] as string;
}

export async function runValidatorRound(
  validators: readonly Validator[],
  request: VoteRequest,
  options: RoundOptions = {},
): Promise<ValidatorCertificateCurrent> {
  const n = validators.length;
  if (n === 0) throw new RangeError('a validator round needs at least one validator');
  if (new Set(validators.map((v) => v.id)).size !== n) throw new RangeError('validator ids must be distinct');
  const quorum = options.quorum ?? quorumThreshold(n);
  if (!Number.isInteger(quorum) || quorum < 1 || quorum > n)
    throw new RangeError(`quorum ${quorum} must be an integer between 1 and ${n}`);

  // `then` turns a synchronous throw inside vote() into a rejection like any other failure.
  const answers = await Promise.allSettled(
    validators.map((v) => Promise.resolve().then(() => v.vote(request))),
  );
  const accepts: ValidatorVote[] = [];
  const rejects: ValidatorVote[] = [];
  const failures: { validator_id: string; message: string }[] = [];
  answers.forEach((answer, i) => {
    const validator = validators[i] as Validator;
    if (answer.status === 'rejected') {
      failures.push({ validator_id: validator.id, message: messageOf(answer.reason) });
      return;
    }
    const problem = unusable(answer.value, validator, request.artifact_hash);
    if (problem) failures.push({ validator_id: validator.id, message: problem });
    else if (answer.value.decision === 'ACCEPT') accepts.push(answer.value);
    else rejects.push(answer.value);
  });

  if (accepts.length >= quorum)
    return buildCertificate({
      body_hash: request.artifact_hash,
      proposer_id: proposerOf(
        validators.map((v) => v.id),
        request.artifact_hash,
      ),
      votes: accepts,
      validators: n,
      quorum,
    });
  // Blame the network only when the missing validators could have made the quorum.
  if (failures.length > 0 && accepts.length + failures.length >= quorum)
    throw new ValidatorNetworkError(accepts.length, quorum, failures);
  const reasons = [...new Set(rejects.flatMap((v) => v.reasons ?? ['no reason given']))];
  for (const failure of failures)
    reasons.push(`validator ${failure.validator_id} failed: ${failure.message}`);
  throw new QuorumNotReachedError(accepts.length, quorum, reasons, [...accepts, ...rejects]);
}

/** Why a returned vote cannot be counted, or null. */
function unusable(vote: ValidatorVote, validator: Validator, artifactHash: string): string | null {
  if (vote === null || typeof vote !== 'object' || vote.type !== 'GOV_VOTE_V1')
    return 'returned no GOV_VOTE_V1';
  if (vote.validator_id !== validator.id) return `returned a vote signed as ${vote.validator_id}`;
  if (vote.decision === 'ACCEPT' && vote.body_hash !== artifactHash)
    return `accepted another bundle (${vote.body_hash})`;
  if (vote.decision !== 'ACCEPT' && vote.decision !== 'REJECT') return `returned decision ${vote.decision}`;
  if (validator.publicKey && !validator.inProcess && !verifyVoteSignature(vote, validator.publicKey))
    return 'returned a bad signature';
  return null;
}

function messageOf(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}
