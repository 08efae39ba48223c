/** The messages between an embedded event store and its writer thread (event-writer-thread.ts). */
import type { AppendRequest, WireOutcome } from './group-commit';

export interface WriterThreadData {
  file: string;
}

export type WriterRequest =
  | { kind: 'commit'; id: number; group: AppendRequest[]; recordedAt: string }
  | { kind: 'close' };

export type WriterReport =
  | { kind: 'ready' }
  | { kind: 'committed'; id: number; outcomes: WireOutcome[] }
  /** The transaction failed (nothing of the group is stored): the error's message and code. */
  | { kind: 'failed'; id: number; message: string; code?: string }
  | { kind: 'closed' };
