/** What an audit finds: discrepancies (faults, each at a position) and the summary report. */
import type { LogKind } from '../ports/log';

export interface Discrepancy {
  /** Event-store position of the event at fault (for an export file: the event's recorded position). */
  position: number | null;
  event_id: string | null;
  event_type: string | null;
  /** The log a sequential check found it in (a leaf's, a tree head's, a LogCreated's). */
  log?: string;
  leaf_index?: number;
  tree_size?: number;
  /** Stable machine-readable code, e.g. 'leaf-hash-mismatch', 'sth-signature', 'root-mismatch'. */
  check: string;
  /** A sentence a person can act on. */
  message: string;
}

export interface AuditReport {
  /** Which checks ran: `all`, or `log` (the log structure alone). */
  checks: 'all' | 'log';
  /** The one log audited (`gov audit --log`), or null: every log found in the stream. */
  log: string | null;
  events: number;
  /** Leaves and tree heads of every log audited. */
  leaves: number;
  tree_heads: number;
  /** The shared log's (with `log`: that log's) recomputed size and root. */
  tree_size: number;
  root_hash: string | null;
  /** Per log audited: the shared log first, then the others by name. */
  logs: LogFigures[];
  discrepancies: Discrepancy[];
  /** Facts that are not faults (e.g. admissions not yet integrated at the end of the stream). */
  notices: string[];
  /** Ed25519 signatures the checks covered: every vote, envelope and checkpoint. */
  signatures: number;
  seconds: number;
  leaves_per_second: number;
}

/** A fault found inside one event, before it is tied to the event's position and id. */
export interface Finding {
  check: CheckCode;
  message: string;
  log?: string;
  leaf_index?: number;
  tree_size?: number;
}

/** The identity of an event, as discrepancies name it. */
export interface EventRef {
  position: number | null;
  id: string | null;
  type: string | null;
}

export function discrepancyAt(event: EventRef, finding: Finding): Discrepancy {
  return {
    position: event.position,
    event_id: event.id,
    event_type: event.type,
    ...(finding.log !== undefined && { log: finding.log }),
    ...(finding.leaf_index !== undefined && { leaf_index: finding.leaf_index }),
    ...(finding.tree_size !== undefined && { tree_size: finding.tree_size }),
    check: finding.check,
    message: finding.message,
  };
}

/** Position order, events without a position last; stable, so findings of one event keep their order. */
export function sortDiscrepancies(list: Discrepancy[]): Discrepancy[] {
  const key = (d: Discrepancy) => d.position ?? Number.POSITIVE_INFINITY;
  return list.sort((a, b) => key(a) - key(b));
}

/**
 * The check codes, with what each one means. Codes are stable: scripts may match on them.
 * (Documentation for `gov audit --help` and the README is generated from this table.)
 */
export const CHECKS = {
  'json-invalid': 'the stored data of an event is not valid JSON',
  'event-schema': "an event's metadata or data does not match its JSON Schema",
  'unknown-event-type': 'an event type the service does not know',
  'check-failed': 'an event could not be checked at all (the message says why)',
  'position-order': 'positions do not strictly increase',
  'revision-gap': 'a stream skips revisions (an event was dropped) or does not start at 0',
  'revision-order': 'a stream repeats or goes back in revisions (events reordered or duplicated)',
  'tenant-mismatch': 'the tenant named by an event, its record and its parts disagree',
  'subject-mismatch': 'the subject named by an event, its record and its parts disagree',
  'artifact-hash-mismatch': 'artifact_hash is not the hash of the admitted proof bundle',
  'certificate-invalid': 'the validator certificate does not verify (votes, signatures, quorum, cert_hash)',
  'certificate-threshold':
    'the quorum the certificate declares (threshold in earlier certificates) is below 2f + 1 of its validators',
  'certificate-mismatch': 'the certificate is not the one the bundle and the envelope name',
  'envelope-mismatch': 'the envelope does not bind the admitted bundle',
  'envelope-authority-unknown': 'the envelope is signed by an authority node the trust does not know',
  'envelope-signature': "the envelope's authority signature does not verify",
  'envelope-log-binding':
    "the envelope is bound to a log key other than its log's (the shared log: a trusted log key; another log: the key its LogCreated gives)",
  'leaf-hash-mismatch': 'the stored leaf_hash is not the hash of the leaf record',
  'record-authority-unknown':
    'an agent-platform record (config, passport, action) is signed by a node key the trust does not know',
  'record-signature': "an agent-platform record's node signature does not verify",
  'gates-failed': 'an admitted bundle does not pass its gates under the tenant policy it was admitted under',
  'policy-mismatch': "an admission names a policy that is not the tenant's policy in force at that point",
  'policy-hash-mismatch': "a policy change's policy_hash is not the hash of its policy",
  'policy-chain':
    "a policy change's version or previous_policy_hash does not follow the tenant's previous policy",
  'variance-arithmetic': "a variance record's numbers do not follow from its two states",
  'execution-parent': "an execution's authorization leaf is missing, later, foreign or already executed",
  'variance-parent': 'a variance record does not link an earlier execution and its authorization',
  'variance-state': "a variance record's states are not the observables of its parent leaves",
  'sth-size': 'tree_size is not first_leaf_index plus the number of leaf positions',
  'sth-signature': "the checkpoint does not verify under its log's key (the shared log: a trusted log key)",
  'sth-checkpoint-mismatch': "the signed checkpoint does not say what the event's fields say",
  'sth-timestamp': 'a tree head is older than the previous one',
  'first-leaf-index': 'a tree head does not start where the previous one ended',
  'leaf-position': 'a tree head integrates a position holding no pending admission event',
  'leaf-order': 'a tree head integrates an admission while an older one is still pending',
  'root-mismatch': 'root_hash is not the root recomputed from the admitted records',
  'root-unverifiable': 'a leaf could not be recomputed, so later roots cannot be checked',
  'source-integrity': 'the source failed part way (e.g. an export whose checksum does not match)',
  'log-created':
    "a LogCreated is not what the log's contract says (stream, kind, tenant, origin <shared origin>/<log>, key), or a log is created twice",
  'log-unknown': 'an admission or tree head names a log no earlier LogCreated declares',
  'log-stream': "a tree head is not in its log's stream (merkle-log, or merkle-log-<log>)",
  'leaf-in-two-logs': 'a leaf hash is a leaf of two logs',
  'log-anchor':
    "an anchor (a shared-log leaf GOV_LOG_ANCHOR_V1) holds a checkpoint its log did not sign: not under the log's key, not a tree head of that log read before it, or not what its record says",
  'log-anchor-order': "a log's anchors go back in size",
} as const;

type CheckCode = keyof typeof CHECKS;

/** What the report says of one log. */
export interface LogFigures {
  log: string;
  kind: LogKind | null;
  /** From its LogCreated (the shared log: the trusted log keys' names); null for a log never created. */
  origin: string | null;
  verifier_key: string | null;
  /** Position of its LogCreated event; null for the shared log and a log never created. */
  created_at: number | null;
  leaves: number;
  tree_heads: number;
  tree_size: number;
  /** The recomputed root at tree_size; null when a leaf could not be recomputed. */
  root_hash: string | null;
  /** Ed25519 checkpoint signatures checked here (another log's heads; the shared log's are the threads'). */
  signatures: number;
}
