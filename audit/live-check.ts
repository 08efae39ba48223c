/**
 * The live part of `gov audit --server URL`: checks what a running server publishes on its public log
 * endpoints against the auditor's own recomputation from the events, using nothing but those
 * endpoints and the auditor's trusted log keys.
 *
 *   begin()       reads the server's latest signed checkpoint and JSON STH and verifies them under the
 *                 trusted keys (the server's own `/keys` list is only reported). Their size S is the
 *                 tree the rest of the check compares against, so a server that keeps growing meanwhile
 *                 does not move the target.
 *   onLeaf        (audit hook, leaf order) collects recomputed leaf hashes into level-0 tiles and, as
 *                 each tile of the size-S tree fills up, fetches the server's tile and compares them;
 *                 every `proofEvery`-th leaf and the last one get their inclusion proof at size S fetched
 *                 and verified against the signed root; the root at S is recomputed as leaves arrive.
 *   onTreeHead    (audit hook) fetches the head the server serves at each recorded size ≤ S, verifies
 *                 it, compares its root and checkpoint with the recorded/recomputed ones, and verifies
 *                 the server's consistency proof from the previous recorded head against the recomputed
 *                 roots.
 *   onAnchor      (audit hook) for each anchor the events hold (every log's when the shared log is
 *                 checked, else the checked log's), fetches `…/logs/<log>/anchor?tree_size=N` and checks
 *                 it is that anchor, proved into a shared STH signed by a trusted key, and that the
 *                 server's head of the log at N is the anchored checkpoint (live-anchors.ts).
 *   finish()      waits for the requests in flight and returns the discrepancies, what was compared,
 *                 and notices about what could not be (e.g. a server ahead of the local stream).
 *
 * Requests run a few at a time and the hooks only make the engine wait when that many are in flight,
 * so memory stays flat: one tile of hashes per request at most, never the whole log.
 */
import {
  checkpointNoteFromSth,
  isLogName,
  type JsonSth,
  logUrlOf as logUrlUnder,
  SHARED_LOG_NAME,
} from '../domain/log';
import {
  bytesEqual,
  CompactRange,
  EMPTY_ROOT,
  TILE_WIDTH,
  tilePath,
  toHex,
  verifyConsistency,
  verifyInclusion,
} from '../merkle-core';
import type { AuditedAnchor } from './anchor-checks';
import { anchorAnswerFaults, anchoredHeadFault } from './live-anchors';
import {
  AnswerFormatError,
  parseAnchorAnswer,
  parseConsistencyAnswer,
  parseJsonBody,
  parseKeysAnswer,
  parseProofAnswer,
  parseSthAnswer,
  signedText,
} from './live-answers';
import { type FindingPlace, type LiveCheckCode, type LiveDiscrepancy, LiveFindings } from './live-findings';
import {
  LiveRequestError,
  type LogAnswer,
  LogHttpClient,
  type LogHttpOptions,
  serverMessage,
} from './live-http';
import { TaskPool } from './live-pool';
import { compareTile, isProofSample, type LocalTile, TileAccumulator } from './live-tiles';
import { TrustedLogKeys } from './live-trust';

/** Where the shared log is mounted on a server; every log (the shared one too) is also at LOGS_MOUNT/<name>. */
const LOG_MOUNT = '/gov/v1/log';
const LOGS_MOUNT = '/gov/v1/logs';

export interface LiveLogCheckOptions extends LogHttpOptions {
  /**
   * The server's base URL (`https://gov.example`), or a log's URL, kept as given: `…/gov/v1/log` (the
   * shared log) or `…/gov/v1/logs/<name>`.
   */
  serverUrl: string;
  /** The log to check when serverUrl is the server's base URL (default: shared). */
  log?: string;
  /**
   * The auditor's trust; only the log verifier keys (current and retired) are used here, and only for
   * the shared log. Another log's key comes from its LogCreated event, which the audit reads as it
   * runs: the check verifies with the key the server publishes for that log, and `confirmLogKey`
   * (before finish) reports it when it is not the key of the event.
   */
  trust: { readonly logVerifierKeys: readonly string[] };
  /** Spot-check the inclusion proof of every n-th leaf (plus the last one). Default 1000. */
  proofEvery?: number;
  /** Requests in flight at most. Default 4. */
  concurrency?: number;
  /** Findings listed per check before the rest are only counted. Default 100. */
  maxPerCheck?: number;
  /** Requests failing for good in a row after which the check stops asking the server. Default 3. */
  giveUpAfter?: number;
}

/** The server's latest signed tree head, as verified at `begin`. */
export interface LiveServerHead {
  tree_size: number;
  root_hash: string;
  timestamp: string | null;
  /** The log key the server publishes at `/keys` (reported only; trust comes from the auditor). */
  published_log_key: string | null;
  /** The trusted key that verified the server's checkpoint. */
  verified_by: string;
}

/** What the live check compared; every count includes the comparisons that found a discrepancy. */
export interface LiveComparisons {
  /** Level-0 tiles fetched and compared with the recomputed leaf hashes. */
  tiles: number;
  /** Leaves covered by those tiles. */
  leaves: number;
  /** Inclusion proofs fetched and verified. */
  proofs: number;
  /** Signed tree heads fetched and compared with the recorded ones. */
  tree_heads: number;
  /** Consistency proofs between consecutive recorded heads fetched and verified. */
  consistency_proofs: number;
  /** Whether the server's latest root equals the recomputed root at its size (null: not compared). */
  latest_root_matches: boolean | null;
  /** Anchors of the events asked for at `…/anchor` and checked. */
  anchors: number;
}

export interface LiveCheckReport {
  /** The log's base URL the check read from. */
  log_url: string;
  /** The log's name. */
  log: string;
  /** The server's latest signed head, or null when it could not be read and verified. */
  server: LiveServerHead | null;
  compared: LiveComparisons;
  /** Leaves and tree heads the audit fed the check. */
  local: { leaves: number; tree_heads: number };
  discrepancies: LiveDiscrepancy[];
  /** Facts that are not faults (e.g. leaves the server signed after the local copy was taken). */
  notices: string[];
}

type State = 'new' | 'running' | 'off' | 'finished';

/** The base URL of the public (shared) log of the server at `serverUrl`; throws for a URL that cannot be one. */
export function logUrlOf(serverUrl: string): string {
  return liveLogOf(serverUrl).logUrl;
}

/**
 * The log to check and its base URL: a URL ending in `/gov/v1/log` is the shared log's, one ending in
 * `/gov/v1/logs/<name>` that log's; any other is the server's base URL, and `log` (default shared) is
 * the log. Throws for a URL that cannot be one, or that names a log other than `log`.
 */
export function liveLogOf(serverUrl: string, log?: string): { logUrl: string; log: string } {
  let url: URL;
  try {
    url = new URL(serverUrl);
  } catch {
    throw new Error(
      `${JSON.stringify(serverUrl)} is not a URL: give the server's base URL, e.g. https://gov.example`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(
      `${serverUrl} is not an http(s) URL: give the server's base URL, e.g. https://gov.example`,
    );
  }
  if (url.search !== '' || url.hash !== '') {
    throw new Error(
      `${serverUrl} has a query or fragment: give the server's base URL, e.g. https://gov.example`,
    );
  }
  const path = url.pathname.replace(/\/+$/, '');
  const named = new RegExp(`${LOGS_MOUNT}/([^/]+)$`).exec(path)?.[1];
  const given = path.endsWith(LOG_MOUNT) ? SHARED_LOG_NAME : named;
  if (given !== undefined) {
    if (!isLogName(given))
      throw new Error(
        `${serverUrl} names log '${given}', which is not a log name (shared, test or dedicated-<24 hex>)`,
      );
    if (log !== undefined && log !== given)
      throw new Error(`${serverUrl} is the URL of log ${given}, not of log ${log}`);
    return { logUrl: `${url.origin}${path}`, log: given };
  }
  const name = log ?? SHARED_LOG_NAME;
  if (!isLogName(name)) throw new Error(`'${name}' is not a log name (shared, test or dedicated-<24 hex>)`);
  return {
    logUrl: logUrlUnder(`${url.origin}${path}`, name),
    log: name,
  };
}

export class LiveLogCheck {
  readonly #http: LogHttpClient;
  /** The shared log's: the auditor's keys. Another log's: the key the server publishes, once read. */
  #trust: TrustedLogKeys | null;
  /** The log checked. */
  readonly log: string;
  readonly #pool: TaskPool;
  readonly #findings: LiveFindings;
  readonly #notices: string[] = [];
  readonly #proofEvery: number;
  readonly #giveUpAfter: number;
  readonly #logUrl: string;
  readonly #httpOptions: LogHttpOptions;
  /** The server's base URL, under which every log is. */
  readonly #serverBase: string;
  /** Clients of the other logs whose anchors are checked. */
  readonly #logClients = new Map<string, LogHttpClient>();
  /** The auditor's shared-log keys, which anchors are proved under (null: none usable). */
  readonly #sharedTrust: TrustedLogKeys | null;
  /** Anchors not checked: no trusted shared-log key, or not under the server's signed shared tree. */
  #anchorsUntrusted = 0;
  #anchorsNotSigned = 0;

  #state: State = 'new';
  #server: LiveServerHead | null = null;
  #serverRoot: Uint8Array = EMPTY_ROOT;
  #tiles = new TileAccumulator(0);
  /** Recomputed compact range of the first leaves, up to the server's size. */
  readonly #range = new CompactRange();
  #localLeaves = 0;
  #localHeads = 0;
  /** The last recorded head compared, for the next consistency proof. */
  #previousHead: { size: number; root: Uint8Array } | null = null;
  /** Recorded heads beyond the server's latest size: how many, and their size range. */
  #headsBeyond = { count: 0, first: 0, last: 0 };
  #failuresInARow = 0;
  #gaveUp = false;
  #skipped = 0;
  readonly #compared: LiveComparisons = {
    tiles: 0,
    leaves: 0,
    proofs: 0,
    tree_heads: 0,
    consistency_proofs: 0,
    latest_root_matches: null,
    anchors: 0,
  };

  constructor(options: LiveLogCheckOptions) {
    const { logUrl, log } = liveLogOf(options.serverUrl, options.log);
    this.#logUrl = logUrl;
    this.log = log;
    this.#httpOptions = options;
    this.#http = new LogHttpClient(this.#logUrl, options);
    this.#serverBase = logUrl.slice(
      0,
      -(logUrl.endsWith(LOG_MOUNT) ? LOG_MOUNT : `${LOGS_MOUNT}/${log}`).length,
    );
    this.#trust = log === SHARED_LOG_NAME ? new TrustedLogKeys(options.trust.logVerifierKeys) : null;
    this.#sharedTrust = this.#trust ?? sharedKeysOrNull(options.trust.logVerifierKeys);
    this.#pool = new TaskPool(options.concurrency ?? 4);
    this.#findings = new LiveFindings(options.maxPerCheck ?? 100);
    this.#proofEvery = options.proofEvery ?? 1000;
    this.#giveUpAfter = options.giveUpAfter ?? 3;
    if (!Number.isSafeInteger(this.#proofEvery) || this.#proofEvery < 1) {
      throw new RangeError(`proofEvery must be a positive integer, got ${this.#proofEvery}`);
    }
  }

  /** The hooks to pass to `runAudit`. */
  get hooks(): {
    onLeaf: (leafIndex: number, leafHash: Uint8Array) => void | Promise<void>;
    onTreeHead: (treeSize: number, rootHash: Uint8Array, checkpoint: string) => void | Promise<void>;
    onAnchor: (anchor: AuditedAnchor) => void | Promise<void>;
  } {
    return { onLeaf: this.onLeaf, onTreeHead: this.onTreeHead, onAnchor: this.onAnchor };
  }

  /**
   * Reads and verifies the server's latest checkpoint and STH. Never throws for what the server does:
   * an unreachable server or an unverifiable head is a discrepancy, and the check then stays idle.
   */
  async begin(): Promise<void> {
    if (this.#state !== 'new') throw new Error('LiveLogCheck.begin() was already called');
    this.#state = 'off';
    const publishedKey = await this.#readPublishedKey();
    if (this.log !== SHARED_LOG_NAME) {
      if (!publishedKey) {
        this.#add(
          'live-unreachable',
          `the key of log ${this.log} could not be read from ${this.#logUrl}/keys; nothing was compared`,
        );
        return;
      }
      this.#trust = new TrustedLogKeys([publishedKey]);
    }
    const head = await this.#readLatestCheckpoint();
    if (!head) return;
    this.#server = { ...head, published_log_key: publishedKey };
    await this.#crossCheckLatestSth();
    this.#tiles = new TileAccumulator(head.tree_size);
    this.#state = 'running';
    if (head.tree_size === 0) this.#compareLatestRoot(EMPTY_ROOT);
  }

  /** Audit hook: the recomputed hash of leaf `leafIndex`; leaves must come in order from 0. */
  readonly onLeaf = (leafIndex: number, leafHash: Uint8Array): void | Promise<void> => {
    this.#expectStarted('onLeaf');
    if (leafIndex !== this.#localLeaves) {
      throw new RangeError(
        `LiveLogCheck.onLeaf: leaf ${leafIndex} arrived where leaf ${this.#localLeaves} was due`,
      );
    }
    this.#localLeaves++;
    const size = this.#server?.tree_size ?? 0;
    if (this.#state !== 'running' || leafIndex >= size) return;
    this.#range.append(leafHash);
    if (this.#range.size === size) this.#compareLatestRoot(this.#range.root());
    const tile = this.#tiles.add(leafIndex, leafHash);
    let wait = tile ? this.#schedule(() => this.#checkTile(tile)) : undefined;
    if (isProofSample(leafIndex, size, this.#proofEvery)) {
      const hash = leafHash.slice();
      const started = this.#schedule(() => this.#checkInclusion(leafIndex, hash));
      if (started) wait = wait ? wait.then(() => started) : started;
    }
    return wait;
  };

  /** Audit hook: a recorded tree head and the root recomputed at its size. */
  readonly onTreeHead = (
    treeSize: number,
    rootHash: Uint8Array,
    checkpoint: string,
  ): void | Promise<void> => {
    this.#expectStarted('onTreeHead');
    this.#localHeads++;
    if (this.#state !== 'running') return;
    const serverSize = this.#server!.tree_size;
    if (treeSize > serverSize) {
      const beyond = this.#headsBeyond;
      if (beyond.count === 0) beyond.first = treeSize;
      beyond.count++;
      beyond.last = treeSize;
      return;
    }
    const root = rootHash.slice();
    const previous = this.#previousHead;
    if (!previous || treeSize >= previous.size) this.#previousHead = { size: treeSize, root };
    const from = previous && previous.size >= 1 && previous.size < treeSize ? previous : null;
    return this.#schedule(async () => {
      await this.#checkTreeHead(treeSize, root, checkpoint);
      if (from) await this.#checkConsistency(from.size, from.root, treeSize, root);
    });
  };

  /**
   * Audit hook: an anchor the events hold (a LogAnchored of the shared log), with its recomputed leaf
   * hash. Checked when it anchors the log checked, or any log when the shared log is checked.
   */
  readonly onAnchor = (anchor: AuditedAnchor): void | Promise<void> => {
    this.#expectStarted('onAnchor');
    if (this.#state !== 'running') return;
    if (this.log !== SHARED_LOG_NAME && anchor.log !== this.log) return;
    if (!this.#sharedTrust) {
      this.#anchorsUntrusted++;
      return;
    }
    return this.#schedule(() => this.#checkAnchor(anchor, this.#sharedTrust!));
  };

  /**
   * For a log other than the shared one: `verifierKey` is the key its LogCreated event gives (null: the
   * stream has none), which the key the server published and the check verified with must be. Call
   * after the audit, before finish.
   */
  confirmLogKey(verifierKey: string | null): void {
    if (this.log === SHARED_LOG_NAME || !this.#server) return;
    const published = this.#server.published_log_key;
    if (verifierKey !== null && published?.trim() === verifierKey.trim()) return;
    this.#add(
      'live-log-key',
      verifierKey === null
        ? `the server publishes key ${published} for log ${this.log}, which no LogCreated event in the stream declares: what it signed cannot be trusted`
        : `the server publishes key ${published} for log ${this.log}, but its LogCreated event gives ${verifierKey}: what the server signed with it cannot be trusted`,
    );
  }

  /** Waits for the requests in flight and reports; call once, after the audit has fed every leaf and head. */
  async finish(): Promise<LiveCheckReport> {
    this.#expectStarted('finish');
    if (this.#state === 'finished') throw new Error('LiveLogCheck.finish() was already called');
    if (this.#state === 'running') {
      const incomplete = this.#tiles.takeIncomplete();
      if (incomplete) await this.#schedule(() => this.#checkTile(incomplete));
    }
    await this.#pool.drain();
    if (this.#state === 'running') this.#noteWhatWasNotCompared();
    if (this.#gaveUp) {
      this.#findings.add(
        'live-unreachable',
        `the check stopped asking ${this.#logUrl} after ${this.#giveUpAfter} requests in a row failed; ${this.#skipped} comparison${this.#skipped === 1 ? ' was' : 's were'} skipped: rerun once the server answers`,
      );
    }
    this.#state = 'finished';
    return {
      log_url: this.#logUrl,
      log: this.log,
      server: this.#server,
      compared: { ...this.#compared },
      local: { leaves: this.#localLeaves, tree_heads: this.#localHeads },
      discrepancies: this.#findings.list(),
      notices: [...this.#notices],
    };
  }

  // ---- begin ---------------------------------------------------------------------------------------

  async #readPublishedKey(): Promise<string | null> {
    let answer: LogAnswer;
    try {
      answer = await this.#http.get('keys');
    } catch (error) {
      this.#notices.push(`the server's published keys could not be read: ${(error as Error).message}`);
      return null;
    }
    try {
      if (answer.status !== 200)
        throw new AnswerFormatError(`HTTP ${answer.status}${serverMessage(answer.body)}`);
      const { log } = parseKeysAnswer(parseJsonBody(answer.body));
      if (log && this.#trust && !this.#trust.includes(log)) {
        this.#notices.push(
          `the server publishes log key ${log}, which is not among the trusted log keys: heads it signs will not verify`,
        );
      }
      return log;
    } catch (error) {
      this.#notices.push(
        `the server's published keys (${answer.url}) could not be read: ${(error as Error).message}`,
      );
      return null;
    }
  }

  async #readLatestCheckpoint(): Promise<Omit<LiveServerHead, 'published_log_key'> | null> {
    const answer = await this.#fetch('checkpoint');
    if (!answer) return null;
    if (answer.status !== 200) {
      const hint = answer.status === 404 ? ` (is ${this.#logUrl} the public log of a gov server?)` : '';
      this.#add(
        'live-unreachable',
        `GET ${answer.url} answered HTTP ${answer.status}${serverMessage(answer.body)}${hint}; nothing was compared`,
      );
      return null;
    }
    const note = Buffer.from(answer.body).toString('utf8');
    const verdict = await this.#trust!.verifyNote(note);
    if (!verdict.ok) {
      this.#add(
        'live-checkpoint-invalid',
        `the server's latest checkpoint (${answer.url}) does not verify: ${verdict.reason}; nothing else was compared`,
      );
      return null;
    }
    const { size, rootHash, extensions } = verdict.checkpoint;
    this.#serverRoot = rootHash;
    const stamp = extensions.find((line) => line.startsWith('timestamp '));
    return {
      tree_size: size,
      root_hash: toHex(rootHash),
      timestamp: stamp ? stamp.slice('timestamp '.length) : null,
      verified_by: verdict.key.text,
    };
  }

  /** The JSON STH must be signed too and, at the checkpoint's size, say the same thing. */
  async #crossCheckLatestSth(): Promise<void> {
    const server = this.#server!;
    const sth = await this.#fetchSth('sth', server.tree_size);
    if (!sth) return;
    const where = { tree_size: sth.tree_size };
    if (sth.tree_size < server.tree_size) {
      this.#add(
        'live-checkpoint-mismatch',
        `the server's latest STH has size ${sth.tree_size}, older than the checkpoint of size ${server.tree_size} it served just before`,
        where,
      );
    } else if (sth.tree_size === server.tree_size && sth.root_hash !== server.root_hash) {
      this.#add(
        'live-root-mismatch',
        `the server signed two different roots for size ${sth.tree_size}: ${server.root_hash} in its checkpoint and ${sth.root_hash} in its STH`,
        where,
      );
    }
  }

  // ---- per-leaf and per-head checks ----------------------------------------------------------------

  #compareLatestRoot(recomputed: Uint8Array): void {
    const server = this.#server!;
    const matches = bytesEqual(recomputed, this.#serverRoot);
    this.#compared.latest_root_matches = matches;
    if (!matches) {
      this.#add(
        'live-root-mismatch',
        `the server's latest signed root at size ${server.tree_size} is ${server.root_hash}, but the events give ${toHex(recomputed)}`,
        { tree_size: server.tree_size },
      );
    }
  }

  async #checkTile(tile: LocalTile): Promise<void> {
    const path = tilePath({ level: 0, index: tile.index, width: tile.width });
    const firstLeaf = tile.index * TILE_WIDTH;
    const where = { leaf_index: firstLeaf, tree_size: this.#server!.tree_size };
    const answer = await this.#fetch(path, where);
    if (!answer) return;
    this.#compared.tiles++;
    this.#compared.leaves += tile.have;
    if (answer.status !== 200) {
      this.#add(
        'live-tile-mismatch',
        `the server does not serve ${path} (leaves ${firstLeaf}–${firstLeaf + tile.width - 1}): HTTP ${answer.status}${serverMessage(answer.body)}`,
        where,
      );
      return;
    }
    const difference = compareTile(tile, answer.body);
    if (typeof difference === 'string') {
      this.#add('live-tile-mismatch', `${path}: ${difference}`, where);
    } else if (difference) {
      const at = (difference.firstLeaf - firstLeaf) * 32;
      this.#add(
        'live-tile-mismatch',
        `${path}: ${difference.leaves} of the ${tile.have} leaf hashes compared differ from the recomputed ones, the first at leaf ${difference.firstLeaf} (server ${toHex(answer.body.subarray(at, at + 32))}, recomputed ${toHex(tile.hashes.subarray(at, at + 32))})`,
        { leaf_index: difference.firstLeaf, tree_size: where.tree_size },
      );
    }
  }

  async #checkInclusion(leafIndex: number, leafHash: Uint8Array): Promise<void> {
    const size = this.#server!.tree_size;
    const hash = toHex(leafHash);
    const where = { leaf_index: leafIndex, tree_size: size };
    const answer = await this.#fetch(`proof?leaf_hash=${hash}&tree_size=${size}`, where);
    if (!answer) return;
    this.#compared.proofs++;
    const fault = (reason: string) =>
      this.#add(
        'live-proof-invalid',
        `inclusion proof of leaf ${leafIndex} (${hash}) at size ${size}: ${reason}`,
        where,
      );
    if (answer.status !== 200) return fault(`HTTP ${answer.status}${serverMessage(answer.body)}`);
    let proof: ReturnType<typeof parseProofAnswer>;
    try {
      proof = parseProofAnswer(parseJsonBody(answer.body));
    } catch (error) {
      return fault(`malformed answer: ${(error as Error).message}`);
    }
    if (proof.leaf_index !== leafIndex)
      return fault(`the server places this hash at leaf ${proof.leaf_index}`);
    if (proof.tree_size !== size) return fault(`the server answered for size ${proof.tree_size}`);
    if (proof.root_hash !== this.#server!.root_hash) {
      return fault(
        `the answer names root ${proof.root_hash}, not the signed root ${this.#server!.root_hash}`,
      );
    }
    const verdict = verifyInclusion(leafIndex, size, leafHash, proof.audit_path, this.#serverRoot);
    if (!verdict.ok) fault(`it does not verify against the signed root: ${verdict.reason}`);
  }

  async #checkTreeHead(size: number, root: Uint8Array, checkpoint: string): Promise<void> {
    const sth = await this.#fetchSth(`sth?tree_size=${size}`, size);
    if (!sth) return;
    this.#compared.tree_heads++;
    const where = { tree_size: size };
    if (sth.tree_size !== size) {
      this.#add(
        'live-checkpoint-mismatch',
        `asked for the tree head at size ${size}, the server sent size ${sth.tree_size}`,
        where,
      );
      return;
    }
    if (sth.root_hash !== toHex(root)) {
      this.#add(
        'live-root-mismatch',
        `the server's signed root at size ${size} is ${sth.root_hash}, but the events give ${toHex(root)}`,
        where,
      );
      return;
    }
    const served = signedText(checkpointNoteFromSth(sth));
    const recorded = signedText(checkpoint);
    if (recorded !== null && served !== recorded) {
      this.#add(
        'live-checkpoint-mismatch',
        `the server's tree head at size ${size} is not the recorded checkpoint, though its root is the same: served ${JSON.stringify(served)}, recorded ${JSON.stringify(recorded)}`,
        where,
      );
    }
  }

  async #checkConsistency(from: number, rootFrom: Uint8Array, to: number, rootTo: Uint8Array): Promise<void> {
    const where = { tree_size: to };
    const answer = await this.#fetch(`consistency?from=${from}&to=${to}`, where);
    if (!answer) return;
    this.#compared.consistency_proofs++;
    const fault = (reason: string) =>
      this.#add('live-consistency-invalid', `consistency proof from size ${from} to ${to}: ${reason}`, where);
    if (answer.status !== 200) return fault(`HTTP ${answer.status}${serverMessage(answer.body)}`);
    let proof: ReturnType<typeof parseConsistencyAnswer>;
    try {
      proof = parseConsistencyAnswer(parseJsonBody(answer.body));
    } catch (error) {
      return fault(`malformed answer: ${(error as Error).message}`);
    }
    if (proof.from !== from || proof.to !== to)
      return fault(`the server answered from ${proof.from} to ${proof.to}`);
    const verdict = verifyConsistency(from, to, proof.proof, rootFrom, rootTo);
    if (!verdict.ok) fault(`it does not verify between the recomputed roots: ${verdict.reason}`);
  }

  // ---- anchors -------------------------------------------------------------------------------------

  async #checkAnchor(anchor: AuditedAnchor, sharedKeys: TrustedLogKeys): Promise<void> {
    const where = { log: anchor.log, tree_size: anchor.treeSize };
    const client = this.#clientOf(anchor.log);
    const answer = await this.#fetch(`anchor?tree_size=${anchor.treeSize}`, where, client);
    if (!answer) return;
    this.#compared.anchors++;
    if (answer.status === 404) return this.#anchorNotServed(anchor, answer);
    const what = `the anchor of log ${anchor.log} at size ${anchor.treeSize}`;
    if (answer.status !== 200) {
      this.#add(
        'live-anchor-invalid',
        `${what}: GET ${answer.url} answered HTTP ${answer.status}${serverMessage(answer.body)}`,
        where,
      );
      return;
    }
    let parsed: ReturnType<typeof parseAnchorAnswer>;
    try {
      parsed = parseAnchorAnswer(parseJsonBody(answer.body));
    } catch (error) {
      this.#add(
        'live-anchor-invalid',
        `${what}: ${answer.url} is malformed: ${(error as Error).message}`,
        where,
      );
      return;
    }
    const faults = await anchorAnswerFaults(anchor, parsed, sharedKeys);
    for (const fault of faults) this.#add(fault.check, fault.message, where);
    // Another anchor than the events': the head at its size says nothing more.
    if (faults.some((fault) => fault.check === 'live-anchor-mismatch')) return;
    const head = await this.#fetch(`sth?tree_size=${anchor.treeSize}`, where, client);
    if (!head) return;
    let sth: JsonSth;
    try {
      if (head.status !== 200) throw new AnswerFormatError(`HTTP ${head.status}${serverMessage(head.body)}`);
      sth = parseSthAnswer(parseJsonBody(head.body));
    } catch (error) {
      this.#add(
        'live-anchor-mismatch',
        `${what}: the server serves no tree head of log ${anchor.log} at that size (${head.url}: ${(error as Error).message})`,
        where,
      );
      return;
    }
    const fault = anchoredHeadFault(anchor, sth);
    if (fault) this.#add(fault.check, fault.message, where);
  }

  /**
   * The server serves no anchor of the log at that size: a fault when its signed shared tree holds the
   * anchor's leaf; else the anchor was admitted after the server's latest shared head (a notice), or
   * the leaf is lost, which the shared log's own live check reports.
   */
  async #anchorNotServed(anchor: AuditedAnchor, answer: LogAnswer): Promise<void> {
    const where = { log: anchor.log, tree_size: anchor.treeSize };
    const hash = toHex(anchor.leafHash);
    const shared = await this.#fetch(`proof?leaf_hash=${hash}`, where, this.#clientOf(SHARED_LOG_NAME));
    if (!shared) return;
    if (shared.status === 404) {
      this.#anchorsNotSigned++;
      return;
    }
    this.#add(
      'live-anchor-missing',
      `the anchor of log ${anchor.log} at size ${anchor.treeSize} (shared-log leaf ${hash}) is in the server's shared log (GET ${shared.url}: HTTP ${shared.status}), but GET ${answer.url} answers HTTP 404${serverMessage(answer.body)}`,
      where,
    );
  }

  #clientOf(log: string): LogHttpClient {
    if (log === this.log) return this.#http;
    let client = this.#logClients.get(log);
    if (!client) {
      client = new LogHttpClient(logUrlUnder(this.#serverBase, log), this.#httpOptions);
      this.#logClients.set(log, client);
    }
    return client;
  }

  // ---- finish --------------------------------------------------------------------------------------

  #noteWhatWasNotCompared(): void {
    const size = this.#server!.tree_size;
    const leaves = this.#localLeaves;
    if (leaves < size) {
      this.#notices.push(
        `the server's latest signed tree has ${size} leaves but the audited events give ${leaves}: leaves ${leaves}–${size - 1} and the server's root at size ${size} were not compared (the server signed them after the audited copy was taken, or the copy is incomplete)`,
      );
    } else if (leaves > size) {
      this.#notices.push(
        `the audited events give ${leaves} leaves, beyond the ${size} of the server's latest signed tree when the check began: leaves ${size}–${leaves - 1} were not compared`,
      );
    }
    if (this.#anchorsNotSigned > 0)
      this.#notices.push(
        `${this.#anchorsNotSigned} anchor${this.#anchorsNotSigned === 1 ? '' : 's'} of the events ${this.#anchorsNotSigned === 1 ? 'is' : 'are'} not under the server's signed shared tree: anchored after its latest shared head, or lost (the live check of the shared log compares its leaves)`,
      );
    if (this.#anchorsUntrusted > 0)
      this.#notices.push(
        `${this.#anchorsUntrusted} anchor${this.#anchorsUntrusted === 1 ? ' was' : 's were'} not compared: no trusted shared-log key to verify the shared tree heads they are proved into`,
      );
    const beyond = this.#headsBeyond;
    if (beyond.count > 0) {
      const sizes = beyond.count === 1 ? `size ${beyond.first}` : `sizes ${beyond.first}–${beyond.last}`;
      this.#notices.push(
        `${beyond.count} recorded tree head${beyond.count === 1 ? '' : 's'} (${sizes}) ${beyond.count === 1 ? 'is' : 'are'} beyond the server's latest signed size ${size} when the check began and ${beyond.count === 1 ? 'was' : 'were'} not compared`,
      );
    }
  }

  // ---- plumbing ------------------------------------------------------------------------------------

  #expectStarted(what: string): void {
    if (this.#state === 'new') throw new Error(`LiveLogCheck.${what}: call begin() first`);
  }

  #add(check: LiveCheckCode, message: string, place?: FindingPlace): void {
    this.#findings.add(check, message, place);
  }

  /** Runs a check in the pool, unless the server stopped answering (then it is only counted). */
  #schedule(task: () => Promise<void>): Promise<void> | undefined {
    if (this.#gaveUp) {
      this.#skipped++;
      return undefined;
    }
    return this.#pool.start(async () => {
      if (this.#gaveUp) {
        this.#skipped++;
        return;
      }
      await task();
    });
  }

  /**
   * GETs `path` (of this log, or of `client`'s); a request that fails for good becomes a
   * 'live-unreachable' finding and null.
   */
  async #fetch(path: string, place?: FindingPlace, client = this.#http): Promise<LogAnswer | null> {
    try {
      const answer = await client.get(path);
      this.#failuresInARow = 0;
      return answer;
    } catch (error) {
      if (!(error instanceof LiveRequestError)) throw error;
      if (this.#gaveUp) {
        this.#skipped++;
        return null;
      }
      this.#add('live-unreachable', error.message, place);
      if (++this.#failuresInARow >= this.#giveUpAfter) this.#gaveUp = true;
      return null;
    }
  }

  /** Fetches and verifies a JSON STH; a missing, malformed or unverifiable one is a finding and null. */
  async #fetchSth(path: string, size: number): Promise<JsonSth | null> {
    const where = { tree_size: size };
    const answer = await this.#fetch(path, where);
    if (!answer) return null;
    if (answer.status === 404) {
      this.#add(
        'live-head-missing',
        `the server does not serve the tree head signed at size ${size} (${answer.url}): HTTP 404${serverMessage(answer.body)}`,
        where,
      );
      return null;
    }
    if (answer.status !== 200) {
      this.#add(
        'live-unreachable',
        `GET ${answer.url} answered HTTP ${answer.status}${serverMessage(answer.body)}`,
        where,
      );
      return null;
    }
    let sth: JsonSth;
    try {
      sth = parseSthAnswer(parseJsonBody(answer.body));
    } catch (error) {
      this.#add(
        'live-checkpoint-invalid',
        `the STH at ${answer.url} is malformed: ${(error as Error).message}`,
        where,
      );
      return null;
    }
    const verdict = await this.#trust!.verifySth(sth);
    if (!verdict.ok) {
      this.#add(
        'live-checkpoint-invalid',
        `the STH at ${answer.url} does not verify: ${verdict.reason}`,
        where,
      );
      return null;
    }
    return sth;
  }
}

/** The auditor's shared-log keys, or null when there is none usable (a check of another log then skips anchors). */
function sharedKeysOrNull(verifierKeys: readonly string[]): TrustedLogKeys | null {
  try {
    return new TrustedLogKeys(verifierKeys);
  } catch {
    return null;
  }
}
