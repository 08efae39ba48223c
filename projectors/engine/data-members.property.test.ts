/**
 * A projection that declares `dataMembers` may be handed only those members of an event's data (the
 * SQLite store selects them in SQL). For every such projection and type: given any valid event of
 * that type, then projecting it whole or cut down to the declared members gives the same changes.
 */
import fc from 'fast-check';
import { SqliteReadStore } from '../../adapters/sqlite/read-store';
import { arbitraryOf } from '../../event-schemas/schema-arbitrary';
import { eventSchemas } from '../../event-schemas/schemas';
import type { RecordedEvent } from '../../ports/event-store';
import { projections } from '../index';
import { deliveryQueueProjection } from '../webhooks/delivery-queue-projection';
import { BatchState } from './batch-state';
import type { Projection } from './projection';

type Schema = Parameters<typeof arbitraryOf>[0];

function recorded(type: string, data: unknown, position: number): RecordedEvent {
  return {
    position,
    id: `event-${position}`,
    stream: 'tenant-t',
    revision: position,
    type,
    recorded_at: '2026-11-21T10:00:00.000Z',
    tenant_id: 't',
    correlation_id: 'c',
    causation_id: null,
    schema_version: 1,
    data,
  };
}

/** `data` cut down to `members` (names or dotted paths), as the SQLite store selects them. */
function selected(data: Record<string, unknown>, members: readonly string[]): Record<string, unknown> {
  const cut: Record<string, unknown> = {};
  for (const member of members) {
    const [name, ...rest] = member.split('.') as [string, ...string[]];
    const value = data[name] ?? null;
    if (rest.length === 0) cut[name] = value;
    else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const part = typeof cut[name] === 'object' && cut[name] !== null ? cut[name] : {};
      cut[name] = { ...part, ...selected(value as Record<string, unknown>, [rest.join('.')]) };
    } else cut[name] = null;
  }
  return cut;
}

/** The changes of `event` after every event of `history`, on a fresh store. */
async function changesOf(projection: Projection, history: RecordedEvent[], event: RecordedEvent) {
  const store = new SqliteReadStore(':memory:');
  try {
    const state = new BatchState(store, 1);
    for (const earlier of history)
      for (const change of await projection.project(earlier, state)) await state.record(change);
    return await projection.project(event, state);
  } finally {
    await store.close();
  }
}

const declaring = [...projections, deliveryQueueProjection({ publicUrl: 'https://gov.example' })].filter(
  (projection) => projection.dataMembers,
);

describe.each(declaring.map((projection) => [projection.name, projection] as const))(
  'the %s projection, handed only its declared data members',
  (_name, projection) => {
    const types = Object.keys(projection.dataMembers!);
    // Earlier events of every whole-read type the projection follows, so that state exists to change.
    const wholeTypes = projection.eventTypes.filter((type) => !types.includes(type));

    it.each(types)(
      'given any valid %s after any history, then its changes are the same as from the whole event',
      async (type) => {
        const members = projection.dataMembers![type]!;
        const schemaOf = (name: string) => eventSchemas[name as keyof typeof eventSchemas] as Schema;
        // A projection reading every type in part has no whole-read history to start from.
        const history: fc.Arbitrary<Array<{ type: string; data: unknown }>> =
          wholeTypes.length === 0
            ? fc.constant([])
            : fc.array(
                fc
                  .constantFrom(...wholeTypes)
                  .chain((earlier) =>
                    arbitraryOf(schemaOf(earlier)).map((data) => ({ type: earlier, data })),
                  ),
                { maxLength: 3 },
              );
        await fc.assert(
          fc.asyncProperty(
            history,
            arbitraryOf(schemaOf(type)),
            fc.boolean(),
            async (earlier, data, sameTenant) => {
              const whole = data as Record<string, unknown>;
              // Mostly about a tenant the history registered, as in a real stream.
              const registered = earlier.find((e) => (e.data as { tenant_id?: string }).tenant_id);
              if (sameTenant && registered)
                whole.tenant_id = (registered.data as { tenant_id: string }).tenant_id;
              const past = earlier.map((e, i) => recorded(e.type, e.data, i + 1));
              const position = past.length + 1;
              expect(
                await changesOf(projection, past, recorded(type, selected(whole, members), position)),
              ).toEqual(await changesOf(projection, past, recorded(type, whole, position)));
            },
          ),
          { seed: 20261121, numRuns: 60 },
        );
      },
    );
  },
);
