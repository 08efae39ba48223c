/** Messages between the admission path and the validator thread (runtime/validator-thread.ts). */
import type { KeyObject } from 'node:crypto';
import type { SealedEnvelope, UnsignedEnvelope } from '../domain/envelope';
import type { VoteRequest } from '../domain/validators';
import type { ValidatorVote } from '../event-schemas';

export interface ValidatorThreadData {
  /** The validators' Ed25519 private keys (KeyObjects cross threads by structured clone). */
  privateKeys: KeyObject[];
  /** The node (authority) key, when the thread also seals envelopes. */
  authorityKey: KeyObject | null;
}

/** An envelope to sign with the authority key and leaf-hash. */
export interface SealItem {
  id: number;
  unsigned: UnsignedEnvelope;
}

export type SealAnswer = { id: number; sealed: SealedEnvelope } | { id: number; error: string };

/** One round's request, and which of the thread's validators (by index) are asked. */
export interface VoteItem {
  id: number;
  request: VoteRequest;
  validators: number[];
}

/** Every round asked during one turn of the event loop travels in one message. */
export interface VoteBatch {
  items: VoteItem[];
  seals: SealItem[];
}

export type VoteAnswer = { vote: ValidatorVote } | { error: string };

export interface VotedBatch {
  items: Array<{ id: number; answers: VoteAnswer[] }>;
  sealed: SealAnswer[];
}
