/**
 * The audit's sequential part, per log: the logs found in the event stream (the shared log, and each
 * one its LogCreated event declares), each with its own replayed tree (log-replay.ts) and signed heads.
 * A head of the shared log is verified under the trusted log keys by the checking threads; a head of
 * another log is verified here, under the key its LogCreated gave, since only event order says which
 * key that is. Also here: one LogCreated per log, saying what the contract says; tree heads in their
 * log's stream; no leaf hash in two logs; an evidence envelope of another log bound to that log's key;
 * each anchor (a shared-log leaf holding another log's checkpoint) a head that log signed.
 */
import { logStreamOf, SHARED_LOG_NAME, treeHeadStreamOf } from '../domain/log';
import type { LogCreated } from '../event-schemas';
import { loadVerifierKey, SIGNATURE_TYPE_ED25519, type VerifierKey } from '../merkle-core';
import type { LogKind } from '../ports/log';
import type { AnchorFacts, AnchorHooks } from './anchor-checks';
import type { TreeHeadFacts } from './event-facts';
import { LeafLogs } from './leaf-logs';
import { LogReplay, type ReplayHooks } from './log-replay';
import type { Finding, LogFigures } from './report';
import { checkSignature } from './tree-head-checks';
import type { PreparedTrust } from './trust';

interface LogState {
  readonly name: string;
  /** Index in `order`: the code of the log in the leaf table. */
  readonly code: number;
  created: { position: number; kind: LogKind; origin: string; key: VerifierKey | null } | null;
  readonly replay: LogReplay | null;
  leaves: number;
  treeHeads: number;
  signatures: number;
  /** Whether an event naming this log before its LogCreated has been reported. */
  unknownReported: boolean;
  /** Root (hex) of each size the log signed a head at, read so far (other logs than the shared one). */
  readonly signedRoots: Map<number, string>;
  /** The largest size this log was anchored at so far in the shared log; null before its first anchor. */
  lastAnchor: number | null;
}

const NOTHING: readonly Finding[] = [];

export class AuditedLogs {
  private readonly logs = new Map<string, LogState>();
  private readonly order: LogState[] = [];
  private readonly leafLogs = new LeafLogs();
  /** The origins of the trusted (shared) log keys: another log's origin is `<one of them>/<name>`. */
  private readonly sharedOrigins: string[];

  /**
   * @param only audit this log alone (`gov audit --log`): other logs' leaves and heads are not
   *   replayed, and a leaf in two logs is reported only when one of them is this one.
   * @param hooks see each leaf and checked head of log `hooked` (default: `only`, else shared), and
   *   its anchors (the shared log's: every log's).
   */
  constructor(
    trust: PreparedTrust,
    private readonly hooks: ReplayHooks & AnchorHooks,
    readonly only: string | null,
    private readonly hooked: string = only ?? SHARED_LOG_NAME,
  ) {
    this.sharedOrigins = [...new Set(trust.logKeys.map((key) => key.name))];
    this.state(SHARED_LOG_NAME);
    if (only !== null) this.state(only);
  }

  /** Whether the audit covers log `name`. */
  covers(name: string): boolean {
    return this.only === null || this.only === name;
  }

  /** A LogCreated read at `position` in `stream`: checked, and its log's key and origin learnt. */
  created(position: number, stream: string, event: LogCreated): Finding[] {
    const findings: Finding[] = [];
    const log = this.state(event.log);
    if (log.created) {
      findings.push({
        check: 'log-created',
        log: event.log,
        message: `log ${event.log} was already created at position ${log.created.position}: a log is created once (its LogCreated is appended to a new stream); this one is ignored`,
      });
      return findings;
    }
    const problems = problemsOf(event, stream, this.sharedOrigins);
    let key: VerifierKey | null = null;
    try {
      key = loadVerifierKey(event.verifier_key);
      if (key.type !== SIGNATURE_TYPE_ED25519) {
        problems.push(`its verifier key is not an Ed25519 note key (type 0x01)`);
        key = null;
      } else if (key.name !== event.origin)
        problems.push(`its verifier key is named ${key.name}, not its origin ${event.origin}`);
    } catch (error) {
      problems.push(`its verifier key is not usable: ${(error as Error).message}`);
    }
    if (problems.length > 0)
      findings.push({
        check: 'log-created',
        log: event.log,
        message: `the LogCreated of log ${event.log} is not what the log's contract says: ${problems.join('; ')}`,
      });
    log.created = { position, kind: event.kind, origin: event.origin, key };
    return findings;
  }

  /** An admission of log `name` read at `position`; `hash` null when its record cannot be read. */
  admit(name: string, position: number, hash: Uint8Array | null): readonly Finding[] {
    const log = this.state(name);
    // Nearly every admission finds nothing: no array is made for it.
    const unknown = this.unknown(log, 'an admission');
    const other = hash === null ? null : this.leafLogs.add(hash, log.code);
    const twice =
      other !== null && (this.covers(name) || this.covers(this.order[other]!.name))
        ? {
            check: 'leaf-in-two-logs' as const,
            log: name,
            message: `leaf hash ${Buffer.from(hash!).toString('hex')} is already a leaf of log ${this.order[other]!.name}: a leaf is in one log only`,
          }
        : null;
    if (log.replay) {
      log.leaves++;
      log.replay.admit(position, hash);
    }
    if (!unknown && !twice) return NOTHING;
    return [unknown, twice].filter((finding): finding is Finding => finding !== null);
  }

  /** An evidence envelope of log `name` (not the shared log) bound to the log key `logId`. */
  binding(name: string, logId: string): Finding[] {
    const log = this.state(name);
    if (!log.replay) return [];
    const key = log.created?.key;
    if (!key || logId.trim() === key.text) return [];
    return [
      {
        check: 'envelope-log-binding',
        log: name,
        message: `the envelope is bound to log key '${logId}', not to the key of log ${name}, the log the leaf is in ('${key.text}')`,
      },
    ];
  }

  /** A readable TreeHeadSigned read at `position` in `stream`: its log's stream, key, origin and tree. */
  async treeHead(position: number, stream: string, head: TreeHeadFacts): Promise<Finding[]> {
    const log = this.state(head.log);
    // What an anchor of this log must match, whichever logs the audit covers (see `anchor`).
    if (head.log !== SHARED_LOG_NAME) log.signedRoots.set(head.treeSize, head.rootHash);
    if (!log.replay) return [];
    log.treeHeads++;
    const findings: Finding[] = [];
    const at = { tree_size: head.treeSize, log: head.log };
    const expected = treeHeadStreamOf(head.log);
    if (stream !== expected)
      findings.push({
        check: 'log-stream',
        ...at,
        message: `a tree head of log ${head.log} is in stream ${stream}, not in ${expected}: a head is appended to its own log's stream, which fences out a second sequencer of that log`,
      });
    if (head.log !== SHARED_LOG_NAME) findings.push(...(await this.verify(log, head)));
    for (const finding of await log.replay.treeHead(position, head))
      findings.push({ ...finding, log: head.log });
    return findings;
  }

  // ANCHOR CHECKS: a `LogAnchored` admission of the shared log, whose record (GOV_LOG_ANCHOR_V1)
  // carries another log's checkpoint. Its record against its checkpoint is checked on its own
  // (anchor-checks.ts); here what needs event order: the log's key, its heads, its earlier anchors.
  /**
   * An anchor of log `anchor.log` read in the shared log: its checkpoint must verify under that log's
   * key (its LogCreated's) and be a head that log signed before (a TreeHeadSigned of the same size and
   * root), and a log's anchors never go back in size. Checked when the audit covers the shared log or
   * the anchored one; then handed to the anchor hook with its leaf hash (null: unreadable, not handed).
   */
  async anchor(anchor: AnchorFacts, leafHash: Uint8Array | null): Promise<Finding[]> {
    if (!this.covers(SHARED_LOG_NAME) && !this.covers(anchor.log)) return [];
    const findings = await this.checkAnchor(anchor);
    if (leafHash && (this.hooked === SHARED_LOG_NAME || this.hooked === anchor.log))
      await this.hooks.onAnchor?.({ ...anchor, leafHash: leafHash.slice() });
    return findings;
  }

  private async checkAnchor(anchor: AnchorFacts): Promise<Finding[]> {
    const log = this.state(anchor.log);
    const at = { log: anchor.log, tree_size: anchor.treeSize };
    const findings: Finding[] = [];
    const what = `the anchor of log ${anchor.log} at size ${anchor.treeSize}`;
    if (log.lastAnchor !== null && anchor.treeSize < log.lastAnchor)
      findings.push({
        check: 'log-anchor-order',
        ...at,
        message: `${what} follows its anchor at size ${log.lastAnchor}: a log's anchors never go back in size (a log shown at a smaller size after a larger one was rolled back or forked)`,
      });
    log.lastAnchor = Math.max(log.lastAnchor ?? 0, anchor.treeSize);
    const created = log.created;
    if (!created?.key) {
      findings.push({
        check: 'log-anchor',
        ...at,
        message: created
          ? `${what} cannot be verified: the LogCreated of log ${anchor.log} gives no usable key (see 'log-created')`
          : `${what}, which no earlier LogCreated event declares: its checkpoint cannot be verified, since the key of a log is the one its LogCreated gives`,
      });
      return findings;
    }
    log.signatures++;
    const signature = await checkSignature(anchor.checkpoint, [created.key], `the key of log ${anchor.log}`);
    if (signature)
      findings.push({
        check: 'log-anchor',
        ...at,
        message: `${what} holds a checkpoint its log did not sign: ${signature.message}`,
      });
    const signed = log.signedRoots.get(anchor.treeSize);
    if (signed === undefined)
      findings.push({
        check: 'log-anchor',
        ...at,
        message: `${what}: log ${anchor.log} signed no tree head of that size before it (no TreeHeadSigned of size ${anchor.treeSize} in merkle-log-${anchor.log}); an anchor holds a head its log has signed`,
      });
    else if (signed !== anchor.rootHash)
      findings.push({
        check: 'log-anchor',
        ...at,
        message: `${what} has root ${anchor.rootHash}, but the log's tree head of that size has root ${signed}: two trees of one size, a fork of log ${anchor.log}`,
      });
    return findings;
  }

  figures(): LogFigures[] {
    const list = this.order.filter((log) => log.replay);
    const rank = (log: LogState) => (log.name === SHARED_LOG_NAME ? '' : log.name);
    return list
      .sort((a, b) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0))
      .map((log) => {
        const outcome = log.replay!.finish();
        const shared = log.name === SHARED_LOG_NAME;
        return {
          log: log.name,
          kind: shared ? 'shared' : (log.created?.kind ?? null),
          origin: shared ? (this.sharedOrigins[0] ?? null) : (log.created?.origin ?? null),
          verifier_key: shared ? null : (log.created?.key?.text ?? null),
          created_at: log.created?.position ?? null,
          leaves: log.leaves,
          tree_heads: log.treeHeads,
          tree_size: outcome.treeSize,
          root_hash: outcome.rootHash,
          signatures: log.signatures,
        };
      });
  }

  /** Each covered log's notices (admissions not integrated yet, heads left unchecked), by log. */
  notices(): string[] {
    const notices: string[] = [];
    const only = this.only === null ? null : this.logs.get(this.only)!;
    if (only && only.name !== SHARED_LOG_NAME && !only.created && only.leaves === 0 && only.treeHeads === 0)
      notices.push(`log ${only.name} is not in the stream: no LogCreated, admission or tree head names it`);
    for (const log of this.order) {
      if (!log.replay) continue;
      for (const notice of log.replay.finish().notices)
        notices.push(log.name === SHARED_LOG_NAME ? notice : `log ${log.name}: ${notice}`);
    }
    return notices;
  }

  /** Checkpoint signatures checked here, over every log. */
  get signatures(): number {
    return this.order.reduce((sum, log) => sum + log.signatures, 0);
  }

  private async verify(log: LogState, head: TreeHeadFacts): Promise<Finding[]> {
    const at = { tree_size: head.treeSize, log: head.log };
    const created = log.created;
    if (!created)
      return [
        {
          check: 'log-unknown',
          ...at,
          message: `a tree head of log ${head.log}, which no earlier LogCreated event declares: its checkpoint cannot be verified, since the key of a log is the one its LogCreated gives`,
        },
      ];
    const findings: Finding[] = [];
    if (head.origin !== created.origin)
      findings.push({
        check: 'sth-checkpoint-mismatch',
        ...at,
        message: `the tree head's origin is ${head.origin}, not ${created.origin}, the origin of log ${head.log}`,
      });
    if (!created.key) {
      findings.push({
        check: 'sth-signature',
        ...at,
        message: `the checkpoint cannot be verified: the LogCreated of log ${head.log} gives no usable key (see 'log-created')`,
      });
      return findings;
    }
    log.signatures++;
    const signature = await checkSignature(head.checkpoint, [created.key], `the key of log ${head.log}`);
    if (signature) findings.push({ ...signature, ...at });
    return findings;
  }

  /** The first event naming a log before its LogCreated is reported; later ones are not, again. */
  private unknown(log: LogState, what: string): Finding | null {
    if (log.name === SHARED_LOG_NAME || log.created || log.unknownReported || !log.replay) return null;
    log.unknownReported = true;
    return {
      check: 'log-unknown',
      log: log.name,
      message: `${what} to log ${log.name}, which no earlier LogCreated event declares (later events of this log before one are not reported again): a log is created before anything is admitted to it`,
    };
  }

  private state(name: string): LogState {
    let log = this.logs.get(name);
    if (!log) {
      const covered = this.covers(name);
      log = {
        name,
        code: this.order.length,
        created: null,
        replay: covered ? new LogReplay(name === this.hooked ? this.hooks : {}) : null,
        leaves: 0,
        treeHeads: 0,
        signatures: 0,
        unknownReported: false,
        signedRoots: new Map(),
        lastAnchor: null,
      };
      this.logs.set(name, log);
      this.order.push(log);
    }
    return log;
  }
}

/** What a LogCreated says that its log's contract does not (its key is checked by the caller). */
function problemsOf(event: LogCreated, stream: string, sharedOrigins: readonly string[]): string[] {
  const problems: string[] = [];
  const { log } = event;
  const expectedStream = logStreamOf(log);
  if (stream !== expectedStream) problems.push(`it is in stream ${stream}, not ${expectedStream}`);
  const kind: LogKind = log === 'test' ? 'test' : 'dedicated';
  if (event.kind !== kind) problems.push(`its kind is ${event.kind}, not ${kind}`);
  const tenant = kind === 'dedicated' ? `ten_${log.slice('dedicated-'.length)}` : null;
  if (event.tenant_id !== tenant)
    problems.push(`its tenant_id is ${JSON.stringify(event.tenant_id)}, not ${JSON.stringify(tenant)}`);
  if (sharedOrigins.length === 0)
    problems.push(`its origin ${event.origin} cannot be checked: no trusted log key gives the shared origin`);
  else if (!sharedOrigins.some((origin) => event.origin === `${origin}/${log}`))
    problems.push(
      `its origin is ${event.origin}, not ${sharedOrigins.map((o) => `${o}/${log}`).join(' or ')}`,
    );
  return problems;
}
