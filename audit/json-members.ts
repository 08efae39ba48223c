/**
 * Finds named members of a top-level JSON object in its text without parsing it: the log-only audit
 * needs two members of each 5 KB admission (its leaf record and its stored leaf_hash), and building the
 * whole object graph with JSON.parse cost more than everything else it does per leaf.
 *
 * The scanner reads only text in the form JSON.stringify writes (as the event store stores data): no
 * whitespace, strings closed by an unescaped quote, valid escapes, JSON numbers and literals, balanced
 * objects and arrays, nothing after the top-level object. On anything else — and on a wanted member
 * that occurs twice (JSON.parse keeps the last one; this would have to guess), or a top-level key with
 * an escape in it (it could spell a wanted name) — it gives up, and the caller parses the text instead.
 * Strings are skipped with indexOf, not character by character, so one thing JSON.parse rejects is
 * not looked for: a raw control character (U+0000–U+001F) inside a string. It changes no quote, so
 * the members are still where they are found; a caller that needs JSON.parse's verdict on the whole
 * text tests it for CONTROL_CHARACTER (a regular-expression pass over the whole text costs more than
 * this scan of it). Otherwise, what it accepts, JSON.parse accepts, and finds the members at the same
 * places.
 */

/** Where a member's value lies: text.slice(start, end). */
interface Span {
  start: number;
  end: number;
}

/** One span per wanted name (null: the member is absent), or null when the text must be parsed instead. */
export type MemberSpans = (Span | null)[];

/** A raw control character, which JSON.parse rejects inside a string (and canonical JSON never holds). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
export const CONTROL_CHARACTER = /[\0-\x1f]/;
/** Containers deeper than this are left to JSON.parse (the readers below recurse once per level). */
const MAX_DEPTH = 31;

/** The UTF-16 code units of JSON's structural characters (canonical-text.ts reads them too). */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COLON = 0x3a;
export const COMMA = 0x2c;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;

/**
 * Reads a wanted member's value itself instead of letting the scanner skip it: returns the index just
 * after the value, or -1 to give up (the text is then parsed instead).
 */
export type ValueReader = (text: string, start: number) => number;

/**
 * The spans of the top-level members `names` of the JSON object in `text`; `readers[k]`, when given,
 * reads the value of `names[k]` (so that a value the caller reads anyway is not also skipped).
 */
export function topLevelMembers(
  text: string,
  names: readonly string[],
  readers: readonly (ValueReader | undefined)[] = [],
): MemberSpans | null {
  if (text.charCodeAt(0) !== OPEN_OBJECT) return null;
  const spans: MemberSpans = names.map(() => null);
  scanned = text;
  nextBackslash = indexOrEnd(text, '\\', 0);
  try {
    let i = 1;
    if (text.charCodeAt(i) === CLOSE_OBJECT) return i + 1 === text.length ? spans : null;
    for (;;) {
      if (text.charCodeAt(i) !== QUOTE) return null;
      const close = text.indexOf('"', i + 1);
      // A top-level key with an escape could spell a wanted name: left to JSON.parse.
      if (close < 0 || nextBackslash < close) return null;
      const wanted = nameAt(text, i + 1, close, names);
      if (text.charCodeAt(close + 1) !== COLON) return null;
      const start = close + 2;
      const reader = wanted < 0 ? undefined : readers[wanted];
      const end = reader ? reader(text, start) : endOfValue(start, 0);
      if (end < 0) return null;
      if (wanted >= 0) {
        if (spans[wanted] !== null) return null; // a duplicate: JSON.parse would take the last
        spans[wanted] = { start, end };
      }
      if (reader) nextBackslash = indexOrEnd(text, '\\', end);
      const separator = text.charCodeAt(end);
      if (separator === CLOSE_OBJECT) return end + 1 === text.length ? spans : null;
      if (separator !== COMMA) return null;
      i = end + 1;
    }
  } finally {
    scanned = '';
  }
}

/**
 * The text being scanned, and the index of its next backslash at or after the scan (its length if
 * none): a string that ends before it holds no escape, so indexOf finds its end.
 */
let scanned = '';
let nextBackslash = 0;

/*
 * The value readers below descend one function per kind of value (recursive descent), each returning
 * the index just after what it read, or -1 when the text is not in the form the scanner reads.
 * `depth` counts the containers open inside the member's value.
 */

/** The index just after the value that starts at `start`, or -1. */
function endOfValue(start: number, depth: number): number {
  const text = scanned;
  const c = text.charCodeAt(start);
  if (c === QUOTE) return endOfString(start);
  if (c === OPEN_OBJECT) return depth < MAX_DEPTH ? endOfObject(start, depth + 1) : -1;
  if (c === OPEN_ARRAY) return depth < MAX_DEPTH ? endOfArray(start, depth + 1) : -1;
  return endOfScalar(text, start, c);
}

function endOfObject(start: number, depth: number): number {
  const text = scanned;
  let i = start + 1;
  if (text.charCodeAt(i) === CLOSE_OBJECT) return i + 1;
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return -1;
    i = endOfString(i);
    if (i < 0 || text.charCodeAt(i) !== COLON) return -1;
    i = endOfValue(i + 1, depth);
    if (i < 0) return -1;
    const separator = text.charCodeAt(i);
    if (separator === CLOSE_OBJECT) return i + 1;
    if (separator !== COMMA) return -1;
    i++;
  }
}

function endOfArray(start: number, depth: number): number {
  const text = scanned;
  let i = start + 1;
  if (text.charCodeAt(i) === CLOSE_ARRAY) return i + 1;
  for (;;) {
    i = endOfValue(i, depth);
    if (i < 0) return -1;
    const separator = text.charCodeAt(i);
    if (separator === CLOSE_ARRAY) return i + 1;
    if (separator !== COMMA) return -1;
    i++;
  }
}

/** The index just after the string whose opening quote is at `i`, or -1. */
function endOfString(i: number): number {
  const close = scanned.indexOf('"', i + 1);
  if (close < 0) return -1;
  if (close < nextBackslash) return close + 1;
  const end = endOfEscapedString(scanned, i + 1);
  if (end < 0) return -1;
  nextBackslash = indexOrEnd(scanned, '\\', end);
  return end + 1;
}

/** The index in `names` of the key text.slice(start, end), or -1; without slicing it out. */
function nameAt(text: string, start: number, end: number, names: readonly string[]): number {
  for (let k = 0; k < names.length; k++) {
    const name = names[k]!;
    if (name.length === end - start && text.startsWith(name, start)) return k;
  }
  return -1;
}

function indexOrEnd(text: string, search: string, from: number): number {
  const at = text.indexOf(search, from);
  return at < 0 ? text.length : at;
}

/** The index of the closing quote of a string with escapes, each of which must be valid; -1 if none. */
function endOfEscapedString(text: string, from: number): number {
  for (let k = from; k < text.length; ) {
    const c = text.charCodeAt(k);
    if (c === QUOTE) return k;
    if (c < 0x20) return -1;
    if (c !== BACKSLASH) {
      k++;
      continue;
    }
    const letter = text.charAt(k + 1);
    if (letter === 'u') {
      for (let h = k + 2; h < k + 6; h++) if (!isHexDigit(text.charCodeAt(h))) return -1;
      k += 6;
    } else if (letter.length === 1 && '"\\/bfnrt'.includes(letter)) k += 2;
    else return -1;
  }
  return -1;
}

function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** The end of the number or literal starting at `i`, or -1 when there is none there. */
function endOfScalar(text: string, i: number, c: number): number {
  if (c === 0x74 /* t */) return text.startsWith('true', i) ? i + 4 : -1;
  if (c === 0x66 /* f */) return text.startsWith('false', i) ? i + 5 : -1;
  if (c === 0x6e /* n */) return text.startsWith('null', i) ? i + 4 : -1;
  return endOfNumber(text, i);
}

/** The end of the JSON number (RFC 8259 §6) starting at `i`, or -1 when there is none there. */
export function endOfNumber(text: string, i: number): number {
  if (text.charCodeAt(i) === 0x2d /* - */) i++;
  if (text.charCodeAt(i) === 0x30 /* 0 */) i++;
  else if (isDigit(text.charCodeAt(i))) i = endOfDigits(text, i);
  else return -1;
  if (text.charCodeAt(i) === 0x2e /* . */) {
    if (!isDigit(text.charCodeAt(i + 1))) return -1;
    i = endOfDigits(text, i + 1);
  }
  const e = text.charCodeAt(i);
  if (e === 0x65 /* e */ || e === 0x45 /* E */) {
    i++;
    const sign = text.charCodeAt(i);
    if (sign === 0x2b /* + */ || sign === 0x2d /* - */) i++;
    if (!isDigit(text.charCodeAt(i))) return -1;
    i = endOfDigits(text, i);
  }
  return i;
}

function endOfDigits(text: string, i: number): number {
  while (isDigit(text.charCodeAt(i))) i++;
  return i;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
