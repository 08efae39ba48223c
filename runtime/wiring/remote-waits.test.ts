import type { EventStore } from '../../ports/event-store';
import type { ReadStore, StoredDocument } from '../../ports/read-store';
import { ProjectionCatalog } from '../../projectors/engine/catalog';
import type { Projection } from '../../projectors/engine/projection';
import { MAX_UNAPPLIED_POSITIONS, ReadModelsBehindError } from '../../read-api/engine/read-barrier';
import { RemoteProgress, RemoteWaits, StoreHeadGate } from './remote-waits';

/** Checkpoints as another process stores them, counting the reads of each. */
class StoredCheckpoints {
  readonly positions = new Map<string, number>();
  readonly reads = new Map<string, number>();

  readStore(): ReadStore {
    return {
      getCheckpoint: async (name: string) => {
        this.reads.set(name, (this.reads.get(name) ?? 0) + 1);
        return this.positions.get(name) ?? null;
      },
      get: async <T>(): Promise<StoredDocument<T> | null> => null,
      // The projection catalog: nothing switched (every projection serves generation 1).
      find: async () => ({ items: [], nextCursor: null }),
    } as unknown as ReadStore;
  }
}

const governance = {
  name: 'governance',
  eventTypes: ['EvidenceAdmitted', 'GateFailed'],
} as unknown as Projection;
const tenants = { name: 'tenants', eventTypes: ['TenantRegistered'] } as unknown as Projection;
const CHECKPOINT = 'governance@g1';

function waitsOver(stored: StoredCheckpoints, timeoutMs = 5_000): RemoteWaits {
  const readStore = stored.readStore();
  return new RemoteWaits({
    readStore,
    catalog: new ProjectionCatalog(readStore, 1000),
    projections: [governance, tenants],
    deliveryQueueGeneration: 1,
    timeoutMs,
  });
}

const settled = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setTimeout(resolve, 30));
  return done;
};

const late = () => new Error('late');

/** A stored position another process moves (`stored.position`), counting its reads. */
function storedPosition(position: number) {
  const stored = { position, reads: 0 };
  const read = async () => {
    stored.reads += 1;
    return stored.position;
  };
  return { stored, read };
}

describe('RemoteProgress', () => {
  it('given a wait that times out, when it is given up, then it fails and the position is polled no more', async () => {
    const progress = new RemoteProgress();
    const { stored, read } = storedPosition(0);
    await expect(progress.wait('k', read, 1, 30, late)).rejects.toThrow('late');
    const after = stored.reads;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(stored.reads).toBeLessThanOrEqual(after + 1);
  });

  it('given pending waits, when closed, then they fail and polling stops', async () => {
    const progress = new RemoteProgress();
    const read = async () => 0;
    const pending = progress.wait('k', read, 1, 5_000, late);
    await progress.close();
    await expect(pending).rejects.toThrow('closed');
  });

  it('given many waiters for one stored position, when it moves past them, then all are released and each poll read it once', async () => {
    const progress = new RemoteProgress();
    const { stored, read } = storedPosition(0);
    const waiters = Array.from({ length: 64 }, (_, i) => progress.wait('k', read, 1 + (i % 4), 5_000, late));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const readsWhileBehind = stored.reads;
    stored.position = 4;
    await Promise.all(waiters);
    // One read per poll, not one per waiter: 64 waiters over ~20 ms of polls read a handful of times.
    expect(readsWhileBehind).toBeLessThan(20);
    expect(progress.reached('k', read)).toBe(4);
  });

  it('given nobody waits, when a position was read, then no more reads happen', async () => {
    const progress = new RemoteProgress();
    const { stored, read } = storedPosition(7);
    await progress.wait('k', read, 7, 5_000, late);
    const after = stored.reads;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(stored.reads).toBe(after);
  });
});

describe('RemoteWaits', () => {
  it('given a read model within the bound, when an admission is acknowledged, then it does not wait for it', async () => {
    const stored = new StoredCheckpoints();
    const waits = waitsOver(stored);
    stored.positions.set(CHECKPOINT, 10);
    await waits.awaitProjections(10, ['EvidenceAdmitted']); // read once
    expect(await settled(waits.boundBacklog(10 + MAX_UNAPPLIED_POSITIONS, ['EvidenceAdmitted']))).toBe(true);
  });

  it('given a read model more than the bound behind, when an admission is acknowledged, then it waits until the model is back within it', async () => {
    const stored = new StoredCheckpoints();
    const waits = waitsOver(stored);
    stored.positions.set(CHECKPOINT, 10);
    const acknowledged = waits.boundBacklog(11 + MAX_UNAPPLIED_POSITIONS, ['EvidenceAdmitted']);
    expect(await settled(acknowledged)).toBe(false);
    stored.positions.set(CHECKPOINT, 11);
    await acknowledged;
  });

  it('given events no read model reads, when waited for, then nothing is read', async () => {
    const stored = new StoredCheckpoints();
    await waitsOver(stored).awaitProjections(99, ['SomethingElse']);
    expect(stored.reads.size).toBe(0);
  });

  it('given a projectors process that never catches up, when a command waits for it, then it fails after the timeout saying what is missing', async () => {
    const stored = new StoredCheckpoints();
    await expect(waitsOver(stored, 50).awaitProjections(5, ['EvidenceAdmitted'])).rejects.toThrow(
      /read model 'governance' .* has not reached position 5: is a projectors process running\?/,
    );
  });
});

describe('StoreHeadGate (read-your-write on the read side of the topology)', () => {
  function gateOver(stored: StoredCheckpoints, head: () => number, timeoutMs = 5_000) {
    const eventStore = { headPosition: async () => head() } as unknown as EventStore;
    return new StoreHeadGate(eventStore, waitsOver(stored), [governance, tenants], timeoutMs);
  }

  it('given the read model has applied the store head of its events, when read, then the read passes', async () => {
    const stored = new StoredCheckpoints();
    stored.positions.set(CHECKPOINT, 12);
    await gateOver(stored, () => 12).before('governance');
  });

  it('given an event acknowledged elsewhere that the read model has not applied, when read, then the read waits until it has', async () => {
    const stored = new StoredCheckpoints();
    stored.positions.set(CHECKPOINT, 11);
    const read = gateOver(stored, () => 12).before('governance');
    expect(await settled(read)).toBe(false);
    stored.positions.set(CHECKPOINT, 12);
    await read;
  });

  it('given a read model that stays behind, when read, then the read fails with the read models behind error after the timeout', async () => {
    const stored = new StoredCheckpoints();
    await expect(gateOver(stored, () => 3, 50).before('governance')).rejects.toBeInstanceOf(
      ReadModelsBehindError,
    );
  });
});
