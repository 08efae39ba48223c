/**
 * The log-only audit's fast path for an admission: its leaf hash straight from the stored JSON text,
 * without parsing the 5 KB event. The leaf record's member is located in the text (json-members.ts),
 * put in canonical form by moving its members' text (canonical-text.ts), hashed, and the stored
 * leaf_hash compared as text. Each step either gives exactly what JSON.parse + canonicalJson would, or
 * gives up; so does a leaf_hash that does not match. Giving up returns null and the caller takes the
 * parsed path, which also words the findings: a tampered event costs a parse, an intact one does not.
 *
 * One difference from parsing, by choice: a raw control character inside a string outside the record
 * (which JSON.parse rejects, so the full audit reports the data unreadable) is not looked for. Finding
 * one means a regular-expression pass over the whole 5 KB text, some 10% of a log audit's time, for a
 * byte outside what a log audit checks; it moves no member, so the record read is still the one stored.
 */
import { createHash, hash } from 'node:crypto';
import { isLogName } from '../domain/log';
import { LEAF_RECORD_MEMBER } from '../projectors/log/log-sequencer';
import { canonicalValueAt } from './canonical-text';
import { topLevelMembers, type ValueReader } from './json-members';

type AdmissionType = keyof typeof LEAF_RECORD_MEMBER;

/** The wanted members of each admission type: its leaf record, the stored leaf_hash, and its log. */
const WANTED: Readonly<Record<AdmissionType, readonly string[]>> = {
  EvidenceAdmitted: [LEAF_RECORD_MEMBER.EvidenceAdmitted, 'leaf_hash', 'log'],
  ExecutionAdmitted: [LEAF_RECORD_MEMBER.ExecutionAdmitted, 'leaf_hash', 'log'],
  VarianceRecorded: [LEAF_RECORD_MEMBER.VarianceRecorded, 'leaf_hash', 'log'],
  LogAnchored: [LEAF_RECORD_MEMBER.LogAnchored, 'leaf_hash', 'log'],
  AgentConfigVersioned: [LEAF_RECORD_MEMBER.AgentConfigVersioned, 'leaf_hash', 'log'],
  AgentPassportIssued: [LEAF_RECORD_MEMBER.AgentPassportIssued, 'leaf_hash', 'log'],
  AgentActionDecided: [LEAF_RECORD_MEMBER.AgentActionDecided, 'leaf_hash', 'log'],
};

/**
 * The log of the admission intactLeafHash last accepted: null when it names none (the shared log),
 * else a valid log name other than `shared` (one that is not gives up, like any other surprise).
 */
export let intactLeafLog: string | null = null;

/**
 * The RFC 9162 leaf hash of the admission's record, in lowercase hex, when the stored data is intact
 * JSON in the form the event store writes and its stored leaf_hash is that hash; null when anything is
 * otherwise. Hex, as the digest is compared with the stored text: no buffer is made per leaf.
 */
export function intactLeafHash(type: AdmissionType, data: string): string | null {
  canonicalRecord = null;
  const spans = topLevelMembers(data, WANTED[type], RECORD_READER);
  const canonical = canonicalRecord as string | null;
  canonicalRecord = null;
  const stored = spans?.[1];
  if (!stored || canonical === null) return null;
  const log = spans[2] ? logNameAt(data, spans[2].start, spans[2].end) : null;
  if (log === undefined) return null;
  intactLeafLog = log;
  const hex = leafDigestHex(canonical);
  // The stored hash as JSON.stringify writes it: a quoted string of 64 lowercase hex digits.
  const matches =
    stored.end - stored.start === hex.length + 2 &&
    data.charCodeAt(stored.start) === 0x22 &&
    data.startsWith(hex, stored.start + 1);
  return matches ? hex : null;
}

/**
 * The log named by a `log` member's value (a JSON string without escapes): the name, null for
 * `shared` (written out, it means the same as no member), undefined when it is anything else.
 */
function logNameAt(data: string, start: number, end: number): string | null | undefined {
  if (data.charCodeAt(start) !== 0x22 || data.charCodeAt(end - 1) !== 0x22 || end - start < 2)
    return undefined;
  const name = data.slice(start + 1, end - 1);
  if (name === 'shared') return null;
  return isLogName(name) ? name : undefined;
}

/** The canonical JSON of the record the scan has just read (null: none, or not in canonical form). */
let canonicalRecord: string | null = null;

/** Reads the leaf record (an object) in place of skipping it, keeping its canonical JSON. */
const RECORD_READER: readonly ValueReader[] = [
  (text, start) => {
    if (text.charCodeAt(start) !== 0x7b /* { */) return -1;
    const value = canonicalValueAt(text, start);
    if (!value) return -1;
    canonicalRecord = value.canonical;
    return value.end;
  },
];

/** One-shot hashing (Node 20.12 and later), cheaper than a Hash object for one input. */
const oneShot = typeof hash === 'function' ? hash : null;

/**
 * The bytes hashed: 0x00, then the canonical text in UTF-8, written into one buffer reused from leaf
 * to leaf. Hashing a string costs twice as much: node:crypto encodes it on a slower path.
 */
let input = Buffer.allocUnsafeSlow(8192);

/** RFC 9162 leaf hash of canonical JSON text, SHA-256(0x00 ‖ UTF-8 of the text), in lowercase hex. */
function leafDigestHex(canonical: string): string {
  // A UTF-16 code unit takes at most three bytes in UTF-8.
  if (input.length < 3 * canonical.length + 1) input = Buffer.allocUnsafeSlow(6 * canonical.length + 2);
  input[0] = 0x00;
  const bytes = input.subarray(0, 1 + input.write(canonical, 1, 'utf8'));
  return oneShot ? oneShot('sha256', bytes, 'hex') : createHash('sha256').update(bytes).digest('hex');
}
