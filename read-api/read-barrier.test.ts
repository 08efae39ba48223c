import { FollowedPosition } from '../projectors/position-waiters';
import { type AppliedPositions, ReadBarrier, ReadModelsBehindError } from './read-barrier';

/** Projections as the barrier sees them: their names and the event types they read. */
const PROJECTIONS = [
  { name: 'governance', eventTypes: ['EvidenceAdmitted', 'GateFailed'] },
  { name: 'tenants', eventTypes: ['TenantRegistered', 'EvidenceAdmitted'] },
  { name: 'tree-heads', eventTypes: ['TreeHeadSigned'] },
];
/** A follower that is never read through the barrier, with a tighter bound of its own. */
const DISPATCHER = { name: 'dispatcher', eventTypes: ['EvidenceAdmitted'], maxUnapplied: 10 };

/** Running projections whose progress the test moves by hand. */
class HandMovedProjections implements AppliedPositions {
  private readonly applied = new Map(
    [...PROJECTIONS, DISPATCHER].map((p) => [p.name, new FollowedPosition()]),
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

  it('given the read models more than the allowed backlog behind, when an admission is acknowledged, then acknowledging waits until they apply it', async () => {
    const projections = new HandMovedProjections();
    projections.apply('governance', 100);
    projections.apply('tenants', 100);
    const barrier = new ReadBarrier(PROJECTIONS, projections, 1000, 50);

    expect(await isResolved(barrier.acknowledge(150, ['EvidenceAdmitted']))).toBe(true);
    const beyond = barrier.acknowledge(151, ['EvidenceAdmitted']);
    expect(await isResolved(beyond)).toBe(false);
    projections.apply('governance', 151);
    expect(await isResolved(beyond)).toBe(false); // tenants reads EvidenceAdmitted too
    projections.apply('tenants', 151);
    expect(await isResolved(beyond)).toBe(true);
  });

  it('given a follower with a bound of its own, when acknowledging runs past it, then acknowledging waits for that follower only', async () => {
    const projections = new HandMovedProjections();
    for (const name of ['governance', 'tenants', 'dispatcher']) projections.apply(name, 100);
    const barrier = new ReadBarrier([...PROJECTIONS, DISPATCHER], projections, 1000, 50);

    expect(await isResolved(barrier.acknowledge(110, ['EvidenceAdmitted']))).toBe(true);
    const beyond = barrier.acknowledge(111, ['EvidenceAdmitted']);
    expect(await isResolved(beyond)).toBe(false);
    projections.apply('dispatcher', 111);
    expect(await isResolved(beyond)).toBe(true);
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
