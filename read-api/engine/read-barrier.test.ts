import { FollowedPosition } from '../../projectors/engine/position-waiters';
import type { AppliedPositions } from '../../projectors/engine/supervisor';
import { ReadBarrier, ReadModelsBehindError } from './read-barrier';

/** Projections as the barrier sees them: their names and the event types they read. */
const PROJECTIONS = [
  { name: 'governance', eventTypes: ['EvidenceAdmitted', 'GateFailed'] },
  { name: 'tenants', eventTypes: ['TenantRegistered', 'EvidenceAdmitted'] },
  { name: 'tree-heads', eventTypes: ['TreeHeadSigned'] },
];
/** A follower that is never read through the barrier, with a tighter bound of its own. */
const DISPATCHER = { name: 'dispatcher', eventTypes: ['EvidenceAdmitted'], maxUnapplied: 10 };

/** A follower bounded in time: it must have applied what was acknowledged more than 500 ms ago. */
const TIMED = { name: 'timed', eventTypes: ['EvidenceAdmitted'], maxLagMs: 500 };

/** Running projections whose progress the test moves by hand. */
class HandMovedProjections implements AppliedPositions {
  private readonly applied = new Map(
    [...PROJECTIONS, DISPATCHER, TIMED].map((p) => [p.name, new FollowedPosition()]),
  );

  appliedPosition(name: string): number | null {
    return this.applied.get(name)!.position;
  }

  waitForProjection(name: string, position: number): Promise<void> {
    return this.applied.get(name)!.wait(position);
  }

  apply(name: string, position: number): void {
    this.applied.get(name)!.advance(position);
  }
}

/** Settles pending promise callbacks, then says whether `promise` has resolved. */
async function isResolved(promise: Promise<unknown>): Promise<boolean> {
  let resolved = false;
  void promise.then(() => {
    resolved = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return resolved;
}

describe('read barrier', () => {
  it('given nothing acknowledged, when a read model is read, then the read passes at once', () => {
    const barrier = new ReadBarrier(PROJECTIONS, new HandMovedProjections(), 1000);
    expect(barrier.before('governance')).toBeNull();
  });

  it('given an admission acknowledged at 10 and the read models at 5, when governance is read, then the read waits until governance applies 10', async () => {
    const projections = new HandMovedProjections();
    projections.apply('governance', 5);
    projections.apply('tenants', 5);
    const barrier = new ReadBarrier(PROJECTIONS, projections, 1000);

    expect(await isResolved(barrier.acknowledge(10, ['EvidenceAdmitted']))).toBe(true);
    const read = barrier.before('governance');
    expect(read).not.toBeNull();
    projections.apply('governance', 9);
    expect(await isResolved(read!)).toBe(false);
    projections.apply('governance', 10);
    expect(await isResolved(read!)).toBe(true);
    expect(barrier.before('governance')).toBeNull();
  });

  it('given an admission acknowledged, then only the read models reading its event types wait for it', async () => {
    const projections = new HandMovedProjections();
    const barrier = new ReadBarrier(PROJECTIONS, projections, 1000);
    void barrier.acknowledge(10, ['GateFailed']);
    const read = barrier.before('governance');
    expect(read).not.toBeNull();
    expect(barrier.before('tenants')).toBeNull();
    expect(barrier.before('tree-heads')).toBeNull();
    projections.apply('governance', 10);
    await read;
  });

  it('given an older position acknowledged after a newer one, then reads still wait for the newer one', async () => {
    const projections = new HandMovedProjections();
    const barrier = new ReadBarrier(PROJECTIONS, projections, 1000);
    void barrier.acknowledge(20, ['EvidenceAdmitted']);
    void barrier.acknowledge(15, ['EvidenceAdmitted']);
    projections.apply('governance', 15);
    const read = barrier.before('governance');
    expect(read).not.toBeNull();
    projections.apply('governance', 20);
    await read;
    expect(barrier.before('governance')).toBeNull();
  });

  it('given the read models more than the allowed backlog behind, when an admission is acknowledged, then acknowledging waits until they are back within it (not until they apply it)', async () => {
    const projections = new HandMovedProjections();
    projections.apply('governance', 100);
    projections.apply('tenants', 100);
    const barrier = new ReadBarrier(PROJECTIONS, projections, 1000, 50);

    expect(await isResolved(barrier.acknowledge(150, ['EvidenceAdmitted']))).toBe(true);
    const beyond = barrier.acknowledge(160, ['EvidenceAdmitted']);
    expect(await isResolved(beyond)).toBe(false);
    projections.apply('governance', 110);
    expect(await isResolved(beyond)).toBe(false); // tenants reads EvidenceAdmitted too
    projections.apply('tenants', 109);
    expect(await isResolved(beyond)).toBe(false);
    projections.apply('tenants', 110);
    expect(await isResolved(beyond)).toBe(true);
    // Reads still wait for everything acknowledged.
    const read = barrier.before('governance');
    expect(read).not.toBeNull();
    projections.apply('governance', 160);
    await read;
  });

  it('given a follower with a bound of its own, when acknowledging runs past it, then acknowledging waits for that follower only', async () => {
    const projections = new HandMovedProjections();
    for (const name of ['governance', 'tenants', 'dispatcher']) projections.apply(name, 100);
    const barrier = new ReadBarrier([...PROJECTIONS, DISPATCHER], projections, 1000, 50);

    expect(await isResolved(barrier.acknowledge(110, ['EvidenceAdmitted']))).toBe(true);
    const beyond = barrier.acknowledge(111, ['EvidenceAdmitted']);
    expect(await isResolved(beyond)).toBe(false);
    projections.apply('dispatcher', 101);
    expect(await isResolved(beyond)).toBe(true);
  });

  it('given a follower bounded in time, when it lags many positions but less than its bound, then acknowledging does not wait', async () => {
    const projections = new HandMovedProjections();
    let now = 0;
    const barrier = new ReadBarrier([TIMED], projections, 1000, 50, () => now);
    for (let position = 1; position <= 1000; position++) {
      now += 0.45; // 1,000 positions in 450 ms, none applied
      expect(await isResolved(barrier.acknowledge(position, ['EvidenceAdmitted']))).toBe(true);
    }
  });

  it('given a follower bounded in time, when it has not applied a position acknowledged longer ago than its bound, then acknowledging waits until it has applied that one', async () => {
    const projections = new HandMovedProjections();
    let now = 0;
    const barrier = new ReadBarrier([TIMED], projections, 1000, 50, () => now);
    void barrier.acknowledge(10, ['EvidenceAdmitted']);
    now = 300;
    void barrier.acknowledge(20, ['EvidenceAdmitted']);
    now = 600;
    const beyond = barrier.acknowledge(30, ['EvidenceAdmitted']);
    expect(await isResolved(beyond)).toBe(false);
    projections.apply('timed', 10); // what was acknowledged 600 ms ago; 20 (300 ms ago) is within the bound
    expect(await isResolved(beyond)).toBe(true);

    now = 850;
    const later = barrier.acknowledge(40, ['EvidenceAdmitted']);
    expect(await isResolved(later)).toBe(false);
    projections.apply('timed', 20);
    expect(await isResolved(later)).toBe(true);
  });

  it('given a follower bounded in time, then admissions of event types it does not read never wait for it', async () => {
    const projections = new HandMovedProjections();
    let now = 0;
    const barrier = new ReadBarrier([TIMED], projections, 1000, 50, () => now);
    void barrier.acknowledge(10, ['GateFailed']);
    now = 10_000;
    expect(await isResolved(barrier.acknowledge(11, ['GateFailed']))).toBe(true);
  });

  it('given a read model that does not apply an acknowledged write within the timeout, when it is read, then the read fails with ReadModelsBehindError naming it', async () => {
    const projections = new HandMovedProjections();
    const barrier = new ReadBarrier(PROJECTIONS, projections, 30);
    void barrier.acknowledge(7, ['EvidenceAdmitted']);
    const read = barrier.before('tenants')!;
    await expect(read).rejects.toBeInstanceOf(ReadModelsBehindError);
    await expect(read).rejects.toThrow(/read model 'tenants' is still applying writes .* retry shortly/);
  });
});
