/**
 * Regular expressions that owners write (G1 `must_not` rules) matched in time linear in the text: a
 * Pike virtual machine over a compiled program (Thompson's construction), case-insensitive, searching
 * anywhere in the text. JavaScript's own engine backtracks, so one careless or hostile rule such as
 * `/(a+)+$/` could stall the process on a crafted message; this one cannot (time is at most text length
 * × program size, and programs are capped).
 *
 * The dialect is JavaScript's without what needs backtracking: literals and escapes (`\d \w \s \b`
 * and their negations, `\n \t \xHH \uHHHH`, escaped punctuation), `.`, classes `[a-z…]` and `[^…]`,
 * groups `(…)` `(?:…)` `(?<name>…)`, alternation, quantifiers `* + ? {n} {n,} {n,m}` (lazy forms
 * accepted: only whether it matches counts), anchors `^ $`. Back-references and look-arounds are
 * refused with the reason.
 */

export interface LinearRegex {
  /** Whether the pattern matches anywhere in the text, ignoring case. */
  test(text: string): boolean;
  /** The same for a text already lower-cased (`text.toLowerCase()`), so several rules share one copy. */
  testLowerCase(lower: string): boolean;
}

export type LinearRegexResult = { ok: true; regex: LinearRegex } | { ok: false; problem: string };

/** Instructions of a compiled program: beyond this a pattern is refused (it would be slow, not wrong). */
export const MAX_PROGRAM_SIZE = 4000;

export function compileLinearRegex(source: string): LinearRegexResult {
  try {
    const parser = new Parser(source);
    const node = parser.parse();
    const program = new Compiler().compile(node);
    return { ok: true, regex: new PikeVm(program, requiredLiteral(node)) };
  } catch (error) {
    if (error instanceof PatternError) return { ok: false, problem: error.message };
    throw error;
  }
}

class PatternError extends Error {}

// ------------------------------------------------------------------------------------------ syntax tree

type ClassItem = readonly [number, number];

interface CharClass {
  ranges: ClassItem[];
  negated: boolean;
}

type Node =
  | { t: 'char'; code: number }
  | { t: 'any' }
  | { t: 'class'; set: CharClass }
  | { t: 'assert'; kind: 'start' | 'end' | 'word' | 'not_word' }
  | { t: 'cat'; items: Node[] }
  | { t: 'alt'; alternatives: Node[] }
  | { t: 'repeat'; node: Node; min: number; max: number };

const DIGIT: ClassItem[] = [[48, 57]];
const WORD: ClassItem[] = [
  [48, 57],
  [65, 90],
  [95, 95],
  [97, 122],
];
const SPACE: ClassItem[] = [
  [9, 13],
  [32, 32],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const MAX_REPEAT = 1000;

class Parser {
  private at = 0;

  constructor(private readonly source: string) {}

  parse(): Node {
    const node = this.alternation();
    if (this.at < this.source.length) throw new PatternError(`unmatched ")" at position ${this.at + 1}`);
    return node;
  }

  private alternation(): Node {
    const alternatives = [this.sequence()];
    while (this.peek() === '|') {
      this.at += 1;
      alternatives.push(this.sequence());
    }
    return alternatives.length === 1 ? alternatives[0]! : { t: 'alt', alternatives };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.at < this.source.length && this.peek() !== '|' && this.peek() !== ')') {
      items.push(this.repeated(this.atom()));
    }
    return items.length === 1 ? items[0]! : { t: 'cat', items };
  }

  private repeated(node: Node): Node {
    let min: number;
    let max: number;
    const char = this.peek();
    if (char === '*') [min, max] = [0, Number.POSITIVE_INFINITY];
    else if (char === '+') [min, max] = [1, Number.POSITIVE_INFINITY];
    else if (char === '?') [min, max] = [0, 1];
    else if (char === '{' && /^\{\d+(?:,\d*)?\}/.test(this.source.slice(this.at))) {
      const [, low, comma, high] = /^\{(\d+)(,?)(\d*)\}/.exec(this.source.slice(this.at))!;
      min = Number(low);
      max = comma === '' ? min : high === '' ? Number.POSITIVE_INFINITY : Number(high);
      if (max < min) throw new PatternError(`the quantifier {${low},${high}} has its numbers out of order`);
      if (min > MAX_REPEAT || (Number.isFinite(max) && max > MAX_REPEAT))
        throw new PatternError(`a quantifier may repeat at most ${MAX_REPEAT} times`);
      this.at += low!.length + comma!.length + high!.length + 1;
    } else return node;
    this.at += 1;
    if (node.t === 'assert') throw new PatternError('an anchor or word boundary cannot be repeated');
    if (this.peek() === '?') this.at += 1;
    const after = this.peek();
    if (after === '*' || after === '+' || after === '?')
      throw new PatternError(`nothing to repeat at position ${this.at + 1}`);
    return { t: 'repeat', node, min, max };
  }

  private atom(): Node {
    const char = this.source[this.at]!;
    this.at += 1;
    switch (char) {
      case '.':
        return { t: 'any' };
      case '^':
        return { t: 'assert', kind: 'start' };
      case '$':
        return { t: 'assert', kind: 'end' };
      case '(':
        return this.group();
      case '[':
        return { t: 'class', set: this.characterClass() };
      case '\\':
        return this.escape();
      case '*':
      case '+':
      case '?':
        throw new PatternError(`nothing to repeat at position ${this.at}`);
      default:
        return { t: 'char', code: char.charCodeAt(0) };
    }
  }

  private group(): Node {
    if (this.source.startsWith('?:', this.at)) this.at += 2;
    else if (/^\?<[A-Za-z_$][\w$]*>/.test(this.source.slice(this.at)))
      this.at = this.source.indexOf('>', this.at) + 1;
    else if (this.peek() === '?') throw new PatternError('look-ahead and look-behind are not supported');
    const node = this.alternation();
    if (this.peek() !== ')') throw new PatternError('a group is not closed with ")"');
    this.at += 1;
    return node;
  }

  private escape(): Node {
    const char = this.source[this.at];
    if (char === undefined) throw new PatternError('the pattern ends with a lone "\\"');
    this.at += 1;
    switch (char) {
      case 'b':
        return { t: 'assert', kind: 'word' };
      case 'B':
        return { t: 'assert', kind: 'not_word' };
      case 'k':
        throw new PatternError('back-references are not supported');
      default: {
        if (/[1-9]/.test(char)) throw new PatternError('back-references are not supported');
        const set = this.predefined(char);
        if (set) return { t: 'class', set };
        return { t: 'char', code: this.escapedCode(char) };
      }
    }
  }

  /** `\d \w \s` and their negations, or null. */
  private predefined(char: string): CharClass | null {
    const lower = char.toLowerCase();
    const ranges = lower === 'd' ? DIGIT : lower === 'w' ? WORD : lower === 's' ? SPACE : null;
    return ranges ? { ranges, negated: char !== lower } : null;
  }

  /** The character an escape stands for (`\n`, `\x41`, `\u0041`, `\.`…), after its letter was read. */
  private escapedCode(char: string): number {
    const simple: Record<string, number> = { n: 10, r: 13, t: 9, f: 12, v: 11, '0': 0 };
    if (char in simple) return simple[char]!;
    if (char === 'x' || char === 'u') {
      const length = char === 'x' ? 2 : 4;
      const digits = this.source.slice(this.at, this.at + length);
      if (!new RegExp(`^[0-9A-Fa-f]{${length}}$`).test(digits))
        throw new PatternError(`\\${char} needs ${length} hex digits`);
      this.at += length;
      return Number.parseInt(digits, 16);
    }
    if (/[A-Za-z]/.test(char)) throw new PatternError(`\\${char} is not a supported escape`);
    return char.charCodeAt(0);
  }

  private characterClass(): CharClass {
    const set: CharClass = { ranges: [], negated: false };
    if (this.peek() === '^') {
      set.negated = true;
      this.at += 1;
    }
    let first = true;
    while (this.peek() !== ']' || first) {
      if (this.at >= this.source.length) throw new PatternError('a character class is not closed with "]"');
      first = false;
      const low = this.classAtom(set);
      if (low === null) continue;
      if (this.peek() === '-' && this.source[this.at + 1] !== ']' && this.at + 1 < this.source.length) {
        this.at += 1;
        const high = this.classAtom(set);
        if (high === null) throw new PatternError('a range in a character class ends with a class escape');
        if (high < low) throw new PatternError('a range in a character class is out of order');
        set.ranges.push([low, high]);
      } else set.ranges.push([low, low]);
    }
    this.at += 1;
    return set;
  }

  /** One character of a class, or null when it was `\d`, `\w` or `\s` (added to the set here). */
  private classAtom(set: CharClass): number | null {
    const char = this.source[this.at]!;
    this.at += 1;
    if (char !== '\\') return char.charCodeAt(0);
    const escaped = this.source[this.at];
    if (escaped === undefined) throw new PatternError('the pattern ends with a lone "\\"');
    this.at += 1;
    if (escaped === 'b') return 8;
    const predefined = this.predefined(escaped);
    if (predefined === null) return this.escapedCode(escaped);
    if (predefined.negated) throw new PatternError(`\\${escaped} inside a character class is not supported`);
    set.ranges.push(...predefined.ranges);
    return null;
  }

  private peek(): string | undefined {
    return this.source[this.at];
  }
}

// ------------------------------------------------------------------------------------------- program

/** Instruction codes: consume a character (Char, Any, Class), branch (Split, Jump), assert, or accept. */
const Op = {
  Char: 0,
  Any: 1,
  Class: 2,
  Split: 3,
  Jump: 4,
  Start: 5,
  End: 6,
  Word: 7,
  NotWord: 8,
  Match: 9,
} as const;
type Op = (typeof Op)[keyof typeof Op];

interface Instruction {
  op: Op;
  /** Char: the code; Split and Jump: the first target. */
  x: number;
  /** Split: the second target. */
  y: number;
  set?: CharClass;
}

class Compiler {
  private readonly program: Instruction[] = [];

  compile(node: Node): Instruction[] {
    this.emit(node);
    this.push({ op: Op.Match, x: 0, y: 0 });
    return this.program;
  }

  private push(instruction: Instruction): number {
    if (this.program.length >= MAX_PROGRAM_SIZE)
      throw new PatternError('the pattern is too large once its repetitions are spelled out');
    this.program.push(instruction);
    return this.program.length - 1;
  }

  private emit(node: Node): void {
    switch (node.t) {
      case 'char':
        this.push({ op: Op.Char, x: foldCase(node.code), y: 0 });
        return;
      case 'any':
        this.push({ op: Op.Any, x: 0, y: 0 });
        return;
      case 'class':
        this.push({ op: Op.Class, x: 0, y: 0, set: node.set });
        return;
      case 'assert': {
        const op = { start: Op.Start, end: Op.End, word: Op.Word, not_word: Op.NotWord }[node.kind];
        this.push({ op, x: 0, y: 0 });
        return;
      }
      case 'cat':
        for (const item of node.items) this.emit(item);
        return;
      case 'alt':
        this.alternatives(node.alternatives);
        return;
      case 'repeat':
        this.repeat(node.node, node.min, node.max);
        return;
    }
  }

  private alternatives(alternatives: readonly Node[]): void {
    const jumps: number[] = [];
    for (let i = 0; i < alternatives.length - 1; i++) {
      const split = this.push({ op: Op.Split, x: 0, y: 0 });
      this.program[split]!.x = this.program.length;
      this.emit(alternatives[i]!);
      jumps.push(this.push({ op: Op.Jump, x: 0, y: 0 }));
      this.program[split]!.y = this.program.length;
    }
    this.emit(alternatives[alternatives.length - 1]!);
    for (const jump of jumps) this.program[jump]!.x = this.program.length;
  }

  private repeat(node: Node, min: number, max: number): void {
    for (let i = 0; i < min; i++) this.emit(node);
    if (max === Number.POSITIVE_INFINITY) {
      const split = this.push({ op: Op.Split, x: 0, y: 0 });
      this.program[split]!.x = this.program.length;
      this.emit(node);
      this.push({ op: Op.Jump, x: split, y: 0 });
      this.program[split]!.y = this.program.length;
      return;
    }
    const splits: number[] = [];
    for (let i = min; i < max; i++) {
      const split = this.push({ op: Op.Split, x: 0, y: 0 });
      this.program[split]!.x = this.program.length;
      splits.push(split);
      this.emit(node);
    }
    for (const split of splits) this.program[split]!.y = this.program.length;
  }
}

/**
 * The longest run of plain characters in the pattern's top-level sequence (`wire` in `wire\s+transfer`),
 * lower-cased; empty when there is none (an alternation at the top, a pattern of classes).
 */
function requiredLiteral(node: Node): string {
  const items = node.t === 'cat' ? node.items : [node];
  let best = '';
  let run = '';
  for (const item of items) {
    if (item.t === 'char') {
      run += String.fromCharCode(foldCase(item.code));
      if (run.length > best.length) best = run;
    } else run = '';
  }
  return best;
}

/** Lower case for one UTF-16 unit when that is one unit too (the text is folded the same way). */
function foldCase(code: number): number {
  const lower = String.fromCharCode(code).toLowerCase();
  return lower.length === 1 ? lower.charCodeAt(0) : code;
}

function inRanges(ranges: readonly ClassItem[], code: number): boolean {
  for (const [low, high] of ranges) if (code >= low && code <= high) return true;
  return false;
}

function classMatches(set: CharClass, code: number): boolean {
  // The text is lower case; a class written in capitals (`[A-Z]`) must still match it.
  const upper = String.fromCharCode(code).toUpperCase();
  const other = upper.length === 1 ? upper.charCodeAt(0) : code;
  const hit = inRanges(set.ranges, code) || inRanges(set.ranges, other);
  return hit !== set.negated;
}

function isWordCode(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || code === 95 || (code >= 97 && code <= 122)
  );
}

function isLineTerminator(code: number): boolean {
  return code === 10 || code === 13 || code === 0x2028 || code === 0x2029;
}

/**
 * The simulation: every thread of the program advances one character at a time; a thread is an
 * instruction index, and each index is held once per step, so a step costs at most the program's size.
 */
class PikeVm implements LinearRegex {
  private readonly size: number;
  private current: Int32Array;
  private next: Int32Array;
  /** Per instruction, the step (text position + 1) it was last added in: the dedupe without clearing. */
  private readonly seen: Int32Array;
  private readonly stack: Int32Array;

  constructor(
    private readonly program: readonly Instruction[],
    /** A lower-case string every match contains: a text without it cannot match (a cheap first test). */
    private readonly literal: string,
  ) {
    this.size = program.length;
    this.current = new Int32Array(this.size);
    this.next = new Int32Array(this.size);
    this.seen = new Int32Array(this.size);
    this.stack = new Int32Array(this.size * 2 + 2);
  }

  test(text: string): boolean {
    return this.testLowerCase(text.toLowerCase());
  }

  testLowerCase(text: string): boolean {
    if (this.literal !== '' && !text.includes(this.literal)) return false;
    this.seen.fill(0);
    let count = 0;
    for (let at = 0; at <= text.length; at++) {
      // Unanchored search: a new thread starts at every position.
      count = this.add(this.current, count, 0, text, at);
      if (count < 0) return true;
      const code = at < text.length ? text.charCodeAt(at) : -1;
      let nextCount = 0;
      for (let i = 0; i < count; i++) {
        const pc = this.current[i]!;
        const instruction = this.program[pc]!;
        if (code < 0) continue;
        let advances = false;
        if (instruction.op === Op.Char) advances = instruction.x === code;
        else if (instruction.op === Op.Any) advances = !isLineTerminator(code);
        else if (instruction.op === Op.Class) advances = classMatches(instruction.set!, code);
        if (advances) {
          nextCount = this.add(this.next, nextCount, pc + 1, text, at + 1);
          if (nextCount < 0) return true;
        }
      }
      [this.current, this.next] = [this.next, this.current];
      count = nextCount;
    }
    return false;
  }

  /**
   * Adds the thread at `start` to `list` for text position `at`, following jumps, splits and assertions;
   * returns the new length, or -1 when a thread reached the match.
   */
  private add(list: Int32Array, length: number, start: number, text: string, at: number): number {
    const step = at + 1;
    let top = 0;
    this.stack[top++] = start;
    let count = length;
    while (top > 0) {
      const pc = this.stack[--top]!;
      if (this.seen[pc] === step) continue;
      this.seen[pc] = step;
      const instruction = this.program[pc]!;
      switch (instruction.op) {
        case Op.Match:
          return -1;
        case Op.Jump:
          this.stack[top++] = instruction.x;
          break;
        case Op.Split:
          // Pushed in reverse so the first branch is explored first (it does not change the answer).
          this.stack[top++] = instruction.y;
          this.stack[top++] = instruction.x;
          break;
        case Op.Start:
          if (at === 0) this.stack[top++] = pc + 1;
          break;
        case Op.End:
          if (at === text.length) this.stack[top++] = pc + 1;
          break;
        case Op.Word:
        case Op.NotWord: {
          const before = at > 0 && isWordCode(text.charCodeAt(at - 1));
          const after = at < text.length && isWordCode(text.charCodeAt(at));
          if ((before !== after) === (instruction.op === Op.Word)) this.stack[top++] = pc + 1;
          break;
        }
        default:
          list[count++] = pc;
      }
    }
    return count;
  }
}
