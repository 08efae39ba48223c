/**
 * Finding top-level members in JSON text without parsing it: what the scanner accepts, JSON.parse
 * accepts too, and the member it finds is the one JSON.parse gives; on anything else it gives up
 * (null), never guesses.
 */
import fc from 'fast-check';
import { CONTROL_CHARACTER, endOfNumber, topLevelMembers } from './json-members';

/** The members JSON.parse finds, for comparison with the scanner's spans. */
function parsedMembers(text: string, names: readonly string[]): unknown[] {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  return names.map((name) => (Object.hasOwn(parsed, name) ? parsed[name] : undefined));
}

function scannedMembers(text: string, names: readonly string[]): unknown[] | null {
  const spans = topLevelMembers(text, names);
  return spans
    ? spans.map((span) => (span ? JSON.parse(text.slice(span.start, span.end)) : undefined))
    : null;
}

/** Characters that matter to JSON, and a few that do not. */
const edits = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('replace', 'insert', 'delete'),
  char: fc.constantFrom(...'"\\{}[],: \t\n0123-.eE+tfnulx/\u0001\u001f\u00e9'.split('')),
});

function edited(text: string, { at, kind, char }: { at: number; kind: string; char: string }): string {
  const i = at % text.length;
  if (kind === 'delete') return text.slice(0, i) + text.slice(i + 1);
  return text.slice(0, i) + char + text.slice(kind === 'replace' ? i + 1 : i);
}

const CONTROL_CHARACTERS = new RegExp(CONTROL_CHARACTER.source, 'g');

const objects = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });

describe('finding top-level members in JSON text', () => {
  it('given any object as JSON.stringify writes it, then each named member is found where JSON.parse finds it (null only for a top-level key with an escape)', () => {
    fc.assert(
      fc.property(objects, fc.string({ maxLength: 6 }), (object, absent) => {
        const text = JSON.stringify(object);
        const names = [...new Set([...Object.keys(object).slice(0, 2), absent])];
        const escapedKey = Object.keys(object).some((key) => JSON.stringify(key).includes('\\'));
        const scanned = scannedMembers(text, names);
        if (escapedKey) expect(scanned).toBeNull();
        else expect(scanned).toEqual(parsedMembers(text, names));
      }),
      { numRuns: 1500 },
    );
  });

  it('given such a text with characters replaced, inserted or deleted, when the scanner accepts it, then JSON.parse accepts it and finds the same members (once any raw control character in a string is made printable)', () => {
    fc.assert(
      fc.property(objects, fc.array(edits, { minLength: 1, maxLength: 3 }), (object, changes) => {
        const text = changes.reduce(edited, JSON.stringify({ ...object, record: { a: [1, 'x'] } }));
        const names = ['record', ...Object.keys(object).slice(0, 1)];
        const spans = topLevelMembers(text, names);
        if (spans === null) return;
        // The one thing the scanner does not look for; one character for one, so the spans stay put,
        // and one no name is spelled with (a private-use character), so a key keeps its identity.
        const printable = text.replace(CONTROL_CHARACTERS, (c) =>
          String.fromCharCode(0xe000 + c.charCodeAt(0)),
        );
        const scanned = spans.map((span) =>
          span ? JSON.parse(printable.slice(span.start, span.end)) : undefined,
        );
        expect(scanned).toEqual(parsedMembers(printable, names));
      }),
      { numRuns: 4000 },
    );
  });

  it('given a member of that name nested deeper (a decoy), then the top-level one is found', () => {
    const text = JSON.stringify({
      bundle: { record: 'decoy', list: [{ record: 1 }] },
      record: { real: true },
    });
    expect(scannedMembers(text, ['record'])).toEqual([{ real: true }]);
  });

  it('given texts JSON.parse reads but the scanner does not (a repeated member, an escaped key, whitespace, not an object), then it gives up', () => {
    for (const text of [
      '{"record":{"a":1},"record":{"a":2}}',
      '{"rec\\u006frd":{"a":2}}',
      '{"record": {"a":1}}',
      '{ "record":{"a":1}}',
      '{"record":{"a":1}}\n',
      '{"record":{"a":1},\t"b":2}',
      '[]',
    ]) {
      expect(() => JSON.parse(text)).not.toThrow();
      expect(topLevelMembers(text, ['record'])).toBeNull();
    }
  });

  it('given a raw control character inside a string (which JSON.parse rejects), then the members are still found where they are: callers that need the whole text to be JSON test it for CONTROL_CHARACTER', () => {
    const text = '{"note":"tab\there","record":{"a":1}}';
    expect(() => JSON.parse(text)).toThrow();
    expect(CONTROL_CHARACTER.test(text)).toBe(true);
    expect(scannedMembers(text, ['record'])).toEqual([{ a: 1 }]);
  });

  it('given texts that are not JSON (unbalanced, misplaced or malformed tokens, whitespace or a control character between them), then it gives up', () => {
    for (const text of [
      '',
      '{"record":{"a":1},\u0001"b":2}',
      '{"record":{"a":1}',
      '{"record":{"a":1}}}',
      '{"record":{"a":1]}',
      '{"record":[1,2}}',
      '{"record":{"a":1,}}',
      '{"record":{"a" 1}}',
      '{"record":{"a":01}}',
      '{"record":{"a":1.}}',
      '{"record":{"a":tru}}',
      '{"record":{"a":"\\x"}}',
      '{"record":{"a":"open}}',
      '{"record":1,,"b":2}',
      '{record:1}',
    ]) {
      expect(() => JSON.parse(text)).toThrow();
      expect(topLevelMembers(text, ['record'])).toBeNull();
    }
  });

  it('given JSON numbers and non-numbers, then endOfNumber reads exactly the RFC 8259 ones', () => {
    const read = (text: string) => endOfNumber(`${text},`, 0);
    for (const number of ['0', '-0', '12', '-3.25', '1e5', '1E+5', '2.5e-3', '0.0'])
      expect(read(number)).toBe(number.length);
    for (const bad of ['-', '.5', '+1', '1.', '1e', '1e+', 'x']) expect(read(bad)).not.toBe(bad.length);
    expect(read('01')).toBe(1); // a leading zero ends the number: the next character is then out of place
  });
});
