/** Messages between the governed-action pipeline and the record sealing thread (record-seal-thread.ts). */
import type { KeyObject } from 'node:crypto';
import type { AgentActionInput } from '../../domain/platform/records';
import type { AgentAction } from '../../event-schemas';

export interface RecordSealThreadData {
  /** The node (authority) key, which signs the platform's records. */
  authorityKey: KeyObject;
}

/** One action's record to build and sign. */
export interface SealItem {
  id: number;
  input: AgentActionInput;
  nonces: { content: string; principal: string };
}

/** Every record asked during one turn of the event loop (up to a few) travels in one message. */
export interface SealBatch {
  items: SealItem[];
}

/** Each answer is its own message, sent as soon as the record is signed. */
export type SealAnswer =
  | { id: number; record: AgentAction; leafHash: string }
  | { id: number; error: string };
