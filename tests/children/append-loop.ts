/**
 * Crash-test child: appends batches of three events to a few streams, concurrently, forever, and
 * prints each batch's marker only after its append was acknowledged. The parent SIGKILLs it.
 */
import { randomUUID } from 'node:crypto';
import { writeSync } from 'node:fs';
import { SqliteEventStore } from '../../adapters/sqlite/event-store';

const file = process.argv[2]!;
const store = new SqliteEventStore({ file });
const writers = 8;

async function writer(w: number): Promise<void> {
  for (;;) {
    const batch = randomUUID();
    await store.append(
      `crash-${w}`,
      [0, 1, 2].map((i) => ({
        type: 'TestEvent',
        data: { batch, i, n: i, pad: 'x'.repeat(200) },
        tenant_id: `tenant-${w % 3}`,
        correlation_id: batch,
      })),
    );
    writeSync(1, `${batch}\n`);
  }
}

for (let w = 0; w < writers; w++) void writer(w);
