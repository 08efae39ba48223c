/**
 * Signature verification for checkpoints and cosignatures, written once for Node and browsers: the
 * hash and Ed25519 primitives come from a `CryptoSuite` (node:crypto or WebCrypto), whose methods may
 * be synchronous or asynchronous. Portable (no Node APIs).
 */
import { bytesEqual, readUint64BigEndian, utf8 } from '../encoding/bytes';
import type { MaybePromise } from '../encoding/maybe-promise';
import { type Checkpoint, CheckpointFormatError, parseCheckpoint } from './checkpoint';
import {
  KeyFormatError,
  keyIdPreimage,
  parseVerifierKeyText,
  SIGNATURE_TYPE_COSIGNATURE_V1,
  SIGNATURE_TYPE_ED25519,
} from './key-format';
import { type Note, NoteFormatError, type NoteSignature, parseNote } from './note';

export interface CryptoSuite {
  sha256(data: Uint8Array): MaybePromise<Uint8Array>;
  verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): MaybePromise<boolean>;
}

/** A parsed verifier key whose key ID has been checked against its name and public key. */
export interface VerifierKey {
  readonly name: string;
  readonly keyId: Uint8Array;
  /** 0x01: Ed25519 note signatures (logs); 0x04: cosignature/v1 (witnesses). */
  readonly type: number;
  readonly publicKey: Uint8Array;
  /** The key in note format, `name+keyid+base64`. */
  readonly text: string;
}

export type CheckpointVerdict =
  | { readonly ok: true; readonly checkpoint: Checkpoint; readonly note: Note }
  | { readonly ok: false; readonly reason: string };

export type CosignatureVerdict =
  | { readonly ok: true; readonly checkpoint: Checkpoint; readonly timestamp: number }
  | { readonly ok: false; readonly reason: string };

/** First 4 bytes of SHA-256(name ‖ "\n" ‖ type ‖ public key). */
async function computeKeyId(
  name: string,
  type: number,
  publicKey: Uint8Array,
  suite: CryptoSuite,
): Promise<Uint8Array> {
  return (await suite.sha256(keyIdPreimage(name, type, publicKey))).slice(0, 4);
}

/** Parses a verifier key in note format and checks its key ID; throws KeyFormatError. */
export async function loadVerifierKey(text: string, suite: CryptoSuite): Promise<VerifierKey> {
  const { name, keyId, type, material } = parseVerifierKeyText(text);
  if (!bytesEqual(keyId, await computeKeyId(name, type, material, suite))) {
    throw new KeyFormatError(`key ID of ${name} does not match its public key`);
  }
  return { name, keyId, type, publicKey: material, text: text.trim() };
}

/** The message a cosignature/v1 signs: two header lines, then the checkpoint text. */
export function cosignatureMessage(checkpointText: string, timestamp: number): Uint8Array {
  return utf8(`cosignature/v1\ntime ${timestamp}\n${checkpointText}`);
}

function signaturesBy(note: Note, key: VerifierKey): NoteSignature[] {
  return note.signatures.filter((s) => s.name === key.name && bytesEqual(s.keyId, key.keyId));
}

function parse(noteText: string): Note | string {
  try {
    return parseNote(noteText);
  } catch (error) {
    if (error instanceof NoteFormatError) return `malformed note: ${error.message}`;
    throw error;
  }
}

function parseBody(text: string): Checkpoint | string {
  try {
    return parseCheckpoint(text);
  } catch (error) {
    if (error instanceof CheckpointFormatError) return `malformed checkpoint: ${error.message}`;
    throw error;
  }
}

/**
 * Verifies a checkpoint note signed by the log key `logKey` (type 0x01). The checkpoint's origin must
 * be the key's name; signatures by other keys (e.g. witnesses) are ignored.
 */
export async function verifyCheckpointNote(
  noteText: string,
  logKey: VerifierKey,
  suite: CryptoSuite,
): Promise<CheckpointVerdict> {
  if (logKey.type !== SIGNATURE_TYPE_ED25519)
    return { ok: false, reason: 'log keys must be Ed25519 (type 0x01)' };
  const note = parse(noteText);
  if (typeof note === 'string') return { ok: false, reason: note };
  const mine = signaturesBy(note, logKey);
  if (mine.length === 0) return { ok: false, reason: `no signature by ${logKey.name}+${toHexId(logKey)}` };
  const message = utf8(note.text);
  for (const sig of mine) {
    if (
      sig.signature.length !== 64 ||
      !(await suite.verifyEd25519(logKey.publicKey, message, sig.signature))
    ) {
      return { ok: false, reason: `invalid signature by ${logKey.name}` };
    }
  }
  const checkpoint = parseBody(note.text);
  if (typeof checkpoint === 'string') return { ok: false, reason: checkpoint };
  if (checkpoint.origin !== logKey.name) {
    return { ok: false, reason: `checkpoint origin ${checkpoint.origin} is not the key name ${logKey.name}` };
  }
  return { ok: true, checkpoint, note };
}

/** Verifies the cosignature/v1 by `cosignerKey` (type 0x04) on a checkpoint note. */
export async function verifyCosignatureNote(
  noteText: string,
  cosignerKey: VerifierKey,
  suite: CryptoSuite,
): Promise<CosignatureVerdict> {
  if (cosignerKey.type !== SIGNATURE_TYPE_COSIGNATURE_V1) {
    return { ok: false, reason: 'cosigner keys must be cosignature/v1 (type 0x04)' };
  }
  const note = parse(noteText);
  if (typeof note === 'string') return { ok: false, reason: note };
  const checkpoint = parseBody(note.text);
  if (typeof checkpoint === 'string') return { ok: false, reason: checkpoint };
  const mine = signaturesBy(note, cosignerKey);
  if (mine.length !== 1) {
    return { ok: false, reason: `expected one cosignature by ${cosignerKey.name}, found ${mine.length}` };
  }
  const { signature } = mine[0]!;
  if (signature.length !== 72)
    return { ok: false, reason: 'a cosignature is an 8-byte timestamp and 64-byte signature' };
  const time = readUint64BigEndian(signature, 0);
  if (time > BigInt(Number.MAX_SAFE_INTEGER))
    return { ok: false, reason: 'cosignature timestamp out of range' };
  const timestamp = Number(time);
  const message = cosignatureMessage(note.text, timestamp);
  if (!(await suite.verifyEd25519(cosignerKey.publicKey, message, signature.subarray(8)))) {
    return { ok: false, reason: `invalid cosignature by ${cosignerKey.name}` };
  }
  return { ok: true, checkpoint, timestamp };
}

function toHexId(key: VerifierKey): string {
  return Array.from(key.keyId, (b) => b.toString(16).padStart(2, '0')).join('');
}
