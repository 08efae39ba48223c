/**
 * The log audit's fast path for admissions: an intact event gets its leaf hash straight from its
 * stored text; any other event falls back to parsing, and the log audit's verdict (findings and leaf
 * hash) is always the one parsing the whole event gives.
 */
import fc from 'fast-check';
import { leafHashOfRecord } from '../domain/log';
import type { EvidenceAdmitted } from '../event-schemas';
import { toHex } from '../merkle-core';
import type { RecordedEvent } from '../ports/event-store';
import { LEAF_RECORD_MEMBER } from '../projectors/log/log-sequencer';
import { checkEvent } from './event-checks';
import { type RawEventRow, rawRowOf } from './event-facts';
import { checkLogEvent, type LogEventRow } from './log-checks';
import { intactLeafHash } from './stored-leaf';
import { SyntheticLog } from './synthetic-log';
import { type PreparedTrust, prepareTrust } from './trust';

type AdmissionType = keyof typeof LEAF_RECORD_MEMBER;

let admissions: RecordedEvent[];
let trust: PreparedTrust;

beforeAll(async () => {
  const log = new SyntheticLog();
  const evidence = await log.admitEvidence('tnt_a', 'model-1', { H: 0.6, C: 0.55, E: 0.4 });
  const [execution, variance] = log.execute(evidence, 'DEVIATED');
  admissions = [evidence, execution, variance];
  trust = prepareTrust(log.trust);
});

const evidence = () => admissions[0] as RecordedEvent<EvidenceAdmitted>;
/** The event's data as the event store stores it. */
const stored = (event: RecordedEvent) => JSON.stringify(event.data);
const rowOf = (event: RecordedEvent, data: string): LogEventRow => [
  event.position,
  event.id,
  event.stream,
  event.revision,
  event.type,
  data,
];

/** The log audit's verdict on `data` stored as `event`: its check codes and leaf hash. */
async function verdictOf(event: RecordedEvent, data: string) {
  const { facts, findings } = await checkLogEvent(rowOf(event, data), trust);
  const hash = facts.leaf?.hash;
  return { checks: findings.map((f) => f.check), leaf: hash ? toHex(hash) : null };
}

/** The same verdict by the definition: parse it all, hash the record, compare the stored leaf_hash. */
function parsedVerdict(type: AdmissionType, data: string) {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(data);
  } catch {
    return { checks: ['json-invalid'], leaf: null };
  }
  const record = parsed?.[LEAF_RECORD_MEMBER[type]];
  if (record === null || typeof record !== 'object') return { checks: ['event-schema'], leaf: null };
  let leaf: string;
  try {
    leaf = toHex(leafHashOfRecord(record));
  } catch {
    // A record canonical JSON cannot express (a number out of range, such as 0.2e4521, reads as
    // Infinity) does not follow the event's schema either.
    return { checks: ['event-schema'], leaf: null };
  }
  return { checks: parsed.leaf_hash === leaf ? [] : ['leaf-hash-mismatch'], leaf };
}

/** Replaces the first occurrence of `from` in `text`, which must occur. */
function replaced(text: string, from: string, to: string): string {
  expect(text).toContain(from);
  return text.replace(from, to);
}

describe("the log audit's fast path for admissions", () => {
  it('given each admission type as the service stores it, then its leaf hash comes from the text unparsed, and is its stored leaf_hash', async () => {
    for (const event of admissions) {
      const type = event.type as AdmissionType;
      const hash = intactLeafHash(type, stored(event));
      expect(hash).not.toBeNull();
      expect(hash).toBe((event.data as { leaf_hash: string }).leaf_hash);
      expect(await verdictOf(event, stored(event))).toEqual({ checks: [], leaf: hash });
    }
  });

  it('given an envelope with characters beyond ASCII (its stored leaf_hash computed by the service), then the fast path hashes their UTF-8 bytes and finds the leaf intact', async () => {
    const envelope = { ...evidence().data.envelope, payload_uri: 'https://exämple.org/π/😀' };
    const data = JSON.stringify({
      ...evidence().data,
      envelope,
      leaf_hash: toHex(leafHashOfRecord(envelope)),
    });
    expect(intactLeafHash('EvidenceAdmitted', data)).toBe(toHex(leafHashOfRecord(envelope)));
    expect(await verdictOf(evidence(), data)).toEqual(parsedVerdict('EvidenceAdmitted', data));
  });

  it('given one character of the envelope changed, then the fast path gives up and the leaf hash mismatch is reported with the tampered leaf', async () => {
    const data = replaced(stored(evidence()), '"authority_signature":"', '"authority_signature":"x');
    expect(intactLeafHash('EvidenceAdmitted', data)).toBeNull();
    const verdict = await verdictOf(evidence(), data);
    expect(verdict).toEqual(parsedVerdict('EvidenceAdmitted', data));
    expect(verdict.checks).toEqual(['leaf-hash-mismatch']);
    expect(verdict.leaf).not.toBe(evidence().data.leaf_hash);
  });

  it('given the stored leaf_hash changed, then the fast path gives up and the mismatch is reported with the true leaf', async () => {
    const { leaf_hash } = evidence().data;
    const data = replaced(
      stored(evidence()),
      leaf_hash,
      `${leaf_hash.slice(0, -1)}${leaf_hash.endsWith('0') ? '1' : '0'}`,
    );
    expect(intactLeafHash('EvidenceAdmitted', data)).toBeNull();
    expect(await verdictOf(evidence(), data)).toEqual({ checks: ['leaf-hash-mismatch'], leaf: leaf_hash });
  });

  it('given the envelope stored equal but not as the store writes it (whitespace, an escaped character, members reordered), then the fast path gives up and parsing finds it intact', async () => {
    const data = stored(evidence());
    const envelope = JSON.stringify(evidence().data.envelope);
    const respelled = [
      replaced(data, '"envelope":{', '"envelope": {'),
      replaced(data, '"envelope":{"type":"', '"envelope":{"\\u0074ype":"'),
      replaced(
        data,
        envelope,
        JSON.stringify(Object.fromEntries(Object.entries(evidence().data.envelope).reverse())),
      ),
    ];
    for (const text of respelled) {
      const fast = intactLeafHash('EvidenceAdmitted', text);
      // Members reordered are still canonical after ordering: the fast path may take that one.
      if (fast) expect(fast).toBe(evidence().data.leaf_hash);
      expect(await verdictOf(evidence(), text)).toEqual({ checks: [], leaf: evidence().data.leaf_hash });
    }
    expect(intactLeafHash('EvidenceAdmitted', respelled[0]!)).toBeNull();
    expect(intactLeafHash('EvidenceAdmitted', respelled[1]!)).toBeNull();
  });

  it('given a second, altered envelope after the first (JSON.parse reads the last), then the fast path gives up and the altered one is reported', async () => {
    const data = stored(evidence());
    const altered = { ...evidence().data.envelope, payload_uri: 'https://elsewhere.example/' };
    const text = `${data.slice(0, -1)},"envelope":${JSON.stringify(altered)}}`;
    expect(intactLeafHash('EvidenceAdmitted', text)).toBeNull();
    expect(await verdictOf(evidence(), text)).toEqual({
      checks: ['leaf-hash-mismatch'],
      leaf: toHex(leafHashOfRecord(altered)),
    });
  });

  it('given the intact envelope copied into the bundle as a decoy and the real one altered, then the real one is hashed and reported', async () => {
    const data = evidence().data;
    const altered = { ...data.envelope, payload_uri: 'https://elsewhere.example/' };
    const text = JSON.stringify({
      ...data,
      bundle: { ...data.bundle, envelope: data.envelope },
      envelope: altered,
    });
    expect(await verdictOf(evidence(), text)).toEqual({
      checks: ['leaf-hash-mismatch'],
      leaf: toHex(leafHashOfRecord(altered)),
    });
  });

  it('given data that is not JSON (a brace lost, a raw control character in the envelope), then the fast path gives up and it is reported unreadable', async () => {
    const data = stored(evidence());
    for (const text of [
      replaced(data, '{', '#'),
      replaced(data, '"payload_uri":"', '"payload_uri":"\u0001'),
    ]) {
      expect(intactLeafHash('EvidenceAdmitted', text)).toBeNull();
      expect(await verdictOf(evidence(), text)).toEqual({ checks: ['json-invalid'], leaf: null });
    }
  });

  it('given a raw control character in a string outside the leaf record (the bundle), then the log audit, which reads the record, finds the leaf intact; the full audit reports the data unreadable', async () => {
    const text = replaced(stored(evidence()), '"replay_seed":"', '"replay_seed":"\u0001');
    expect(parsedVerdict('EvidenceAdmitted', text).checks).toEqual(['json-invalid']);
    expect(await verdictOf(evidence(), text)).toEqual({ checks: [], leaf: evidence().data.leaf_hash });
    const full = await checkEvent([...rawRowOf(evidence()).slice(0, 10), text] as RawEventRow, trust);
    expect(full.findings.map((f) => f.check)).toContain('json-invalid');
  });

  it('given any admission with characters replaced, inserted or deleted anywhere, then the verdict is the one parsing the whole event gives', async () => {
    // No control characters: outside the record they are the one difference (see the test above).
    const edit = fc.record({
      at: fc.nat(),
      kind: fc.constantFrom('replace', 'insert', 'delete'),
      char: fc.constantFrom(...'"\\{}[],: 0-.e1abfntu/'.split('')),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 2 }),
        fc.array(edit, { minLength: 1, maxLength: 2 }),
        async (which, edits) => {
          const event = admissions[which]!;
          const text = edits.reduce((data, { at, kind, char }) => {
            const i = at % data.length;
            return (
              data.slice(0, i) + (kind === 'delete' ? '' : char) + data.slice(kind === 'insert' ? i : i + 1)
            );
          }, stored(event));
          expect(await verdictOf(event, text)).toEqual(parsedVerdict(event.type as AdmissionType, text));
        },
      ),
      { numRuns: 1500 },
    );
  });
});
