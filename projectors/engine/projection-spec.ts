/**
 * Given/when/then specifications of a projection, in the style of Emmett's `DeciderSpecification`:
 * given recorded events, when more events are projected, then these documents.
 *
 *   const given = ProjectionSpecification.for(tenantsProjection);
 *   await given([registered]).when([rotated]).thenDocuments({ api_keys: { [keyId]: { ... } } });
 *
 * Events take the runtime's own path: `projectEvents` (each event seeing the batch's earlier changes),
 * then one `ReadStore.apply` with the projector's checkpoint, on an in-memory SQLite read store. The
 * given events are one batch, the `when` events the next; `numberOfTimes` delivers that batch again
 * (a redelivery after a crash before the checkpoint), which must leave the same documents.
 *
 * Emmett's own `InMemoryProjectionSpec` drives its in-memory document database, not this project's
 * `ReadStore` port, hence this small equivalent. Assertions use node:assert so that the module needs
 * no test runner's globals.
 */
import assert from 'node:assert/strict';
import { SqliteReadStore } from '../../adapters/sqlite/read-store';
import type { RecordedEvent } from '../../ports/event-store';
import type { Change } from '../../ports/read-store';
import { checkpointName, type Projection, physicalCollection } from './projection';
import { projectEvents } from './runner';

/**
 * An event as a spec gives it: its type and data, and any recorded member it needs to fix. The rest
 * is filled in: positions 1, 2, … in the order given, a recording time one second after the previous
 * one, the tenant from `data.tenant_id` (else `system`). For a type the projection reads only in part
 * (`dataMembers`), the data may hold just those members, as the store hands them.
 */
export interface SpecEvent {
  type: string;
  data: object;
  id?: string;
  stream?: string;
  recorded_at?: string;
}

/** Expected documents: collection → document id → its data. Each collection named is compared whole. */
type Documents = Record<string, Record<string, unknown>>;

interface ProjectionSpecOptions {
  /**
   * What a projection's host stores of a change, when it is not the change itself (the dispatcher
   * stores a delivery without its body). Collections here are logical names.
   */
  stored?: (change: Change) => Change;
  /** The recording time of the first event (default 2026-03-01T10:00:00.000Z). */
  start?: string;
}

interface WhenOptions {
  /** How many times the `when` batch is delivered (default 1). */
  numberOfTimes?: number;
}

interface ProjectionThen {
  /** Each collection named holds exactly these documents. (Not `then`: that would make it awaitable.) */
  thenDocuments(expected: Documents): Promise<void>;
  /** Every collection of the projection holds what the given events alone left. */
  thenNothingChanged(): Promise<void>;
}

type ProjectionSpec = (given: readonly SpecEvent[]) => {
  when(events: readonly SpecEvent[], options?: WhenOptions): ProjectionThen;
  /** The documents the given events leave, with no `when`. */
  thenDocuments(expected: Documents): Promise<void>;
};

const GENERATION = 1;
const DEFAULT_START = '2026-03-01T10:00:00.000Z';

export const ProjectionSpecification = {
  for(projection: Projection, options: ProjectionSpecOptions = {}): ProjectionSpec {
    return (given) => {
      const run = async (
        when: readonly SpecEvent[],
        times: number,
        check: (store: Run, afterGiven: Documents) => Promise<void>,
      ) => {
        const store = new Run(projection, options);
        try {
          const recorded = store.record([...given, ...when]);
          await store.deliver(recorded.slice(0, given.length));
          const afterGiven = await store.documents(projection.collections);
          const whenBatch = recorded.slice(given.length);
          for (let n = 0; n < times && whenBatch.length > 0; n++) await store.deliver(whenBatch);
          await check(store, afterGiven);
        } finally {
          await store.close();
        }
      };
      const expectDocuments = (expected: Documents) => async (store: Run) => {
        const unknown = Object.keys(expected).filter((name) => !projection.collections.includes(name));
        assert.deepEqual(unknown, [], `${projection.name} has no such collection`);
        const actual = await store.documents(Object.keys(expected));
        for (const [collection, documents] of Object.entries(expected))
          assert.deepStrictEqual(actual[collection], documents, `the documents of ${collection}`);
      };
      return {
        when(events, whenOptions = {}) {
          const times = whenOptions.numberOfTimes ?? 1;
          return {
            thenDocuments: (expected) => run(events, times, expectDocuments(expected)),
            thenNothingChanged: () =>
              run(events, times, async (store, afterGiven) => {
                const actual = await store.documents(projection.collections);
                assert.deepStrictEqual(actual, afterGiven, 'the documents after the given events');
              }),
          };
        },
        thenDocuments: (expected) => run([], 0, expectDocuments(expected)),
      };
    };
  },
};

/** One spec's read store and the events it records. */
class Run {
  readonly readStore = new SqliteReadStore(':memory:');
  private readonly logical: Map<string, string>;

  constructor(
    private readonly projection: Projection,
    private readonly options: ProjectionSpecOptions,
  ) {
    this.logical = new Map(
      projection.collections.map((name) => [physicalCollection(name, GENERATION), name]),
    );
  }

  record(events: readonly SpecEvent[]): RecordedEvent[] {
    const start = Date.parse(this.options.start ?? DEFAULT_START);
    return events.map((event, i) => {
      const position = i + 1;
      const tenantId = (event.data as { tenant_id?: unknown }).tenant_id;
      const tenant = typeof tenantId === 'string' ? tenantId : 'system';
      return {
        id: event.id ?? `event-${position}`,
        type: event.type,
        stream: event.stream ?? (tenant === 'system' ? 'merkle-log' : `tenant-${tenant}`),
        revision: i,
        position,
        recorded_at: event.recorded_at ?? new Date(start + i * 1000).toISOString(),
        tenant_id: tenant,
        correlation_id: `correlation-${position}`,
        causation_id: null,
        schema_version: 1,
        data: event.data,
      };
    });
  }

  /** One batch, as the runner applies it: projected, then stored with the checkpoint. */
  async deliver(batch: readonly RecordedEvent[]): Promise<void> {
    if (batch.length === 0) return;
    const wanted = batch.filter((event) => this.projection.eventTypes.includes(event.type));
    const changes = await projectEvents(this.projection, this.readStore, GENERATION, wanted);
    await this.readStore.apply(
      changes.map((change) => this.stored(change)),
      {
        projector: checkpointName(this.projection, GENERATION),
        position: batch[batch.length - 1]!.position,
      },
    );
  }

  private stored(change: Change): Change {
    const { stored } = this.options;
    if (!stored) return change;
    const collection = this.logical.get(change.collection) ?? change.collection;
    return { ...stored({ ...change, collection }), collection: change.collection };
  }

  /** Every live document of each collection, by id. */
  async documents(collections: readonly string[]): Promise<Documents> {
    const out: Documents = {};
    for (const collection of collections) {
      const documents: Record<string, unknown> = {};
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<SqliteReadStore['find']>> = await this.readStore.find(
          physicalCollection(collection, GENERATION),
          { limit: 1000, cursor },
        );
        for (const item of page.items) documents[item.id] = item.data;
        cursor = page.nextCursor;
      } while (cursor);
      out[collection] = documents;
    }
    return out;
  }

  close(): Promise<void> {
    return this.readStore.close();
  }
}
