/**
 * RFC 8785 (JCS) canonical JSON of a value read from JSON text, without parsing it into objects: the
 * members of each object are put in order by moving their text around. This holds when every string
 * and number of the value is already written as JCS writes it (as JSON.stringify writes them), which
 * is checked: anything else — whitespace, an escape, a raw control character or lone surrogate, a
 * number that JCS would write differently (1.0, 1e3, -0), a repeated key, a key that an engine orders
 * by itself (integer-like, `__proto__`) — returns null, and the caller canonicalizes the parsed value
 * instead. What it returns is then exactly canonicalJson(JSON.parse(text.slice(start, end))).
 *
 * It runs once per leaf of a log audit, so it allocates little: the members of the objects being read
 * are kept in arrays reused per depth, and a value already in canonical form is sliced, not rebuilt.
 */

import {
  BACKSLASH,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  CONTROL_CHARACTER,
  endOfNumber,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
} from './json-members';

/** Values nested deeper than this are left to the parsed path. */
const DEEPEST = 64;

/** Thrown inside the reader when the text is not in the form it reads; never escapes this module. */
const NOT_CANONICAL = Symbol('not canonical as written');

/** A JSON value read from text: where it ends, and its canonical JSON. */
export interface CanonicalValue {
  end: number;
  canonical: string;
}

/** The canonical JSON of the value text.slice(start, end), or null (see above). */
export function canonicalJsonOfText(text: string, start: number, end: number): string | null {
  const value = canonicalValueAt(text, start);
  return value?.end === end ? value.canonical : null;
}

/** The value that starts at text[start]: where it ends and its canonical JSON; null (see above). */
export function canonicalValueAt(text: string, start: number): CanonicalValue | null {
  source = text;
  next = start;
  let rebuilt: string | null;
  try {
    rebuilt = readValue(0);
  } catch (error) {
    if (error === NOT_CANONICAL) return null;
    throw error;
  } finally {
    source = '';
  }
  const end = next;
  // Escapes, control characters and lone surrogates rule the fast path out, so that every string
  // of the value is canonical as written: JSON.stringify writes other characters as they are.
  const backslash = text.indexOf('\\', start);
  if (backslash >= 0 && backslash < end) return null;
  const written = text.slice(start, end);
  if (CONTROL_CHARACTER.test(written) || !isWellFormed(written)) return null;
  return { end, canonical: rebuilt ?? written };
}

/** String.prototype.isWellFormed (Node 20): no lone surrogate, which JSON.stringify would escape. */
const isWellFormed = (text: string): boolean =>
  (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/** The text being read, and where its next value starts. */
let source = '';
let next = 0;

/** The members of the object being read at one depth: reused from one object to the next. */
interface Members {
  count: number;
  keys: string[];
  /** Where each member starts (its key's opening quote), where its value starts, where it ends. */
  starts: number[];
  valueStarts: number[];
  ends: number[];
  /** The value rebuilt in canonical form, or null when it is canonical as written. */
  rebuilt: (string | null)[];
  order: number[];
}

const membersAt: Members[] = [];

function membersOf(depth: number): Members {
  let members = membersAt[depth];
  if (!members) {
    members = { count: 0, keys: [], starts: [], valueStarts: [], ends: [], rebuilt: [], order: [] };
    membersAt[depth] = members;
  }
  members.count = 0;
  return members;
}

/** Reads the value at `next`: null when its text is canonical as written, else its canonical text. */
function readValue(depth: number): string | null {
  const start = next;
  const c = source.charCodeAt(start);
  if (c === QUOTE) {
    next = endOfString(start);
    return null;
  }
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
    if (depth >= DEEPEST) throw NOT_CANONICAL;
    return c === OPEN_OBJECT ? readObject(start, depth + 1) : readArray(start, depth + 1);
  }
  if (c === 0x74 /* t */ && source.startsWith('true', start)) next = start + 4;
  else if (c === 0x66 /* f */ && source.startsWith('false', start)) next = start + 5;
  else if (c === 0x6e /* n */ && source.startsWith('null', start)) next = start + 4;
  else {
    next = endOfNumber(source, start);
    if (next < 0) throw NOT_CANONICAL;
    // JCS writes numbers as ECMAScript does: the text must be what String(number) gives.
    const number = source.slice(start, next);
    if (String(Number(number)) !== number) throw NOT_CANONICAL;
  }
  return null;
}

function readObject(start: number, depth: number): string | null {
  next = start + 1;
  if (source.charCodeAt(next) === CLOSE_OBJECT) {
    next++;
    return null;
  }
  const members = membersOf(depth);
  const { keys, starts, valueStarts, ends, rebuilt } = members;
  let sorted = true;
  let verbatim = true;
  let count = 0;
  for (;;) {
    const keyStart = next;
    if (source.charCodeAt(keyStart) !== QUOTE) throw NOT_CANONICAL;
    const keyEnd = endOfString(keyStart);
    const key = source.slice(keyStart + 1, keyEnd - 1);
    const first = key.charCodeAt(0);
    // Keys an engine orders by itself are left to the parsed path, which knows how to write them.
    if ((first >= 0x30 && first <= 0x39) || key === '__proto__') throw NOT_CANONICAL;
    if (source.charCodeAt(keyEnd) !== COLON) throw NOT_CANONICAL;
    if (count > 0) {
      const previous = keys[count - 1]!;
      if (previous === key) throw NOT_CANONICAL;
      if (after(previous, key)) sorted = false;
    }
    next = keyEnd + 1;
    const value = readValue(depth);
    if (value !== null) verbatim = false;
    keys[count] = key;
    starts[count] = keyStart;
    valueStarts[count] = keyEnd + 1;
    ends[count] = next;
    rebuilt[count] = value;
    count++;
    const separator = source.charCodeAt(next++);
    if (separator === CLOSE_OBJECT) break;
    if (separator !== COMMA) throw NOT_CANONICAL;
  }
  if (sorted && verbatim) return null;
  members.count = count;
  const order = sortedOrder(members, sorted);
  let out = '{';
  for (let i = 0; i < count; i++) {
    const m = order[i]!;
    if (i > 0) out += ',';
    const value = rebuilt[m]!;
    out +=
      value === null ? source.slice(starts[m], ends[m]) : source.slice(starts[m], valueStarts[m]) + value;
  }
  return `${out}}`;
}

/** The members' indices in JCS order: by the UTF-16 code units of the keys, as JavaScript compares. */
function sortedOrder({ count, keys, order }: Members, sorted: boolean): number[] {
  for (let i = 0; i < count; i++) {
    // Insertion sort: objects have a few members each.
    let j = i;
    if (!sorted)
      while (j > 0 && after(keys[order[j - 1]!]!, keys[i]!)) {
        order[j] = order[j - 1]!;
        j--;
      }
    order[j] = i;
  }
  if (!sorted)
    for (let i = 1; i < count; i++) if (keys[order[i - 1]!] === keys[order[i]!]) throw NOT_CANONICAL;
  return order;
}

/** a > b by UTF-16 code units; the first unit decides most comparisons without a full string compare. */
function after(a: string, b: string): boolean {
  const x = a.charCodeAt(0);
  const y = b.charCodeAt(0);
  // An empty key has no first unit (NaN): the full compare knows it comes first.
  return x === y || a.length === 0 || b.length === 0 ? a > b : x > y;
}

function readArray(start: number, depth: number): string | null {
  next = start + 1;
  if (source.charCodeAt(next) === CLOSE_ARRAY) {
    next++;
    return null;
  }
  // Items are rebuilt only when one of them is not canonical as written (an object out of order).
  let out: string | null = null;
  for (let count = 0; ; count++) {
    const itemStart = next;
    const item = readValue(depth);
    if (item !== null && out === null) out = source.slice(start, itemStart);
    else if (out !== null && count > 0) out += ',';
    if (out !== null) out += item ?? source.slice(itemStart, next);
    const separator = source.charCodeAt(next++);
    if (separator === CLOSE_ARRAY) break;
    if (separator !== COMMA) throw NOT_CANONICAL;
  }
  return out === null ? null : `${out}]`;
}

/** The index after the closing quote of the string at `start`; a string with an escape is not read. */
function endOfString(start: number): number {
  const close = source.indexOf('"', start + 1);
  if (close < 0 || source.charCodeAt(close - 1) === BACKSLASH) throw NOT_CANONICAL;
  return close + 1;
}
