/**
 * What a store that gives imported events positions of its own (EventStoreDB) must do when `gov import`
 * appends an export into it. Every test uses streams and ids of its own, so the contract also runs on
 * a server other tests share (its head is then not 0: emptiness is the import's check, not the store's).
 */
import { randomUUID } from 'node:crypto';
import { collect } from '../../ports/contract/event-store.contract';
import {
  DuplicateEventIdError,
  type EventStore,
  type RecordedEvent,
  WrongExpectedVersionError,
} from '../../ports/event-store';
import { LeafPositionMap } from '../../projectors/log/leaf-positions';
import type { RepositioningImportTarget } from './event-stores';
import { from, recorded as sourceEvent } from './importable-store.contract';

export interface RepositioningImportContractOptions {
  create: () => Promise<{ store: EventStore & RepositioningImportTarget; dispose: () => Promise<void> }>;
}

/** Without its position: what an import into such a store keeps. */
function positionless({ position: _position, ...rest }: RecordedEvent) {
  return rest;
}

export function repositioningImportContract(name: string, options: RepositioningImportContractOptions): void {
  describe(`repositioning import contract: ${name}`, () => {
    let store: EventStore & RepositioningImportTarget;
    let dispose: () => Promise<void>;
    let prefix: string;

    beforeEach(async () => {
      ({ store, dispose } = await options.create());
      prefix = `imp_${randomUUID().replaceAll('-', '')}-`;
    });
    afterEach(async () => {
      await dispose();
    });

    /**
     * An event as another store recorded it, at small positions of that store's own; a fresh id and a
     * prefixed stream keep runs against a shared server apart.
     */
    function recorded(
      position: number,
      stream: string,
      revision: number,
      overrides: Partial<RecordedEvent> = {},
    ): RecordedEvent {
      return sourceEvent(position, `${prefix}${stream}`, revision, {
        id: randomUUID(),
        tenant_id: `tenant-of-${stream}`,
        ...overrides,
      });
    }

    const ours = () => collect(store.readAll({ filter: { streamPrefixes: [prefix] } }));

    it('given events of two interleaved streams, then each is stored at its revision with its id, data and recorded_at, in the same order, at positions of the store', async () => {
      const history = [recorded(3, 'a', 0), recorded(4, 'b', 0), recorded(7, 'a', 1), recorded(9, 'b', 1)];
      const heard: [string, number][] = [];
      const result = await store.appendRecorded(from(history), {
        onAppended: (event, position) => heard.push([event.id, position]),
      });
      const stored = await ours();
      expect(stored.map(positionless)).toEqual(history.map(positionless));
      expect(heard).toEqual(stored.map((event) => [event.id, event.position]));
      expect(result).toEqual({ events: 4, last_position: stored[3]!.position });
      const positions = stored.map((event) => event.position);
      expect([...positions].sort((x, y) => x - y)).toEqual(positions);
      expect(new Set(positions).size).toBe(4);
      expect(positions).not.toEqual(history.map((event) => event.position));
      expect((await collect(store.readStream(`${prefix}a`))).map(positionless)).toEqual(
        [history[0]!, history[2]!].map(positionless),
      );
    });

    it('then appends continue after the imported events: the next revision of the stream, a later position', async () => {
      const { last_position } = await store.appendRecorded(from([recorded(1, 'a', 0), recorded(2, 'a', 1)]));
      const later = await store.append(
        `${prefix}a`,
        [{ type: 'Later', data: {}, tenant_id: 'tenant-of-a', correlation_id: 'c' }],
        { expectedRevision: 1 },
      );
      expect(later).toEqual({ nextRevision: 2, position: expect.any(Number) });
      expect(later.position).toBeGreaterThan(last_position);
      expect((await ours()).map((event) => event.type)).toEqual([
        'SomethingHappened',
        'SomethingHappened',
        'Later',
      ]);
    });

    it('given tree heads naming admissions by position, when translated on the way in, then each names the positions the store gave those admissions', async () => {
      const admission = (position: number, revision: number) =>
        recorded(position, 'tenant', revision, { type: 'EvidenceAdmitted', data: { n: position } });
      const head = (position: number, revision: number, leaves: number[], first: number) =>
        recorded(position, 'merkle-log', revision, {
          type: 'TreeHeadSigned',
          data: { tree_size: first + leaves.length, first_leaf_index: first, leaf_positions: leaves },
        });
      const history = [
        admission(10, 0),
        admission(11, 1),
        head(12, 0, [10, 11], 0),
        admission(20, 2),
        head(21, 1, [20], 2),
      ];
      const map = new LeafPositionMap();
      await store.appendRecorded(from(history), {
        translate: (event) => map.translate(event),
        onAppended: (event, position) => map.appended(event, position),
      });
      const stored = await ours();
      const at = (i: number) => stored[i]!.position;
      expect(stored.map((event) => (event.data as { leaf_positions?: number[] }).leaf_positions)).toEqual([
        undefined,
        undefined,
        [at(0), at(1)],
        undefined,
        [at(3)],
      ]);
      expect(stored[2]!.data).toEqual({ ...(history[2]!.data as object), leaf_positions: [at(0), at(1)] });
      expect(map.unintegrated).toBe(0);
    });

    it('when the same events are appended again (an import resumed), then nothing is stored twice and the stored positions are answered', async () => {
      const history = [recorded(1, 'a', 0), recorded(2, 'b', 0), recorded(3, 'a', 1)];
      const first = await store.appendRecorded(from(history));
      const before = await ours();
      const heard: number[] = [];
      const again = await store.appendRecorded(from(history), {
        onAppended: (_event, position) => heard.push(position),
      });
      expect(await ours()).toEqual(before);
      expect(heard).toEqual(before.map((event) => event.position));
      expect(again).toEqual(first);
    });

    it('given a revision that does not follow its stream, then WrongExpectedVersionError, and the events before it stay', async () => {
      const history = [recorded(1, 'a', 0), recorded(2, 'a', 2)];
      await expect(store.appendRecorded(from(history))).rejects.toBeInstanceOf(WrongExpectedVersionError);
      expect((await ours()).map((event) => event.id)).toEqual([history[0]!.id]);
    });

    it('given an id another stream already holds, then DuplicateEventIdError, and it is not stored again', async () => {
      const taken = recorded(1, 'a', 0);
      await store.appendRecorded(from([taken]));
      await expect(
        store.appendRecorded(from([recorded(2, 'b', 0, { id: taken.id })])),
      ).rejects.toBeInstanceOf(DuplicateEventIdError);
      expect((await ours()).map((event) => event.stream)).toEqual([`${prefix}a`]);
    });

    it('names what it cannot store as it is: an id that is not a lower-case UUID, a reserved stream or type', () => {
      expect(store.importProblem(recorded(1, 'a', 0))).toBeNull();
      expect(store.importProblem(recorded(1, 'a', 0, { id: randomUUID().toUpperCase() }))).toMatch(
        /not a lower-case UUID/,
      );
      expect(store.importProblem(recorded(1, 'a', 0, { id: 'evt-1' }))).toMatch(/not a lower-case UUID/);
      expect(store.importProblem(recorded(1, 'a', 0, { stream: '$settings' }))).toMatch(/reserved/);
      expect(store.importProblem(recorded(1, 'a', 0, { type: '$metadata' }))).toMatch(/reserved/);
    });
  });
}
