/**
 * A witness (C2SP tlog-witness semantics): it cosigns a log's checkpoint only after checking the log's
 * signature and a consistency proof from the last tree it cosigned for that origin, so it never signs
 * two views of one log. The decision is a pure function of (stored state, request); `Witness` wraps
 * it with a state store and the cosigning key.
 *
 * Size 0: a log the witness has not seen yet is at size 0. From size 0 every tree is consistent and
 * the protocol sends an empty proof, which `decideAddCheckpoint` accepts without calling the RFC 9162
 * verifier (which rejects size 0, see proof-programs.ts).
 */
import { bytesEqual } from '../encoding/bytes';
import type { MaybePromise } from '../encoding/maybe-promise';
import { verifyConsistency } from '../proof/verify';
import { EMPTY_ROOT } from '../tree/hash';
import type { Checkpoint } from './checkpoint';
import type { NoteSigner } from './keys';
import { nodeCryptoSuite } from './node-crypto-suite';
import { type VerifierKey, verifyCheckpointNote } from './signature-checks';
import { cosignatureLine } from './signing';

/** What a witness remembers per log: the latest tree it cosigned. */
export interface WitnessLogState {
  readonly size: number;
  readonly rootHash: Uint8Array;
}

export interface AddCheckpointRequest {
  /** The size of the tree the proof starts from: the witness's latest size for this origin. */
  readonly oldSize: number;
  readonly consistencyProof: readonly Uint8Array[];
  /** The signed checkpoint note. */
  readonly checkpoint: string;
}

export type RefusalCode = 'unknown-log' | 'bad-signature' | 'conflict' | 'bad-request' | 'inconsistent';

export type WitnessDecision =
  | { readonly ok: true; readonly checkpoint: Checkpoint; readonly next: WitnessLogState }
  | { readonly ok: false; readonly code: RefusalCode; readonly reason: string; readonly knownSize?: number };

function refuse(code: RefusalCode, reason: string, knownSize?: number): WitnessDecision {
  return knownSize === undefined ? { ok: false, code, reason } : { ok: false, code, reason, knownSize };
}

/**
 * Decides whether to cosign: verifies the log signature, that `oldSize` is the size last cosigned
 * (`known`, undefined for a new log), and the consistency proof from there to the new checkpoint.
 */
export async function decideAddCheckpoint(
  known: WitnessLogState | undefined,
  request: AddCheckpointRequest,
  logKey: VerifierKey,
): Promise<WitnessDecision> {
  const verdict = await verifyCheckpointNote(request.checkpoint, logKey, nodeCryptoSuite);
  if (!verdict.ok) return refuse('bad-signature', verdict.reason);
  const { checkpoint } = verdict;
  const latest = known ?? { size: 0, rootHash: EMPTY_ROOT };
  if (request.oldSize !== latest.size) {
    return refuse(
      'conflict',
      `old size ${request.oldSize} is not the latest cosigned size ${latest.size}`,
      latest.size,
    );
  }
  if (checkpoint.size < latest.size) {
    return refuse(
      'bad-request',
      `checkpoint size ${checkpoint.size} is below the cosigned size ${latest.size}`,
    );
  }
  const next = { size: checkpoint.size, rootHash: checkpoint.rootHash };
  if (latest.size === 0 || checkpoint.size === latest.size) {
    if (request.consistencyProof.length > 0)
      return refuse('bad-request', 'the proof must be empty from this size');
    if (latest.size > 0 && !bytesEqual(latest.rootHash, checkpoint.rootHash)) {
      return refuse('inconsistent', `a different root for the cosigned size ${latest.size}: the log forked`);
    }
    return { ok: true, checkpoint, next };
  }
  const proof = verifyConsistency(
    latest.size,
    checkpoint.size,
    request.consistencyProof,
    latest.rootHash,
    checkpoint.rootHash,
  );
  if (!proof.ok) return refuse('inconsistent', `consistency proof rejected: ${proof.reason}`);
  return { ok: true, checkpoint, next };
}

/** Per-origin witness state; `compareAndSet` must be atomic so two requests cannot both advance. */
export interface WitnessStateStore {
  get(origin: string): MaybePromise<WitnessLogState | undefined>;
  /** Replaces the state of `origin` if it is still `expected`; returns whether it did. */
  compareAndSet(
    origin: string,
    expected: WitnessLogState | undefined,
    next: WitnessLogState,
  ): MaybePromise<boolean>;
}

export class MemoryWitnessStateStore implements WitnessStateStore {
  readonly #states = new Map<string, WitnessLogState>();

  get(origin: string): WitnessLogState | undefined {
    return this.#states.get(origin);
  }

  compareAndSet(origin: string, expected: WitnessLogState | undefined, next: WitnessLogState): boolean {
    const current = this.#states.get(origin);
    const same =
      current === undefined
        ? expected === undefined
        : expected !== undefined &&
          current.size === expected.size &&
          bytesEqual(current.rootHash, expected.rootHash);
    if (same) this.#states.set(origin, { size: next.size, rootHash: next.rootHash.slice() });
    return same;
  }
}

export type AddCheckpointResult =
  | { readonly ok: true; readonly cosignature: string; readonly timestamp: number }
  | { readonly ok: false; readonly code: RefusalCode; readonly reason: string; readonly knownSize?: number };

export class Witness {
  readonly #logs = new Map<string, VerifierKey>();

  constructor(
    readonly cosigner: NoteSigner,
    logKeys: readonly VerifierKey[],
    readonly state: WitnessStateStore = new MemoryWitnessStateStore(),
    readonly now: () => number = Date.now,
  ) {
    for (const key of logKeys) this.#logs.set(key.name, key);
  }

  /** Checks a checkpoint and, if it extends what this witness has seen, returns its cosignature line. */
  async addCheckpoint(request: AddCheckpointRequest): Promise<AddCheckpointResult> {
    const origin = request.checkpoint.slice(0, request.checkpoint.indexOf('\n'));
    const logKey = this.#logs.get(origin);
    if (!logKey)
      return { ok: false, code: 'unknown-log', reason: `unknown log origin ${JSON.stringify(origin)}` };
    const known = await this.state.get(origin);
    const decision = await decideAddCheckpoint(known, request, logKey);
    if (!decision.ok) return decision;
    if (!(await this.state.compareAndSet(origin, known, decision.next))) {
      const latest = await this.state.get(origin);
      return {
        ok: false,
        code: 'conflict',
        reason: 'another checkpoint was cosigned concurrently',
        knownSize: latest?.size,
      };
    }
    const timestamp = Math.floor(this.now() / 1000);
    return {
      ok: true,
      cosignature: cosignatureLine(request.checkpoint, this.cosigner, timestamp),
      timestamp,
    };
  }
}
