/** Messages between the admission path and the validator thread (validator-thread.ts). */
import type { KeyObject } from 'node:crypto';
import type { CertifiedEnvelope, EnvelopeFields } from '../../domain/governance/admission-round';
import type { VoteRequest } from '../../domain/governance/validators';
import type { ValidatorVote } from '../../event-schemas';

export interface ValidatorThreadData {
  /** The validators' Ed25519 private keys (KeyObjects cross threads by structured clone). */
  privateKeys: KeyObject[];
  /** The node (authority) key, which seals the envelopes. */
  authorityKey: KeyObject;
}

/** One admission's round: certify the bundle and seal the envelope with these fields. */
export interface RoundItem {
  id: number;
  request: VoteRequest;
  fields: EnvelopeFields;
}

/** Every round asked during one turn of the event loop travels in one message. */
export interface RoundBatch {
  rounds: RoundItem[];
}

/**
 * Why a round failed, in a form that crosses threads (errors lose their class there): the quorum
 * and network failures are rebuilt as the round's own errors, which the route turns into the spec's 500.
 */
export type RoundFailure =
  | { kind: 'quorum'; accepted: number; quorum: number; reasons: string[]; votes: ValidatorVote[] }
  | {
      kind: 'network';
      accepted: number;
      quorum: number;
      failures: { validator_id: string; message: string }[];
    }
  | { kind: 'error'; message: string };

/** Each answer is its own message, sent as soon as the round is done. */
export type RoundAnswer =
  | { id: number; certified: CertifiedEnvelope }
  | { id: number; failure: RoundFailure };
