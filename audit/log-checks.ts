/**
 * The per-event part of an audit of the log structure alone (`checks: 'log'`), as a certificate
 * transparency monitor checks a log: each admission's leaf record gives its leaf hash (and the stored
 * leaf_hash must be it), and each TreeHeadSigned is checked on its own (schema, sizes, checkpoint
 * signature, checkpoint contents). Ordering, roots and consistency are the sequential replay's, as in a
 * full audit. Not checked here: other events' data, JSON Schemas of admissions, the bundle, the
 * validator certificate, the envelope's signature, the closed-loop links (the full audit's job).
 *
 * An intact admission is not parsed: its leaf hash comes straight from the stored text
 * (stored-leaf.ts), exactly as parsing would give it. Any other one is parsed, and the findings
 * worded, as below. (Whether the rest of an admission's data is well-formed JSON is the full audit's
 * concern: a raw control character in another member's string is only reported there.)
 */
import { isLogName, leafHashOfRecord, SHARED_LOG_NAME } from '../domain/log';
import { type TreeHeadSigned, validateEventData } from '../event-schemas';
import { fromHex } from '../merkle-core';
import { LEAF_RECORD_MEMBER } from '../projectors/log/log-sequencer';
import { checkLogAnchored } from './anchor-checks';
import {
  type ChunkResultBuilder,
  type EventFacts,
  type EventVerdict,
  type RawEventRow,
  treeHeadFacts,
} from './event-facts';
import type { Finding } from './report';
import { intactLeafHash, intactLeafLog } from './stored-leaf';
import { checkTreeHeadSigned, isSharedHead } from './tree-head-checks';
import type { PreparedTrust } from './trust';

type AdmissionType = keyof typeof LEAF_RECORD_MEMBER;

/** What a log audit reads of a stored event: no metadata beyond what ordering needs. */
export type LogEventRow = [
  position: number,
  id: string,
  stream: string,
  revision: number,
  type: string,
  data: unknown,
];

export function logRowOf(row: RawEventRow): LogEventRow {
  return [row[0], row[1], row[2], row[3], row[4], row[10]];
}

/**
 * An intact admission (nearly every event of a store) goes straight into the chunk's result, with no
 * facts or verdict built for it: true when `row` is one, else false, and checkLogEvent checks it.
 */
export function addIntactAdmission(row: LogEventRow, result: ChunkResultBuilder): boolean {
  const type = row[4];
  const data = row[5];
  if (typeof data !== 'string' || !Object.hasOwn(LEAF_RECORD_MEMBER, type)) return false;
  // An anchor's checkpoint is checked in event order, so its facts are needed (and anchors are few).
  if (type === 'LogAnchored') return false;
  const hash = intactLeafHash(type as AdmissionType, data);
  if (hash === null) return false;
  result.addLeaf(row[0], row[1], type, row[2], row[3], hash, intactLeafLog);
  return true;
}

/** The verdict on one stored event: a promise only for a TreeHeadSigned (its signature check is async). */
export function checkLogEvent(row: LogEventRow, trust: PreparedTrust): EventVerdict | Promise<EventVerdict> {
  const [position, id, stream, revision, type, stored] = row;
  const facts: EventFacts = { position, id, type, stream, revision };
  if (Object.hasOwn(LEAF_RECORD_MEMBER, type))
    return checkAdmission(type as AdmissionType, dataText(stored), facts);
  if (type === 'LogCreated') return checkLogCreatedEvent(dataText(stored), facts);
  if (type !== 'TreeHeadSigned') return { facts, findings: [], signatures: 0 };
  return checkTreeHead(dataText(stored), facts, trust);
}

/** A LogCreated's schema here; what it says is checked in event order (log-directory.ts). */
function checkLogCreatedEvent(text: string, facts: EventFacts): EventVerdict {
  const findings: Finding[] = [];
  const data = parsed(text, findings);
  if (data === UNREADABLE) return { facts, findings, signatures: 0 };
  const validation = validateEventData('LogCreated', data);
  if (validation.ok) facts.log_created = validation.value;
  else
    findings.push({
      check: 'event-schema',
      message: `the LogCreated data does not match its schema: ${validation.problems.map((p) => `${p.pointer || '/'} ${p.reason}`).join('; ')}`,
    });
  return { facts, findings, signatures: 0 };
}

function checkAdmission(type: AdmissionType, text: string, facts: EventFacts): EventVerdict {
  const findings: Finding[] = [];
  if (type === 'LogAnchored') return checkAnchor(text, facts, findings);
  // An intact admission needs no parse; any other is parsed, which says what is wrong.
  const intact = intactLeafHash(type, text);
  if (intact !== null) {
    facts.leaf = { hash: fromHex(intact) };
    if (intactLeafLog !== null) facts.log = intactLeafLog;
    return { facts, findings, signatures: 0 };
  }
  const data = parsed(text, findings);
  facts.leaf = { hash: data === UNREADABLE ? null : leafOf(type, data, findings) };
  if (data !== UNREADABLE) {
    const log = logOfAdmission(type, data, findings);
    if (log !== SHARED_LOG_NAME) facts.log = log;
  }
  return { facts, findings, signatures: 0 };
}

/** A LogAnchored: its leaf, and the checkpoint it anchors for the sequential checks (anchor-checks.ts). */
function checkAnchor(text: string, facts: EventFacts, findings: Finding[]): EventVerdict {
  const data = parsed(text, findings);
  if (data === UNREADABLE) {
    facts.leaf = { hash: null };
    return { facts, findings, signatures: 0 };
  }
  const validation = validateEventData('LogAnchored', data);
  if (!validation.ok) {
    findings.push({
      check: 'event-schema',
      message: `the LogAnchored data does not match its schema: ${validation.problems.map((p) => `${p.pointer || '/'} ${p.reason}`).join('; ')}`,
    });
    facts.leaf = { hash: leafOf('LogAnchored', data, findings) };
    return { facts, findings, signatures: 0 };
  }
  const verdict = checkLogAnchored(validation.value);
  findings.push(...verdict.findings);
  facts.leaf = { hash: verdict.leafHash };
  facts.anchor = verdict.anchor;
  return { facts, findings, signatures: 0 };
}

async function checkTreeHead(text: string, facts: EventFacts, trust: PreparedTrust): Promise<EventVerdict> {
  const findings: Finding[] = [];
  const data = parsed(text, findings);
  if (data === UNREADABLE) return { facts, findings, signatures: 0 };
  const validation = validateEventData('TreeHeadSigned', data);
  if (!validation.ok) {
    findings.push({
      check: 'event-schema',
      message: `the TreeHeadSigned data does not match its schema: ${validation.problems.map((p) => `${p.pointer || '/'} ${p.reason}`).join('; ')}`,
    });
    return { facts, findings, signatures: 0 };
  }
  const head = data as TreeHeadSigned;
  findings.push(...(await checkTreeHeadSigned(head, trust)));
  facts.tree_head = treeHeadFacts(head);
  return { facts, findings, signatures: isSharedHead(head) ? 1 : 0 };
}

const UNREADABLE = Symbol('not JSON');

/** The parsed data, or UNREADABLE (and a json-invalid finding). */
function parsed(text: string, findings: Finding[]): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    findings.push({
      check: 'json-invalid',
      message: `the stored data is not valid JSON (${(error as Error).message}): the event was altered or truncated`,
    });
    return UNREADABLE;
  }
}

/** The leaf hash of the admission's record (null when there is none to hash), checked against the stored one. */
function leafOf(type: AdmissionType, data: unknown, findings: Finding[]): Uint8Array | null {
  const member = LEAF_RECORD_MEMBER[type];
  const record = (data as Record<string, unknown> | null)?.[member];
  let hash: Uint8Array | null = null;
  if (record !== null && typeof record === 'object')
    try {
      hash = leafHashOfRecord(record);
    } catch {
      hash = null;
    }
  if (hash === null) {
    findings.push({
      check: 'event-schema',
      message: `the ${type} has no ${member} object to hash as its leaf record`,
    });
    return null;
  }
  const stored = (data as { leaf_hash?: unknown }).leaf_hash;
  const recomputed = Buffer.from(hash.buffer, hash.byteOffset, hash.length).toString('hex');
  if (stored !== recomputed)
    findings.push({
      check: 'leaf-hash-mismatch',
      message: `leaf_hash ${String(stored)} is not the leaf hash of the ${member} (${recomputed}): the record or the stored hash was altered`,
    });
  return hash;
}

/**
 * The log an admission names (`shared` when none); one that is not a log name is reported, and the
 * leaf is taken to be in the shared log, where its tree heads will not have it.
 */
export function logOfAdmission(type: string, data: unknown, findings: Finding[]): string {
  const log = (data as { log?: unknown } | null)?.log;
  if (log === undefined) return SHARED_LOG_NAME;
  if (typeof log === 'string' && isLogName(log)) return log;
  findings.push({
    check: 'event-schema',
    message: `the ${type} names log ${JSON.stringify(log)}, which is not a log name (shared, test or dedicated-<24 hex>)`,
  });
  return SHARED_LOG_NAME;
}

function dataText(value: unknown): string {
  return typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}
