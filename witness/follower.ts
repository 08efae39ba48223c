/**
 * One round of a witness following one log (C2SP tlog-witness semantics, driven from the witness's
 * side): fetch the latest checkpoint, verify the log's signature, fetch a consistency proof from the
 * last size this witness cosigned, let `Witness` (merkle-core: `decideAddCheckpoint`, then the state
 * store's compare-and-set, which writes the state file) decide, and only then hand the cosignature to
 * the log. A refusal signs nothing and leaves the state as it was.
 */
import {
  bytesEqual,
  type Checkpoint,
  loadVerifierKey,
  type NoteSigner,
  parseCheckpoint,
  parseNote,
  type RefusalCode,
  type VerifierKey,
  verifyCheckpoint,
  verifyCosignature,
  Witness,
  type WitnessLogState,
  type WitnessStateStore,
} from '../merkle-core';
import { type LogClient, LogClientError, type SubmittedCosignature } from './log-client';

/** A tree the outcome talks about: its size and root hash. */
export interface TreeHead {
  readonly size: number;
  readonly rootHash: Uint8Array;
}

export type RoundOutcome =
  | {
      readonly kind: 'cosigned';
      readonly origin: string;
      /** What the witness had cosigned before (null: this log is new to it). */
      readonly previous: TreeHead | null;
      readonly checkpoint: Checkpoint;
      /** The signature line sent, and what the log recorded (an earlier one for a repeated size). */
      readonly cosignature: string;
      readonly timestamp: number;
      readonly recorded: SubmittedCosignature;
    }
  | {
      /** The log still serves the tree this witness cosigned, with its cosignature: nothing to do. */
      readonly kind: 'up-to-date';
      readonly origin: string;
      readonly checkpoint: Checkpoint;
    }
  | {
      readonly kind: 'refused';
      readonly origin: string;
      readonly code: RefusalCode;
      readonly reason: string;
      /** The tree the witness cosigned last and still stands by (null: none yet). */
      readonly previous: TreeHead | null;
      /** The size and root the checkpoint states; `verified` is false when its signature did not check. */
      readonly claimed: (TreeHead & { readonly verified: boolean }) | null;
      /** The refused checkpoint note, as served: evidence to keep. */
      readonly note: string;
    };

export interface WitnessFollowerOptions {
  client: LogClient;
  /** The log's verifier key (its name is the log's origin). */
  logKey: VerifierKey;
  /** The witness's cosignature/v1 key. */
  cosigner: NoteSigner;
  state: WitnessStateStore;
  /** Milliseconds since the epoch; cosignatures carry it in seconds. */
  now?: () => number;
}

export class WitnessFollower {
  readonly origin: string;
  private readonly witness: Witness;
  private readonly ownKey: VerifierKey;

  constructor(private readonly options: WitnessFollowerOptions) {
    this.origin = options.logKey.name;
    this.witness = new Witness(options.cosigner, [options.logKey], options.state, options.now);
    this.ownKey = loadVerifierKey(options.cosigner.verifierKey);
  }

  /**
   * Runs one round. Refusals are outcomes; a log that cannot be reached or answers an error throws
   * `LogClientError` (the state is then as the last completed step left it, which is always safe).
   */
  async round(): Promise<RoundOutcome> {
    const { client, logKey, state } = this.options;
    const note = await client.checkpoint();
    const known = (await state.get(this.origin)) ?? null;
    const previous = known && { size: known.size, rootHash: known.rootHash };
    const verdict = await verifyCheckpoint(note, logKey);
    if (!verdict.ok) return this.refused('bad-signature', verdict.reason, previous, note, claimedBy(note));
    const { checkpoint } = verdict;
    const claimed = { size: checkpoint.size, rootHash: checkpoint.rootHash, verified: true };
    if (known && (await this.alreadyCosigned(known, checkpoint, note))) {
      return { kind: 'up-to-date', origin: this.origin, checkpoint };
    }
    const oldSize = known?.size ?? 0;
    // From size 0, to the same size or to a smaller one (refused below) the proof is empty.
    const proof =
      oldSize === 0 || checkpoint.size <= oldSize
        ? []
        : await client.consistencyProof(oldSize, checkpoint.size);
    const result = await this.witness.addCheckpoint({ oldSize, consistencyProof: proof, checkpoint: note });
    if (!result.ok) return this.refused(result.code, result.reason, previous, note, claimed);
    // The state file already holds the new size: the cosignature may now leave the process.
    let recorded: SubmittedCosignature;
    try {
      recorded = await client.submitCosignature(checkpoint.size, result.cosignature);
    } catch (error) {
      if (!(error instanceof LogClientError)) throw error;
      throw new LogClientError(
        `cosigned ${this.origin} at size ${checkpoint.size} (state saved), but the log did not take the cosignature: ${error.message}. The next round sends it again.`,
        error.status,
      );
    }
    return {
      kind: 'cosigned',
      origin: this.origin,
      previous,
      checkpoint,
      cosignature: result.cosignature,
      timestamp: result.timestamp,
      recorded,
    };
  }

  /** The log serves the very tree last cosigned, already carrying this witness's valid cosignature. */
  private async alreadyCosigned(
    known: WitnessLogState,
    checkpoint: Checkpoint,
    note: string,
  ): Promise<boolean> {
    if (checkpoint.size !== known.size || !bytesEqual(checkpoint.rootHash, known.rootHash)) return false;
    return (await verifyCosignature(note, this.ownKey)).ok;
  }

  private refused(
    code: RefusalCode,
    reason: string,
    previous: TreeHead | null,
    note: string,
    claimed: (TreeHead & { verified: boolean }) | null,
  ): RoundOutcome {
    return { kind: 'refused', origin: this.origin, code, reason, previous, claimed, note };
  }
}

/** The size and root an unverified note states, if it parses at all. */
function claimedBy(note: string): (TreeHead & { verified: boolean }) | null {
  try {
    const { size, rootHash } = parseCheckpoint(parseNote(note).text);
    return { size, rootHash, verified: false };
  } catch {
    return null;
  }
}
