/**
 * Discrepancies found by the live check, in the audit engine's `Discrepancy` shape. A server that is
 * wrong everywhere would otherwise produce one finding per tile or head: past `maxPerCheck` findings
 * of one check, the rest are only counted and summed up in one closing finding.
 */
import type { Discrepancy } from './index';

/**
 * The live check's codes, with what each one means (for `gov audit --help` and the README, like the
 * engine's CHECKS table). Codes are stable: scripts may match on them.
 */
export const LIVE_CHECKS = {
  'live-unreachable':
    'a request to the server failed for good (network error, timeout or server error after retries)',
  'live-checkpoint-invalid': 'a tree head the server serves is malformed or not signed by a trusted log key',
  'live-root-mismatch': "the server's signed root at a size differs from the root recomputed from the events",
  'live-checkpoint-mismatch':
    'at some size the server serves a signed checkpoint other than the recorded one (same root)',
  'live-head-missing': 'the server does not serve a tree head the events record as signed',
  'live-tile-mismatch':
    'a level-0 tile the server serves (or fails to serve) differs from the recomputed leaf hashes',
  'live-proof-invalid':
    'an inclusion proof the server serves is missing or does not verify against its signed root',
  'live-consistency-invalid':
    'a consistency proof the server serves is missing or does not verify between the recomputed roots',
  'live-log-key':
    'the key the server publishes for a log other than the shared one is not the key its LogCreated event gives',
  'live-anchor-missing':
    'the server has an anchor leaf of the events under its signed shared tree, yet does not serve it at …/anchor',
  'live-anchor-invalid':
    'an anchor the server serves does not prove: its record is not its leaf, or its shared STH or inclusion proof does not verify',
  'live-anchor-mismatch':
    "the server's anchor of a log at a size is not the one the events hold, or its tree head of the log at that size is not the anchored checkpoint",
} as const;

export type LiveCheckCode = keyof typeof LIVE_CHECKS;

/** One finding, in the audit engine's `Discrepancy` shape (no event is at fault: position is null). */
export interface LiveDiscrepancy extends Discrepancy {
  position: null;
  event_id: null;
  event_type: null;
  check: LiveCheckCode;
}

/** Where a finding applies: a leaf and/or a tree size of the log. */
export interface FindingPlace {
  /** The log other than the checked one it concerns (an anchored log). */
  log?: string;
  leaf_index?: number;
  tree_size?: number;
}

export class LiveFindings {
  readonly #listed: LiveDiscrepancy[] = [];
  readonly #unlisted = new Map<LiveCheckCode, number>();
  readonly #perCheck = new Map<LiveCheckCode, number>();

  constructor(readonly maxPerCheck = 100) {}

  add(check: LiveCheckCode, message: string, place: FindingPlace = {}): void {
    const seen = this.#perCheck.get(check) ?? 0;
    this.#perCheck.set(check, seen + 1);
    if (seen >= this.maxPerCheck) {
      this.#unlisted.set(check, (this.#unlisted.get(check) ?? 0) + 1);
      return;
    }
    this.#listed.push({ position: null, event_id: null, event_type: null, ...place, check, message });
  }

  /** Findings of every check, listed or not. */
  get count(): number {
    let total = 0;
    for (const n of this.#perCheck.values()) total += n;
    return total;
  }

  /** How many findings of `check` there are, listed or not. */
  countOf(check: LiveCheckCode): number {
    return this.#perCheck.get(check) ?? 0;
  }

  /** The listed findings, in the order found, then one summary per check that had more. */
  list(): LiveDiscrepancy[] {
    const summaries = [...this.#unlisted].map(
      ([check, n]): LiveDiscrepancy => ({
        position: null,
        event_id: null,
        event_type: null,
        check,
        message: `${n} more '${check}' discrepanc${n === 1 ? 'y was' : 'ies were'} found but not listed (only the first ${this.maxPerCheck} are)`,
      }),
    );
    return [...this.#listed, ...summaries];
  }
}
