/** One measured figure. `npm run bench` prints every row as a table and writes them all as JSON. */
export interface BenchRow {
  /** Which part of the system, e.g. "event-store" or "merkle-core". */
  suite: string;
  /** What was measured, e.g. "durable appends, 1 event/append, concurrency 64". */
  metric: string;
  value: number;
  unit: string;
  /** Human-readable target, e.g. ">= 20000"; omitted when there is none. */
  target?: string;
  /** Whether `value` meets `target`; omitted when there is no target. */
  met?: boolean;
  /** The same metric for a named peer measured in the same run. */
  peer?: { name: string; value: number };
  /** ours / peer, oriented so that > 1 means we are better. */
  ratio?: number;
  notes?: string;
  /** Further figures for bench/results/latest.json only (e.g. the soak's per-minute series). */
  details?: Record<string, unknown>;
}

export type BenchSuite = () => Promise<BenchRow[]>;
