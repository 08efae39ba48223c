/**
 * MEASURED LOW-LEVEL CODE: RFC 8785 (JCS) canonical JSON, byte for byte as the `canonicalize` package
 * writes it (the reference, which it is property-tested against), about twice as fast on plain JSON.
 *
 * Why it exists: every admission writes the canonical JSON of its record several times (hashes,
 * signatures, the leaf). A copy of the value with every object's members in canonical order is handed
 * to the engine's own JSON.stringify, which writes strings and numbers exactly as JCS does and keeps
 * the insertion order of non-integer keys. A value that is not plain JSON data — integer-like keys (an
 * engine puts them first, in numeric order), `__proto__`, toJSON, holes, non-finite numbers,
 * functions, class instances — is handed to the reference instead, so every input gets the
 * reference's output (or its error).
 *
 * Do not copy this pattern elsewhere: call `canonicalJson` (canonical-json.ts). Its correctness rests on
 * the engine's key order and on the property test against the reference.
 */
import reference from 'canonicalize';

/** Thrown inside the copy when the value is not plain JSON data: the reference then writes it. */
const NOT_PLAIN = Symbol('not plain JSON data');

/** The reference's output for `value` (undefined where JSON has no text for it), written faster. */
export function fastCanonicalize(value: unknown): string | undefined {
  let ordered: unknown;
  try {
    ordered = orderedCopy(value);
  } catch (error) {
    if (error === NOT_PLAIN) return reference(value);
    throw error;
  }
  return JSON.stringify(ordered);
}

function orderedCopy(value: unknown): unknown {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw NOT_PLAIN;
      return value;
    case 'object':
      return Array.isArray(value) ? arrayCopy(value) : objectCopy(value as Record<string, unknown>);
    default:
      throw NOT_PLAIN;
  }
}

function arrayCopy(array: unknown[]): unknown[] {
  if (Object.getPrototypeOf(array) !== Array.prototype) throw NOT_PLAIN;
  const copy = new Array<unknown>(array.length);
  for (let i = 0; i < array.length; i++) {
    if (!(i in array)) throw NOT_PLAIN;
    const item = array[i];
    // undefined and symbols are written as null, by the reference and by JSON.stringify alike.
    copy[i] = item === undefined || typeof item === 'symbol' ? null : orderedCopy(item);
  }
  return copy;
}

function objectCopy(object: Record<string, unknown>): Record<string, unknown> {
  const prototype = Object.getPrototypeOf(object);
  if ((prototype !== Object.prototype && prototype !== null) || typeof object.toJSON === 'function')
    throw NOT_PLAIN;
  const keys = Object.keys(object);
  let sorted = true;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    // An engine would put integer-like keys first: any key starting with a digit goes to the reference.
    const first = key.charCodeAt(0);
    if ((first >= 0x30 && first <= 0x39) || key === '__proto__') throw NOT_PLAIN;
    if (i > 0 && keys[i - 1]! > key) sorted = false;
  }
  if (!sorted) keys.sort();
  const copy: Record<string, unknown> = {};
  for (const key of keys) {
    const item = object[key];
    // Members whose value is undefined or a symbol are left out, by the reference and by JSON.stringify.
    if (item === undefined || typeof item === 'symbol') continue;
    copy[key] = orderedCopy(item);
  }
  return copy;
}
