import { ANY, NO_STREAM, START, STREAM_EXISTS } from '@eventstore/db-client';
import { WrongExpectedVersionError } from '../../ports/event-store';
import {
  connectionOptionProblem,
  decodeIdClaim,
  decodeMetadata,
  type EsdbRecord,
  encodeMetadata,
  eventIdOf,
  ForeignEventError,
  fromCurrentRevision,
  hidePassword,
  ID_CLAIM_EVENT_TYPE,
  idClaimStreamOf,
  isEventStoreDbUrl,
  isSystemEventType,
  numberToPosition,
  PositionOutOfRangeError,
  planFilter,
  positionToNumber,
  redactConnectionString,
  serializedSize,
  startOf,
  toAppendExpectedRevision,
  toRecordedEvent,
  toWrongExpectedVersion,
} from './mapping';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('expected revisions', () => {
  it("maps 'no-stream', 'any', 'exists' and a number to the client's NO_STREAM, ANY, STREAM_EXISTS and a bigint", () => {
    expect(toAppendExpectedRevision('no-stream')).toBe(NO_STREAM);
    expect(toAppendExpectedRevision('any')).toBe(ANY);
    expect(toAppendExpectedRevision('exists')).toBe(STREAM_EXISTS);
    expect(toAppendExpectedRevision(0)).toBe(0n);
    expect(toAppendExpectedRevision(41)).toBe(41n);
  });

  it('given a revision that is not an integer from 0, then a TypeError before anything is sent', () => {
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 60])
      expect(() => toAppendExpectedRevision(bad)).toThrow(TypeError);
  });

  it("maps the client's current revision (no_stream or a bigint) to the port's", () => {
    expect(fromCurrentRevision(NO_STREAM)).toBe('no-stream');
    expect(fromCurrentRevision(7n)).toBe(7);
  });

  it("turns the client's WrongExpectedVersionError into the port's, naming stream, expected and actual", () => {
    const error = toWrongExpectedVersion('merkle-log', 3, { actualVersion: 5n });
    expect(error).toBeInstanceOf(WrongExpectedVersionError);
    expect(error).toMatchObject({ stream: 'merkle-log', expected: 3, actual: 5 });
    expect(toWrongExpectedVersion('s', 'exists', { actualVersion: NO_STREAM }).actual).toBe('no-stream');
  });
});

describe('event metadata', () => {
  const newEvent = { type: 'A', data: {}, tenant_id: 't1', correlation_id: 'c1' };

  it('carries tenant, correlation, causation (null when omitted) and schema version (1 when omitted)', () => {
    expect(encodeMetadata(newEvent)).toEqual({
      tenant_id: 't1',
      correlation_id: 'c1',
      causation_id: null,
      schema_version: 1,
    });
    expect(encodeMetadata({ ...newEvent, causation_id: 'k1', schema_version: 3 })).toMatchObject({
      causation_id: 'k1',
      schema_version: 3,
    });
  });

  it('decodes what it encodes', () => {
    const metadata = encodeMetadata({ ...newEvent, causation_id: 'k1' });
    expect(decodeMetadata(JSON.parse(JSON.stringify(metadata)), 'event x')).toEqual(metadata);
  });

  it('given metadata another application wrote, then ForeignEventError naming the event and what is missing', () => {
    const cases: Array<[unknown, RegExp]> = [
      [undefined, /not a JSON object/],
      [new Uint8Array([1, 2]), /not a JSON object/],
      [{ correlation_id: 'c', causation_id: null, schema_version: 1 }, /no tenant_id/],
      [{ tenant_id: 't', causation_id: null, schema_version: 1 }, /no correlation_id/],
      [{ tenant_id: 't', correlation_id: 'c', schema_version: 1 }, /no causation_id/],
      [{ tenant_id: 't', correlation_id: 'c', causation_id: null, schema_version: 0 }, /no schema_version/],
    ];
    for (const [raw, reason] of cases) {
      const error = (() => {
        try {
          decodeMetadata(raw, 'event 42 in stream s');
        } catch (e) {
          return e as Error;
        }
        return null;
      })();
      expect(error).toBeInstanceOf(ForeignEventError);
      expect(error!.message).toMatch(reason);
      expect(error!.message).toMatch(/^event 42 in stream s was not written by this service/);
    }
  });

  it('counts data, metadata, type, stream and id in bytes (UTF-8) for the size limit', () => {
    expect(serializedSize('s', 'T', 'id', '"é"', '{}')).toBe(4 + 2 + 1 + 1 + 2);
  });
});

describe('positions', () => {
  it('a position is the commit position, as a number', () => {
    expect(positionToNumber({ commit: 1234n, prepare: 1234n })).toBe(1234);
    expect(numberToPosition(1234)).toEqual({ commit: 1234n, prepare: 1234n });
  });

  it('given a commit position past 2^53, then a clear error instead of a rounded number', () => {
    const huge = BigInt(Number.MAX_SAFE_INTEGER) + 1n;
    expect(() => positionToNumber({ commit: huge, prepare: huge })).toThrow(PositionOutOfRangeError);
    expect(() => positionToNumber({ commit: huge, prepare: huge })).toThrow(/2\^53/);
  });

  it('"after" null or 0 starts at the beginning of $all; a position starts at that event', () => {
    expect(startOf(null)).toBe(START);
    expect(startOf(undefined)).toBe(START);
    expect(startOf(0)).toBe(START);
    expect(startOf(512)).toEqual({ commit: 512n, prepare: 512n });
  });

  it('given a position that is not an integer from 0, then a TypeError', () => {
    for (const bad of [-1, 0.5, Number.NaN]) expect(() => startOf(bad)).toThrow(TypeError);
  });
});

describe('recorded events', () => {
  const record: EsdbRecord = {
    streamId: 'tenant-a/evidence',
    id: '0190a6b2-7c3e-7d52-9f1a-1b2c3d4e5f60',
    revision: 2n,
    type: 'EvidenceAdmitted',
    created: new Date('2025-01-02T03:04:05.678Z'),
    isJson: true,
    data: { n: 1 },
    metadata: { tenant_id: 't1', correlation_id: 'c1', causation_id: 'k1', schema_version: 2 },
    position: { commit: 9000n, prepare: 9000n },
  };

  it('map every field of the port, recorded_at being the ISO time EventStoreDB recorded', () => {
    expect(toRecordedEvent(record)).toEqual({
      id: record.id,
      type: 'EvidenceAdmitted',
      stream: 'tenant-a/evidence',
      revision: 2,
      position: 9000,
      recorded_at: '2025-01-02T03:04:05.678Z',
      tenant_id: 't1',
      correlation_id: 'c1',
      causation_id: 'k1',
      schema_version: 2,
      data: { n: 1 },
    });
  });

  it("given an event imported from another store, then its recorded_at is the one in its metadata, not the copy's created time", () => {
    const metadata = { ...(record.metadata as object), recorded_at: '2019-12-31T23:59:59.999Z' };
    expect(toRecordedEvent({ ...record, metadata }).recorded_at).toBe('2019-12-31T23:59:59.999Z');
    const imported = { type: 'A', data: {}, tenant_id: 't1', correlation_id: 'c1' };
    expect(decodeMetadata(encodeMetadata(imported, '2019-12-31T23:59:59.999Z'), 'x').recorded_at).toBe(
      '2019-12-31T23:59:59.999Z',
    );
    for (const bad of ['yesterday', 1577836799999, '2019-12-31 23:59:59Z'])
      expect(() => toRecordedEvent({ ...record, metadata: { ...metadata, recorded_at: bad } })).toThrow(
        /recorded_at that is not an ISO 8601 UTC time/,
      );
  });

  it('given an event without a position (a server older than 22.6), then an error naming the version needed', () => {
    expect(() => toRecordedEvent({ ...record, position: undefined })).toThrow(/22\.6/);
  });

  it('given binary data, then ForeignEventError', () => {
    expect(() => toRecordedEvent({ ...record, isJson: false, data: new Uint8Array() })).toThrow(
      ForeignEventError,
    );
  });
});

describe('event ids', () => {
  it('generates a UUID when omitted, and keeps a given UUID in lower case (as EventStoreDB returns it)', () => {
    const event = { type: 'A', data: {}, tenant_id: 't', correlation_id: 'c' };
    expect(eventIdOf(event)).toMatch(UUID);
    expect(eventIdOf({ ...event, id: 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE' })).toBe(
      'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee',
    );
  });

  it('given an id that is not a UUID, then a TypeError (EventStoreDB stores ids as UUIDs)', () => {
    expect(() =>
      eventIdOf({ id: 'evt-1', type: 'A', data: {}, tenant_id: 't', correlation_id: 'c' }),
    ).toThrow(/not a UUID/);
  });

  it('an id is claimed by a stream of its own, with a system event type readers leave out', () => {
    expect(idClaimStreamOf('0190a6b2-7c3e-7d52-9f1a-1b2c3d4e5f60')).toBe(
      'gov-event-id-0190a6b2-7c3e-7d52-9f1a-1b2c3d4e5f60',
    );
    expect(isSystemEventType(ID_CLAIM_EVENT_TYPE)).toBe(true);
    expect(decodeIdClaim({ stream: 'orders-1' }, 'x')).toEqual({ stream: 'orders-1' });
    expect(() => decodeIdClaim({}, 'x')).toThrow(/does not name a stream/);
  });
});

describe('filters', () => {
  it('given no filter, then the server leaves system events out, and so does the client check', () => {
    const plan = planFilter(undefined);
    expect(plan.server).toMatchObject({ filterOn: 'eventType', regex: '^[^$].*' });
    expect(plan.matches('Anything', 'any-stream')).toBe(true);
    expect(plan.matches('$statsCollected', '$stats-127.0.0.1:2113')).toBe(false);
    expect(plan.matches(ID_CLAIM_EVENT_TYPE, 'gov-event-id-x')).toBe(false);
  });

  it('given event types only, then the server filters on type prefixes and the client makes the match exact', () => {
    const plan = planFilter({ eventTypes: ['Keep'] });
    expect(plan.server).toMatchObject({ filterOn: 'eventType', prefixes: ['Keep'] });
    expect(plan.matches('Keep', 's')).toBe(true);
    expect(plan.matches('Keeper', 's')).toBe(false);
  });

  it('given stream prefixes and event types, then the server filters the prefixes and the client ANDs the types', () => {
    const plan = planFilter({ streamPrefixes: ['contract_1-', 'other-'], eventTypes: ['Wanted'] });
    expect(plan.server).toMatchObject({ filterOn: 'streamName', prefixes: ['contract_1-', 'other-'] });
    expect(plan.matches('Wanted', 'contract_1-f')).toBe(true);
    expect(plan.matches('Wanted', 'other-x')).toBe(true);
    expect(plan.matches('Other', 'contract_1-f')).toBe(false);
    expect(plan.matches('Wanted', 'contract_2-f')).toBe(false);
  });

  it('empty lists filter nothing, as in the embedded store', () => {
    const plan = planFilter({ eventTypes: [], streamPrefixes: [] });
    expect(plan.server).toMatchObject({ regex: '^[^$].*' });
    expect(plan.matches('A', 's')).toBe(true);
  });
});

describe('connection strings', () => {
  it('recognises esdb:// and esdb+discover:// URLs, and nothing else', () => {
    expect(isEventStoreDbUrl('esdb://127.0.0.1:2113?tls=false')).toBe(true);
    expect(isEventStoreDbUrl('esdb+discover://cluster.example.com:2113')).toBe(true);
    expect(isEventStoreDbUrl('ESDB://host')).toBe(true);
    expect(isEventStoreDbUrl('/data/events.db')).toBe(false);
    expect(isEventStoreDbUrl('mongodb://127.0.0.1:27017')).toBe(false);
    expect(isEventStoreDbUrl('esdb.db')).toBe(false);
  });

  it('given an option the client does not know, or tlsVerifyCert=false, then a problem to report (the client would print the password)', () => {
    expect(connectionOptionProblem('esdb://host:2113?tls=false&keepAliveTimeout=10000')).toBeNull();
    expect(connectionOptionProblem('esdb://host:2113?TLS=false&tls_ca_file=ca.pem')).toBeNull();
    expect(connectionOptionProblem('esdb://a:pw@host:2113?tsl=false')).toMatch(/unknown option 'tsl'/);
    expect(connectionOptionProblem('esdb://host:2113?tlsVerifyCert=false')).toMatch(/tlsCAFile/);
    expect(connectionOptionProblem('esdb://host:2113')).toBeNull();
  });

  it('hides the password in any text, such as a client error', () => {
    expect(hidePassword('Unexpected "s3cret" at position 9', 'esdb://ops:s3cret@host:2113')).toBe(
      'Unexpected "***" at position 9',
    );
    expect(hidePassword('no password here', 'esdb://host:2113')).toBe('no password here');
  });

  it('hides the password, never the rest', () => {
    expect(redactConnectionString('esdb://admin:changeit@host:2113?tls=true')).toBe(
      'esdb://admin:***@host:2113?tls=true',
    );
    expect(redactConnectionString('esdb+discover://ops:s3cr@t@cluster:2113')).toBe(
      'esdb+discover://ops:***@cluster:2113',
    );
    expect(redactConnectionString('esdb://host:2113?tls=false')).toBe('esdb://host:2113?tls=false');
    expect(redactConnectionString('esdb://user@host:2113')).toBe('esdb://user@host:2113');
    expect(redactConnectionString('http://admin:secret@host:2113')).toBe('http://admin:***@host:2113');
  });
});
