/**
 * The JSON signed tree head and the C2SP checkpoint are two spellings of one signed statement.
 *
 * A checkpoint for this log has exactly one extension line, `timestamp <ISO 8601 UTC>`, so the time is
 * covered by the log's signature. C2SP tlog-checkpoint does not recommend extension lines (monitors
 * cannot audit them), but this one stays: the JSON STH's `timestamp` is signed only through it, and
 * without it a verifier could not tell a head signed without a time from one whose time was altered.
 * The JSON STH carries the same parts:
 *
 *   log_id             the log's verifier key in note format, `<origin>+<hex key ID>+<base64(0x01 ‖ key)>`:
 *                      it names the origin (key name = origin) and the key ID the signature line needs.
 *                      It identifies the key; verifiers must still compare it with the key they trust.
 *   tree_size          checkpoint line 2, as a JSON number
 *   root_hash          checkpoint line 3, as lowercase hex instead of base64
 *   timestamp          the extension line's ISO 8601 value (always `YYYY-MM-DDTHH:MM:SS.sssZ`)
 *   log_signature      the base64 on the log's signature line: key ID (4 bytes) ‖ Ed25519 signature
 *                      (64 bytes) over the checkpoint text
 *   witness_signatures the other signature lines in order, `{ name, signature }`, signature being the
 *                      line's base64: key ID ‖ 8-byte timestamp ‖ Ed25519 signature (cosignature/v1)
 *
 * `checkpointNoteFromSth` rebuilds the signed note byte for byte (text, blank line, log line, witness
 * lines), so the JSON form verifies exactly as the note does. Portable (no Node APIs): it imports
 * merkle-core's portable files, not its Node entry, because the browser verifier (browser.ts) bundles it.
 */
import { bytesEqual, fromBase64, fromHex, toHex } from '../../merkle-core/encoding/bytes';
import { formatCheckpoint, parseCheckpoint } from '../../merkle-core/note/checkpoint';
import { parseVerifierKeyText, SIGNATURE_TYPE_ED25519 } from '../../merkle-core/note/key-format';
import { formatSignatureLine, parseNote } from '../../merkle-core/note/note';
import {
  type CheckpointVerdict,
  type CryptoSuite,
  type VerifierKey,
  verifyCheckpointNote,
} from '../../merkle-core/note/signature-checks';

interface SthWitnessSignature {
  /** The witness's key name. */
  readonly name: string;
  /** base64(key ID ‖ timestamp ‖ signature), as on the note's signature line. */
  readonly signature: string;
}

export interface JsonSth {
  readonly log_id: string;
  readonly tree_size: number;
  readonly root_hash: string;
  readonly timestamp: string;
  readonly log_signature: string;
  readonly witness_signatures: readonly SthWitnessSignature[];
}

class SthFormatError extends Error {
  override readonly name = 'SthFormatError';
}

const TIMESTAMP_PREFIX = 'timestamp ';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Whether `text` is the one ISO 8601 spelling this module uses (what Date#toISOString produces). */
function isCanonicalTimestamp(text: string): boolean {
  if (!ISO_UTC.test(text)) return false;
  const date = new Date(text);
  return !Number.isNaN(date.getTime()) && date.toISOString() === text;
}

/** The checkpoint extension line carrying the tree head's timestamp. */
export function timestampExtension(time: Date): string {
  return `${TIMESTAMP_PREFIX}${time.toISOString()}`;
}

/** Converts a signed checkpoint note into the JSON STH; the first signature must be the log's. */
export function sthFromCheckpointNote(note: string, logVerifierKey: string): JsonSth {
  const key = parseVerifierKeyText(logVerifierKey);
  const { text, signatures } = parseNote(note);
  const checkpoint = parseCheckpoint(text);
  if (checkpoint.origin !== key.name)
    throw new SthFormatError('checkpoint origin differs from the log key name');
  const [extension, ...more] = checkpoint.extensions;
  if (more.length > 0 || !extension?.startsWith(TIMESTAMP_PREFIX)) {
    throw new SthFormatError('a checkpoint maps to an STH only with exactly one "timestamp" extension line');
  }
  const timestamp = extension.slice(TIMESTAMP_PREFIX.length);
  if (!isCanonicalTimestamp(timestamp)) throw new SthFormatError(`non-canonical timestamp ${timestamp}`);
  const [logSignature, ...witnesses] = signatures;
  if (!logSignature || logSignature.name !== key.name || !bytesEqual(logSignature.keyId, key.keyId)) {
    throw new SthFormatError('the first signature line must be the log key');
  }
  const base64Of = (line: string): string => line.slice(line.lastIndexOf(' ') + 1, -1);
  return {
    log_id: logVerifierKey.trim(),
    tree_size: checkpoint.size,
    root_hash: toHex(checkpoint.rootHash),
    timestamp,
    log_signature: base64Of(logSignature.line),
    witness_signatures: witnesses.map((w) => ({ name: w.name, signature: base64Of(w.line) })),
  };
}

/** Rebuilds the exact signed checkpoint note an STH was derived from; throws SthFormatError. */
export function checkpointNoteFromSth(sth: JsonSth): string {
  const key = parseVerifierKeyText(sth.log_id);
  if (key.type !== SIGNATURE_TYPE_ED25519) throw new SthFormatError('log_id must be an Ed25519 verifier key');
  if (!/^[0-9a-f]{64}$/.test(sth.root_hash))
    throw new SthFormatError('root_hash must be 64 lowercase hex digits');
  if (!isCanonicalTimestamp(sth.timestamp))
    throw new SthFormatError(`non-canonical timestamp ${sth.timestamp}`);
  const text = formatCheckpoint({
    origin: key.name,
    size: sth.tree_size,
    rootHash: fromHex(sth.root_hash),
    extensions: [`${TIMESTAMP_PREFIX}${sth.timestamp}`],
  });
  const line = (name: string, encoded: string): string => {
    const blob = fromBase64(encoded);
    if (blob.length < 5) throw new SthFormatError(`signature of ${name} is too short`);
    return formatSignatureLine(name, blob.subarray(0, 4), blob.subarray(4));
  };
  const logLine = line(key.name, sth.log_signature);
  if (!bytesEqual(fromBase64(sth.log_signature).subarray(0, 4), key.keyId)) {
    throw new SthFormatError('log_signature key ID differs from log_id');
  }
  const witnessLines = sth.witness_signatures.map((w) => line(w.name, w.signature));
  const note = `${text}\n${logLine}${witnessLines.join('')}`;
  parseNote(note);
  return note;
}

/** Verifies a JSON STH against the trusted log key by verifying the note it spells. */
export async function verifySthWith(
  sth: JsonSth,
  logKey: VerifierKey,
  suite: CryptoSuite,
): Promise<CheckpointVerdict> {
  if (sth.log_id.trim() !== logKey.text) return { ok: false, reason: 'log_id is not the trusted log key' };
  let note: string;
  try {
    note = checkpointNoteFromSth(sth);
  } catch (error) {
    return { ok: false, reason: `malformed STH: ${(error as Error).message}` };
  }
  return verifyCheckpointNote(note, logKey, suite);
}
