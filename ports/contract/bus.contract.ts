import type { Bus } from '../bus';
import type { RecordedEvent } from '../event-store';

export interface BusHarness {
  bus: Bus;
  /** Commits `count` new events for `tenant` and hands them to the bus as the forwarder would. */
  emit(tenant: string, count: number): Promise<RecordedEvent[]>;
  /** A second bus instance over the same underlying log (a restarted consumer process). */
  reopen(): Promise<Bus>;
  dispose(): Promise<void>;
}

/** The behaviour every bus adapter must have (the Kafka adapter runs this suite too). */
export function busContract(name: string, create: () => Promise<BusHarness>): void {
  describe(`bus contract: ${name}`, () => {
    let harness: BusHarness;
    beforeEach(async () => {
      harness = await create();
    });
    afterEach(async () => {
      await harness.dispose();
    });

    it('delivers every emitted event to a group, in order per tenant', async () => {
      const received: RecordedEvent[] = [];
      const consumer = await harness.bus.subscribe('g1', async (batch) => {
        received.push(...batch);
      });
      const emitted = [
        ...(await harness.emit('t1', 30)),
        ...(await harness.emit('t2', 20)),
        ...(await harness.emit('t1', 5)),
      ];
      await until(() => received.length >= emitted.length);
      await consumer.stop();
      const ids = (events: RecordedEvent[], tenant: string) =>
        events.filter((e) => e.tenant_id === tenant).map((e) => e.id);
      expect(ids(received, 't1')).toEqual(ids(emitted, 't1'));
      expect(ids(received, 't2')).toEqual(ids(emitted, 't2'));
    });

    it('redelivers a batch whose handler failed, so nothing is lost', async () => {
      const received: string[] = [];
      let failures = 0;
      const consumer = await harness.bus.subscribe('g-retry', async (batch) => {
        if (failures < 2) {
          failures += 1;
          throw new Error('receiver down');
        }
        received.push(...batch.map((e) => e.id));
      });
      const emitted = await harness.emit('t1', 10);
      await until(() => new Set(received).size >= emitted.length);
      await consumer.stop();
      expect([...new Set(received)]).toEqual(emitted.map((e) => e.id));
    });

    it('given a consumer that acknowledged some events, when it restarts, then it resumes without losing any', async () => {
      const first: string[] = [];
      const consumer = await harness.bus.subscribe('g-resume', async (batch) => {
        first.push(...batch.map((e) => e.id));
      });
      const early = await harness.emit('t1', 10);
      await until(() => first.length >= 10);
      await consumer.stop();
      const late = await harness.emit('t1', 10);

      const reopened = await harness.reopen();
      const second: string[] = [];
      const resumed = await reopened.subscribe('g-resume', async (batch) => {
        second.push(...batch.map((e) => e.id));
      });
      await until(() => second.length >= 10);
      await resumed.stop();
      await reopened.close();
      const seen = new Set([...first, ...second]);
      for (const event of [...early, ...late]) expect(seen.has(event.id)).toBe(true);
      // At least once, but an acknowledged batch is not delivered again.
      expect(second).toEqual(late.map((e) => e.id));
    });

    it('gives each group every event', async () => {
      const a: string[] = [];
      const b: string[] = [];
      const ca = await harness.bus.subscribe('ga', async (batch) => void a.push(...batch.map((e) => e.id)));
      const cb = await harness.bus.subscribe('gb', async (batch) => void b.push(...batch.map((e) => e.id)));
      const emitted = await harness.emit('t3', 15);
      await until(() => a.length >= 15 && b.length >= 15);
      await Promise.all([ca.stop(), cb.stop()]);
      expect(a).toEqual(emitted.map((e) => e.id));
      expect(b).toEqual(emitted.map((e) => e.id));
    });
  });
}

async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for deliveries');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
