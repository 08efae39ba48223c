/**
 * A graceful stop of the embedded server under keep-alive load: clients that keep sending on their
 * open connections do not hold the server until the grace period ends. Idle connections close at
 * once, each in-flight request is answered whole (with `Connection: close`) and its connection closed,
 * so the stop takes about as long as the slowest in-flight request; every acknowledged leaf is stored.
 */
import { collect } from '../ports/contract/event-store.contract';
import { AdmissionLoad } from './support/admission-load';
import { startTestServer, type TestServer } from './support/governance-client';
import { unlimitedInSharedLog } from './support/unlimited-tenant';

const GRACE_MS = 30_000;

describe('graceful stop under keep-alive load', () => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer('gov-graceful-stop', { env: { GOV_SHUTDOWN_GRACE_MS: String(GRACE_MS) } });
  });
  afterAll(async () => {
    await t?.dispose();
  });

  it(`given 4 keep-alive connections submitting evidence back to back, when the server is stopped, then it stops within 2 s (the grace period is ${GRACE_MS / 1000} s), no answer is cut, and every acknowledged leaf is stored`, async () => {
    const tenant = await t.client.register();
    await unlimitedInSharedLog(t.server, tenant.tenant_id);
    const client = t.client;
    const load = new AdmissionLoad({
      targets: () => [client],
      apiKey: tenant.api_key,
      concurrency: 4,
    }).start();
    try {
      await load.admitMore(10);
      const started = performance.now();
      await t.stop();
      const stoppedInMs = performance.now() - started;
      await load.stop();

      expect(stoppedInMs).toBeLessThan(2000);
      // Status 0: no answer at all — refused, or closed before a response began. undici says
      // `terminated` for a response cut after it began, which a graceful stop must never do.
      expect(load.others.filter((other) => other.status !== 0 || /terminated/.test(other.text))).toEqual([]);
    } finally {
      await load.stop();
    }

    await t.start();
    const stored = new Set(
      (await collect(t.server.services.eventStore.readAll()))
        .filter((event) => event.type === 'EvidenceAdmitted')
        .map((event) => (event.data as { leaf_hash: string }).leaf_hash),
    );
    expect(load.admitted.length).toBeGreaterThanOrEqual(10);
    expect(load.admitted.filter((admitted) => !stored.has(admitted.leaf_hash))).toEqual([]);
  });
});
