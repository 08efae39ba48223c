/**
 * What crosses from the parallel per-event checks to the sequential ones: the raw stored row going in,
 * and per event only the facts the ordering, tree and link checks need coming out.
 */
import type { RawEventRow } from '../adapters/sqlite/event-store';
import { SHARED_LOG_NAME } from '../domain/log';
import type { LogCreated, TreeHeadSigned } from '../event-schemas';
import type { RecordedEvent } from '../ports/event-store';
import type { AnchorFacts } from './anchor-checks';
import type { Discrepancy, Finding } from './report';

export type { RawEventRow } from '../adapters/sqlite/event-store';

export function rawRowOf(event: RecordedEvent): RawEventRow {
  return [
    event.position,
    event.id,
    event.stream,
    event.revision,
    event.type,
    event.recorded_at,
    event.tenant_id,
    event.correlation_id,
    event.causation_id,
    event.schema_version,
    // undefined has no JSON text: it then fails to parse and is reported like any unreadable data.
    JSON.stringify(event.data) ?? '',
  ];
}

export type Hce = readonly [H: number, C: number, E: number];

/**
 * What the link checks need of a leaf (closed-loop links, the policy it was admitted under) or of a
 * policy change, written by the checking thread to the link index.
 */
export type LinkFacts =
  | {
      kind: 'authorization';
      tenant: string;
      subject: string;
      observables: Hce;
      /** Hash of the policy its gates were evaluated under; null for the default. */
      policy: Uint8Array | null;
    }
  | {
      /** A TenantPolicyChanged: the policy checks fold them per tenant in position order. */
      kind: 'policy';
      tenant: string;
      version: number;
      /** The hash recomputed from the policy the event carries. */
      hash: Uint8Array;
      previousHash: Uint8Array;
    }
  | { kind: 'execution'; tenant: string; subject: string; parentAuth: string; execState: Hce }
  | {
      kind: 'variance';
      tenant: string;
      subject: string;
      parentAuth: string;
      parentExec: string;
      authState: Hce;
      execState: Hce;
    };

interface LeafFacts {
  /** The recomputed RFC 9162 leaf hash; null when the leaf record cannot be read. */
  hash: Uint8Array | null;
}

/**
 * A TreeHeadSigned whose data matches its schema (checkpoint contents already checked; its signature
 * too for a shared-log head, whose keys the trust holds — another log's key is known from its
 * LogCreated event, in event order, so the sequential part verifies those).
 */
export interface TreeHeadFacts {
  /** The log it is a head of (`shared` when the event names none). */
  log: string;
  origin: string;
  treeSize: number;
  rootHash: string;
  firstLeafIndex: number;
  leafPositions: number[];
  timestamp: string;
  checkpoint: string;
}

/** What the tree replay needs of a TreeHeadSigned event. */
export function treeHeadFacts(head: TreeHeadSigned): TreeHeadFacts {
  return {
    log: head.log ?? SHARED_LOG_NAME,
    origin: head.origin,
    treeSize: head.tree_size,
    rootHash: head.root_hash,
    firstLeafIndex: head.first_leaf_index,
    leafPositions: head.leaf_positions,
    timestamp: head.timestamp,
    checkpoint: head.checkpoint,
  };
}

export interface EventFacts {
  position: number;
  id: string;
  type: string;
  stream: string;
  revision: number;
  /** Present for every admission event (by type), even one whose data cannot be read. */
  leaf?: LeafFacts;
  /** The log an admission is in, when not the shared log. */
  log?: string;
  /**
   * An evidence envelope's log_binding.log_id, when its log is not the shared one: the key of such a
   * log is known only in event order, so the sequential part compares them.
   */
  binding?: string;
  tree_head?: TreeHeadFacts;
  /** A LogCreated whose data matches its schema. */
  log_created?: LogCreated;
  /** A LogAnchored whose data matches its schema: the checkpoint it anchors. */
  anchor?: AnchorFacts;
}

/** What checking one event found: its facts for the sequential checks, and its findings. */
export interface EventVerdict {
  facts: EventFacts;
  findings: Finding[];
  /** What the link checks need of a leaf; null for other events and for data that fails its schema. */
  link?: LinkFacts | null;
  /** Ed25519 signatures the event's checks cover (a failing certificate stops at its first bad vote). */
  signatures: number;
}

/**
 * The outcome of checking one chunk of events, column by column: a few typed arrays and short string
 * lists cross to the main thread instead of an object (and a hash buffer) per event, which it would
 * have to build and collect one by one. Events are in position order; event i of the chunk is at
 * index i of every per-event column.
 */
export interface ChunkResult {
  count: number;
  /**
   * As read, even when not integers (the ordering checks report those): a Float64Array when every
   * one is a number (nearly always), so that it crosses as one buffer, else the values as read.
   */
  positions: ArrayLike<number>;
  revisions: ArrayLike<number>;
  /** Index into `types` / `streams` per event (each distinct name crosses once per chunk). */
  typeCodes: Uint32Array;
  types: string[];
  streamCodes: Uint32Array;
  streams: string[];
  /**
   * The event ids end to end in UTF-8 (read only for a discrepancy, so they cross as one buffer);
   * event i's is the bytes from idEnds[i - 1] (0 for the first) to idEnds[i]: see eventIdAt.
   */
  idBytes: Uint8Array;
  idEnds: Uint32Array;
  /** Per event: NOT_A_LEAF, or a leaf with its hash next in `leafHashes`, or an unreadable leaf. */
  leafKinds: Uint8Array;
  /** 32 bytes per LEAF_HASHED event, in event order. */
  leafHashes: Uint8Array;
  /** The readable TreeHeadSigned events, by index in the chunk. */
  treeHeads: { index: number; head: TreeHeadFacts }[];
  /** Per event, index into `logs` of the log an admission is in (0, `shared`, for every other event). */
  logCodes: Uint16Array;
  /** The logs the chunk's admissions are in; `shared` first. */
  logs: string[];
  /** The well-formed LogCreated events, by index in the chunk. */
  logsCreated: { index: number; created: LogCreated }[];
  /** Evidence of logs other than the shared one: its envelope's log_binding.log_id, by index. */
  bindings: { index: number; logId: string }[];
  /** The well-formed LogAnchored events (shared-log leaves), by index in the chunk. */
  anchors: { index: number; anchor: AnchorFacts }[];
  discrepancies: Discrepancy[];
  /** Ed25519 signatures the chunk's checks covered (votes, envelopes, checkpoints). */
  signatures: number;
}

export const NOT_A_LEAF = 0;
export const LEAF_HASHED = 1;
/** An admission whose leaf record cannot be read: the tree cannot be followed past it. */
export const LEAF_UNREADABLE = 2;

/** Collects the facts of a chunk's events as they are checked, then packs them into a ChunkResult. */
export class ChunkResultBuilder {
  readonly discrepancies: Discrepancy[] = [];
  signatures = 0;
  private readonly positions: number[] = [];
  private readonly revisions: number[] = [];
  private readonly typeCodes: number[] = [];
  private readonly streamCodes: number[] = [];
  private readonly types = new Map<string, number>();
  private readonly streams = new Map<string, number>();
  private readonly ids: string[] = [];
  private readonly leafKinds: number[] = [];
  /** Each hashed leaf's hash: bytes, or lowercase hex from the log audit's fast path. */
  private readonly hashes: (Uint8Array | string)[] = [];
  private hexHashes = 0;
  private readonly treeHeads: { index: number; head: TreeHeadFacts }[] = [];
  private readonly logCodes: number[] = [];
  private readonly logs = new Map<string, number>([[SHARED_LOG_NAME, 0]]);
  private readonly logsCreated: { index: number; created: LogCreated }[] = [];
  private readonly bindings: { index: number; logId: string }[] = [];
  private readonly anchors: { index: number; anchor: AnchorFacts }[] = [];

  get count(): number {
    return this.positions.length;
  }

  add(facts: EventFacts): void {
    const index = this.positions.length;
    this.positions.push(facts.position);
    this.revisions.push(facts.revision);
    this.typeCodes.push(codeOf(this.types, facts.type));
    this.streamCodes.push(codeOf(this.streams, facts.stream));
    this.ids.push(String(facts.id));
    const hash = facts.leaf?.hash;
    this.leafKinds.push(!facts.leaf ? NOT_A_LEAF : hash ? LEAF_HASHED : LEAF_UNREADABLE);
    if (hash) this.hashes.push(hash);
    this.logCodes.push(facts.log === undefined ? 0 : codeOf(this.logs, facts.log));
    if (facts.tree_head) this.treeHeads.push({ index, head: facts.tree_head });
    if (facts.log_created) this.logsCreated.push({ index, created: facts.log_created });
    if (facts.binding !== undefined) this.bindings.push({ index, logId: facts.binding });
    if (facts.anchor) this.anchors.push({ index, anchor: facts.anchor });
  }

  /**
   * An admission whose leaf hash is known (lowercase hex) and which has nothing to report, in `log`
   * (null: the shared log).
   */
  addLeaf(
    position: number,
    id: string,
    type: string,
    stream: string,
    revision: number,
    hex: string,
    log: string | null,
  ): void {
    this.positions.push(position);
    this.revisions.push(revision);
    this.typeCodes.push(codeOf(this.types, type));
    this.streamCodes.push(codeOf(this.streams, stream));
    this.ids.push(String(id));
    this.leafKinds.push(LEAF_HASHED);
    this.logCodes.push(log === null ? 0 : codeOf(this.logs, log));
    this.hashes.push(hex);
    this.hexHashes++;
  }

  finish(): ChunkResult {
    const ids = this.ids.join('');
    const idBytes = new Uint8Array(Buffer.byteLength(ids));
    Buffer.from(idBytes.buffer).write(ids);
    // One byte per character when they are all ASCII (ids are UUIDs); else counted id by id.
    const ascii = idBytes.length === ids.length;
    const idEnds = new Uint32Array(this.ids.length);
    let end = 0;
    this.ids.forEach((id, i) => {
      end += ascii ? id.length : Buffer.byteLength(id);
      idEnds[i] = end;
    });
    const leafHashes = new Uint8Array(this.hashes.length * 32);
    const view = Buffer.from(leafHashes.buffer, leafHashes.byteOffset, leafHashes.length);
    // Hex hashes are decoded all at once when there are only those (the log audit of an intact store).
    if (this.hexHashes === this.hashes.length) view.write(this.hashes.join(''), 0, 'hex');
    else
      this.hashes.forEach((hash, i) => {
        if (typeof hash === 'string') view.write(hash, i * 32, 'hex');
        else leafHashes.set(hash, i * 32);
      });
    return {
      count: this.positions.length,
      positions: numberColumn(this.positions),
      revisions: numberColumn(this.revisions),
      typeCodes: Uint32Array.from(this.typeCodes),
      types: [...this.types.keys()],
      streamCodes: Uint32Array.from(this.streamCodes),
      streams: [...this.streams.keys()],
      idBytes,
      idEnds,
      leafKinds: Uint8Array.from(this.leafKinds),
      leafHashes,
      treeHeads: this.treeHeads,
      logCodes: Uint16Array.from(this.logCodes),
      logs: [...this.logs.keys()],
      logsCreated: this.logsCreated,
      bindings: this.bindings,
      anchors: this.anchors,
      discrepancies: this.discrepancies,
      signatures: this.signatures,
    };
  }
}

/**
 * The buffers of a chunk's typed columns (ids and positions included), which the checking thread
 * hands over instead of copying: each is the column's own (made by finish), and the thread drops the
 * result once it is sent. On the main thread the columns then live outside the JavaScript heap: a
 * result waiting its turn there often outlives two young-generation collections, and whatever it
 * holds on the heap is promoted and piles up until a full collection (measured at a million leaves:
 * a third less promoted, and a peak RSS of 202–211 MB where it reached 246–262 MB in most runs).
 */
export function transferablesOf(result: ChunkResult): ArrayBuffer[] {
  const { positions, revisions, typeCodes, streamCodes, idBytes, idEnds, leafKinds, leafHashes, logCodes } =
    result;
  const columns: ArrayBufferView[] = [
    typeCodes,
    streamCodes,
    idBytes,
    idEnds,
    leafKinds,
    leafHashes,
    logCodes,
  ];
  if (positions instanceof Float64Array) columns.push(positions);
  if (revisions instanceof Float64Array) columns.push(revisions);
  return columns.map((column) => column.buffer as ArrayBuffer);
}

/** A Float64Array of the values when every one is a number, else the values as read. */
function numberColumn(values: number[]): ArrayLike<number> {
  for (const value of values) if (typeof value !== 'number') return values;
  return Float64Array.from(values);
}

function codeOf(codes: Map<string, number>, name: string): number {
  let code = codes.get(name);
  if (code === undefined) {
    code = codes.size;
    codes.set(name, code);
  }
  return code;
}

/** The id of event `index` of a chunk result. */
export function eventIdAt(result: ChunkResult, index: number): string {
  const { idBytes, idEnds } = result;
  const start = index === 0 ? 0 : idEnds[index - 1]!;
  return Buffer.from(idBytes.buffer, idBytes.byteOffset + start, idEnds[index]! - start).toString('utf8');
}
