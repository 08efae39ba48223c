/**
 * C2SP signed-note format: a UTF-8 text ending in a newline, a blank line, then one or more signature
 * lines `— <key name> base64(4-byte key ID ‖ signature)`. Portable (no Node APIs).
 */
import { fromBase64, toBase64 } from '../encoding/bytes';

/** One signature line of a note. */
export interface NoteSignature {
  readonly name: string;
  /** First 4 bytes of SHA-256(name ‖ "\n" ‖ signature type ‖ public key). */
  readonly keyId: Uint8Array;
  /** The signature bytes after the key ID. */
  readonly signature: Uint8Array;
  /** The whole line including the final newline, exactly as it appeared. */
  readonly line: string;
}

export interface Note {
  /** The signed text, including its final newline. */
  readonly text: string;
  readonly signatures: readonly NoteSignature[];
}

export class NoteFormatError extends Error {
  override readonly name = 'NoteFormatError';
}

const MAX_SIGNATURES = 100;
const SIGNATURE_PREFIX = '\u2014 ';

/** Key names are non-empty and contain no whitespace and no '+' (which separates key fields). */
export function isValidKeyName(name: string): boolean {
  return name.length > 0 && !/[\s+]/u.test(name) && !hasControlCharacters(name);
}

function hasControlCharacters(text: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point.
  return /[\u0000-\u0009\u000b-\u001f\u007f]/.test(text);
}

/** Formats one signature line (with its newline). */
export function formatSignatureLine(name: string, keyId: Uint8Array, signature: Uint8Array): string {
  if (!isValidKeyName(name)) throw new NoteFormatError(`invalid key name ${JSON.stringify(name)}`);
  if (keyId.length !== 4) throw new NoteFormatError('key ID must be 4 bytes');
  const blob = new Uint8Array(4 + signature.length);
  blob.set(keyId);
  blob.set(signature, 4);
  return `${SIGNATURE_PREFIX}${name} ${toBase64(blob)}\n`;
}

/** Splits a signed note into its text and signature lines; throws NoteFormatError when malformed. */
export function parseNote(note: string): Note {
  if (hasControlCharacters(note)) throw new NoteFormatError('note contains control characters');
  const split = note.lastIndexOf('\n\n');
  if (split < 0) throw new NoteFormatError('note has no blank line before its signatures');
  const text = note.slice(0, split + 1);
  const block = note.slice(split + 2);
  if (text.length === 0 || text === '\n') throw new NoteFormatError('note text is empty');
  if (!block.endsWith('\n')) throw new NoteFormatError('signature block does not end with a newline');
  const lines = block.slice(0, -1).split('\n');
  if (lines.length > MAX_SIGNATURES) throw new NoteFormatError('too many signatures');
  const signatures = lines.map((line): NoteSignature => {
    if (!line.startsWith(SIGNATURE_PREFIX))
      throw new NoteFormatError(`malformed signature line ${JSON.stringify(line)}`);
    const rest = line.slice(SIGNATURE_PREFIX.length);
    const space = rest.indexOf(' ');
    const name = rest.slice(0, space);
    const encoded = rest.slice(space + 1);
    if (space < 0 || !isValidKeyName(name))
      throw new NoteFormatError(`malformed signature line ${JSON.stringify(line)}`);
    let blob: Uint8Array;
    try {
      blob = fromBase64(encoded);
    } catch {
      throw new NoteFormatError(`signature of ${name} is not valid base64`);
    }
    if (blob.length < 5) throw new NoteFormatError(`signature of ${name} is too short`);
    return { name, keyId: blob.slice(0, 4), signature: blob.slice(4), line: `${line}\n` };
  });
  return { text, signatures };
}
