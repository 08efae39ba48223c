/**
 * The transparency logs as the rest of the service sees them: their leaves and signed tree heads, what
 * the public log endpoints read (`PublishedLog`), and where a process gets the logs it serves
 * (`LogSource`, `LogDirectory`: the sequencer, or a follower of its events). Types, and the error of a
 * log not signed yet: the sequencer and follower in projectors/log implement them, the read side and
 * the command handlers use them.
 */
import type { JsonSth } from '../domain/log';
import type { TileLog } from '../merkle-core';

/** The kinds of record admitted to the log, by their leaf type. */
export type LeafType =
  | 'GOV_GOVERNANCE_ENVELOPE_V1'
  | 'GOV_EXECUTION_TRACE_V1'
  | 'GOV_VARIANCE_RECORD_V1'
  | 'GOV_LOG_ANCHOR_V1'
  | 'GOV_AGENT_PASSPORT_V1'
  | 'GOV_AGENT_CONFIG_V1'
  | 'GOV_AGENT_ACTION_V1';

/** One leaf of the public log: its hash, where it sits, and the record whose canonical JSON it hashes. */
export interface LeafView {
  leaf_index: number;
  leaf_hash: string;
  leaf_type: LeafType;
  tenant_id: string;
  subject_id: string;
  /** For authorization leaves: the proof bundle's hash (served at replay_url). */
  artifact_hash: string | null;
  /** The admitted record; SHA-256(0x00 ‖ RFC 8785 JSON of it) is `leaf_hash`. */
  record: object;
  admitted_at: string;
}

/**
 * A signed tree head in both spellings: the JSON STH of the API and the C2SP checkpoint note (the log's
 * signature line, then witness cosignature lines, the STH's `witness_signatures` in the same order).
 */
export interface PublishedTreeHead {
  sth: JsonSth;
  checkpoint: string;
}

/**
 * What the public log endpoints read. Everything it answers is covered by a signed tree head: leaves
 * integrated but not yet signed are invisible here.
 */
export interface PublishedLog {
  /** The log's verifier key in note format (`origin+keyid+base64`); also the STH's `log_id`. */
  readonly verifierKey: string;
  /**
   * The newest signed tree head. Its checkpoint note carries the log's signature line first, then the
   * cosignatures of trusted witnesses (the STH's `witness_signatures`). Must not read a store.
   */
  latest(): PublishedTreeHead;
  /**
   * The latest head once this process holds every head the event store holds now. A process that
   * follows the sequencer may trail it by a poll of the store while another process has handed a
   * newer head out (in a 201): call this before answering that a size or a leaf is beyond the log.
   */
  caughtUp(): Promise<PublishedTreeHead>;
  /**
   * The tree head signed at exactly `treeSize` with the witness cosignatures recorded for it, or null
   * when none was signed. Every head this log has handed out is found, however far the read model of
   * heads trails. Reading the latest size also brings what `latest()` serves up to date.
   */
  treeHeadAt(treeSize: number): Promise<PublishedTreeHead | null>;
  /** RFC 9162 root of the first `treeSize` leaves (treeSize ≤ latest size). */
  root(treeSize: number): Uint8Array;
  leafHash(index: number): Uint8Array;
  inclusionProof(index: number, treeSize: number): Uint8Array[];
  consistencyProof(from: number, to: number): Uint8Array[];
  /** C2SP tile hashes (`width` × 32 bytes) within the latest signed size. */
  tile(level: number, index: number, width: number): Uint8Array;
  leafByHash(leafHashHex: string): Promise<LeafView | null>;
  /**
   * The index of the leaf with this hash within the latest signed size, from memory (the proof
   * route's lookup: no store read, no record parsed), or null.
   */
  leafIndexByHash(leafHashHex: string): number | null;
  leafByIndex(index: number): Promise<LeafView | null>;
}

/**
 * Every log a process serves, by name, as the public routes read them (built on the `LogDirectory`).
 * Looking a known log up reads no store, so the hot routes stay as fast for every log.
 */
export interface PublishedLogs {
  /** The log named `name` if this process serves it already (from memory), else null. */
  get(name: LogName): PublishedLog | null;
  /**
   * The log named `name`, once this process has read every log the store holds (another process may
   * have just created it); null when there is none by that name. Rejects with `LogNotSignedError`
   * while the log has no signed tree head.
   */
  find(name: LogName): Promise<PublishedLog | null>;
  /** Every log the store holds, `shared` first, then by name. */
  list(): Promise<LogDescription[]>;
}

/** A log whose `LogCreated` is known but of which no tree head is signed yet (or read, by a follower). */
export class LogNotSignedError extends Error {
  constructor(readonly log: LogName) {
    super(
      `the log ${log} has no signed tree head yet: its sequencer signs the first (of the empty tree) as soon as it writes the log; retry shortly`,
    );
    this.name = 'LogNotSignedError';
  }
}

/** An admission integrated into the log. */
export interface IntegratedLeaf {
  leafIndex: number;
  /**
   * The global position of the leaf's admission event: read-your-write waits for the read models up
   * to it (a command's position may be another event's, of a type those read models never see).
   */
  position: number;
  /** A signed tree head covering the leaf. */
  head: PublishedTreeHead;
}

/**
 * Where a process gets the Merkle log it serves: the sequencer itself (embedded, or the writing
 * sequencer process) or a follower of the sequencer's events (every other process).
 */
export interface LogSource {
  /** The log's current verifier key (note format). */
  readonly verifierKey: string;
  /** The tree; sizes beyond `latest().sth.tree_size` are not signed yet. */
  readonly log: TileLog;
  /**
   * Whether it holds a signed tree head: a log just created has none until its sequencer signs the
   * first (of the empty tree), and a follower until it has read that head. `latest()` throws until then.
   */
  readonly signed: boolean;
  latest(): PublishedTreeHead;
  /** Event-store position of the latest head's `TreeHeadSigned` event. */
  latestPosition(): number;
  /**
   * Resolves once this source holds every tree head the event store held when it was called: at once
   * for the sequencer (it appends them), once it has read them for a follower (which may trail the
   * sequencer, in another process, by a poll of the store).
   */
  catchUp(): Promise<void>;
  /** The JSON STH of a checkpoint this log signed, under whichever of its keys. */
  sthOf(checkpoint: string): JsonSth;
  /** Resolves when the admission event `eventId` is a leaf under a signed tree head. */
  waitForEvent(eventId: string): Promise<IntegratedLeaf>;
}

/**
 * A log's short name, the `:log` segment of `/gov/v1/logs/:log/…` and the `log` member of responses:
 * `shared` (the log every deployment has; events without a `log` member are in it), `test` (test-mode
 * tenants) or `dedicated-<24 hex>` (an L4 tenant's own log, the hex being the tenant id's).
 * Helpers for names (`SHARED_LOG_NAME`, `logOfEvent`, `logUrlOf`, …) are in domain/log/log-names.ts.
 */
export type LogName = string;

export type LogKind = 'shared' | 'test' | 'dedicated';

/** What anyone may know of a log: its name, kind, checkpoint origin and current verifier key. */
export interface LogDescription {
  name: LogName;
  kind: LogKind;
  /** The C2SP checkpoint origin line. */
  origin: string;
  /** Note format, `origin+keyid+base64`; the STH's `log_id`. */
  verifierKey: string;
  /** The tenant a dedicated log belongs to, else null. */
  tenantId: string | null;
}

/**
 * Every log a process knows, by name: the shared log from the start, the others from their
 * `LogCreated` events. Each has its own single writer, tree and heads.
 */
export interface LogDirectory {
  /** The known logs, `shared` first, then by name. */
  list(): LogDescription[];
  /**
   * The log named `name`, or null when this process has not read its `LogCreated` event. A client
   * naming a log another process has just created: call `caughtUp()` before answering 404.
   */
  source(name: LogName): LogSource | null;
  /** Resolves once this process knows every log the event store held when it was called. */
  caughtUp(): Promise<void>;
}
