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
  // of the value is canonical as written: JSON.stringify writes other characters as they are. (Three
  // tests: one regular expression for all three scans the text several times slower.)
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

/**
 * The members of the object being read at one depth, reused from one object to the next. Keys are
 * not sliced out of the text: they are compared where they stand.
 */
interface Members {
  /** Where each member starts (its key's opening quote) and where its key ends (after its closing quote). */
  starts: number[];
  keyEnds: number[];
  /** Where each member's value starts, and where it ends. */
  valueStarts: number[];
  ends: number[];
  /** The value rebuilt in canonical form, or null when it is canonical as written. */
  rebuilt: (string | null)[];
  /** The JCS order last found at this depth, a permutation of its first `orderCount` members (-1: none). */
  order: number[];
  orderCount: number;
}

const membersAt: Members[] = [];

function membersOf(depth: number): Members {
  let members = membersAt[depth];
  if (!members) {
    members = { starts: [], keyEnds: [], valueStarts: [], ends: [], rebuilt: [], order: [], orderCount: -1 };
    membersAt[depth] = members;
  }
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
  const { starts, keyEnds, valueStarts, ends, rebuilt } = members;
  let sorted = true;
  let verbatim = true;
  let count = 0;
  for (;;) {
    const keyStart = next;
    if (source.charCodeAt(keyStart) !== QUOTE) throw NOT_CANONICAL;
    const keyEnd = endOfString(keyStart);
    // Keys an engine orders by itself are left to the parsed path, which knows how to write them.
    const first = source.charCodeAt(keyStart + 1);
    if (
      (first >= 0x30 && first <= 0x39) ||
      (first === 0x5f /* _ */ && keyEnd - keyStart === 11 && source.startsWith('__proto__', keyStart + 1))
    )
      throw NOT_CANONICAL;
    if (source.charCodeAt(keyEnd) !== COLON) throw NOT_CANONICAL;
    if (count > 0) {
      const order = compareKeys(starts[count - 1]!, keyEnds[count - 1]!, keyStart, keyEnd);
      if (order === 0) throw NOT_CANONICAL; // a repeated key: JSON.parse keeps the last
      if (order > 0) sorted = false;
    }
    next = keyEnd + 1;
    const value = readValue(depth);
    if (value !== null) verbatim = false;
    starts[count] = keyStart;
    keyEnds[count] = keyEnd;
    valueStarts[count] = keyEnd + 1;
    ends[count] = next;
    rebuilt[count] = value;
    count++;
    const separator = source.charCodeAt(next++);
    if (separator === CLOSE_OBJECT) break;
    if (separator !== COMMA) throw NOT_CANONICAL;
  }
  if (sorted && verbatim) return null;
  const order = sorted ? inOrder(count) : sortedOrder(members, count);
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

/** 0, 1, 2…: the order of members written in JCS order already. */
const identity: number[] = [];

function inOrder(count: number): number[] {
  for (let i = identity.length; i < count; i++) identity.push(i);
  return identity;
}

/**
 * The members' indices in JCS order. Objects of one kind have their keys written in the same order,
 * so the order found for the last object of this many members at this depth is tried first: checking
 * it takes one comparison per member, where sorting again (insertion sort: objects have a few members
 * each) takes several. Two equal keys meet in either, and are refused: JSON.parse would keep the last.
 */
function sortedOrder(members: Members, count: number): number[] {
  const { starts, keyEnds, order } = members;
  if (members.orderCount === count && isJcsOrder(members, count)) return order;
  members.orderCount = -1; // until the order is whole again
  for (let i = 0; i < count; i++) {
    let j = i;
    for (; j > 0; j--) {
      const o = order[j - 1]!;
      const comparison = compareKeys(starts[o]!, keyEnds[o]!, starts[i]!, keyEnds[i]!);
      if (comparison === 0) throw NOT_CANONICAL;
      if (comparison < 0) break;
      order[j] = o;
    }
    order[j] = i;
  }
  members.orderCount = count;
  return order;
}

/** Whether `order` (a permutation of the members) puts their keys in strictly increasing order. */
function isJcsOrder({ starts, keyEnds, order }: Members, count: number): boolean {
  for (let i = 1; i < count; i++) {
    const a = order[i - 1]!;
    const b = order[i]!;
    if (compareKeys(starts[a]!, keyEnds[a]!, starts[b]!, keyEnds[b]!) >= 0) return false;
  }
  return true;
}

/**
 * The order of two keys by their UTF-16 code units, as JavaScript compares strings and RFC 8785 orders
 * members (negative: a first); each key is given by its opening quote and the index after its closing
 * one, and read where it stands. The first unit decides most comparisons.
 */
function compareKeys(aStart: number, aEnd: number, bStart: number, bEnd: number): number {
  const aLength = aEnd - aStart - 2;
  const bLength = bEnd - bStart - 2;
  const length = aLength < bLength ? aLength : bLength;
  for (let k = 1; k <= length; k++) {
    const difference = source.charCodeAt(aStart + k) - source.charCodeAt(bStart + k);
    if (difference !== 0) return difference;
  }
  return aLength - bLength;
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
