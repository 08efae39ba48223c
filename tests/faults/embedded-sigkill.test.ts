/**
 * Fault: the all-in-one server is SIGKILLed at random moments under concurrent admission load, and
 * started again on the same data folder each time. Afterwards every promise holds (see
 * tests/support/fault-invariants.ts).
 */
import path from 'node:path';
import { EmbeddedUnderLoad } from '../support/embedded-under-load';
import { tempDir } from '../support/temp-dir';

const KILLS = 4;

describe('fault: SIGKILL of the embedded server under load', () => {
  const temp = tempDir('gov-fault-embedded');
  let scene: EmbeddedUnderLoad | null = null;

  afterAll(async () => {
    await scene?.dispose();
    temp.remove();
  });

  it(`given admissions in flight and a registered webhook, when the server is SIGKILLed ${KILLS} times at random moments and restarted on its data, then every promise holds`, async () => {
    scene = await EmbeddedUnderLoad.start(path.join(temp.dir, 'data'));
    const { load } = scene;
    try {
      for (let kill = 0; kill < KILLS; kill++) {
        // A random moment: after a random number of acknowledgements, then a random delay.
        await load.admitMore(5 + Math.floor(Math.random() * 30));
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 200));
        await scene.killAndRestart();
      }
      await load.admitMore(20);
    } finally {
      await load.stop();
    }
    // The kills hit requests in flight: some got no answer at all.
    expect(load.statusCounts()[0]).toBeGreaterThan(0);

    const report = await scene.promisesKept();
    expect(report.treeSize).toBeGreaterThanOrEqual(load.admitted.length);
  }, 150_000);
});
