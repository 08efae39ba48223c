/**
 * Fault: the wall clock jumps. The embedded server runs in-process on an injected clock that the test
 * moves forward by hours (across UTC midnight and past a trial's 72-hour window) and steps back by
 * hours (an NTP correction, a VM restored from a snapshot), under admission load. Daily allowances must
 * reset at each new UTC day and hold exactly within one, the trial window must close, signed tree heads
 * must never be timestamped before an earlier head (also across a restart), and every promise holds.
 */
import { AdmissionLoad } from '../support/admission-load';
import { expectPromisesKept } from '../support/fault-invariants';
import {
  HOUR_MS,
  MINUTE_MS,
  type Registration,
  setTier,
  startOfUtcDay,
  startTestServer,
  type TestServer,
  validEvidence,
} from '../support/governance-client';
import { until } from '../support/service-processes';
import { WEBHOOK_SECRET } from '../support/tenant-setup';
import { unlimitedInSharedLog } from '../support/unlimited-tenant';
import { WebhookReceiver } from '../support/webhook-receiver';

const DAILY_LEAVES = 25;

describe('fault: clock jumps under load', () => {
  let t: TestServer;
  let receiver: WebhookReceiver;
  let tenant: Registration;
  const loads: AdmissionLoad[] = [];

  beforeAll(async () => {
    t = await startTestServer('gov-fault-clock', {
      env: { GOV_WEBHOOK_ALLOW: '127.0.0.1', GOV_SHUTDOWN_GRACE_MS: '500' },
    });
    receiver = await WebhookReceiver.start();
    tenant = await t.client.register();
    await setTier(t.server, tenant.tenant_id, 'L2', String(DAILY_LEAVES));
    const hook = await t.client.post(
      '/webhooks',
      { url: receiver.url, events: ['leaf_admitted'], secret: WEBHOOK_SECRET },
      tenant.api_key,
    );
    expect(hook.status).toBe(201);
  });

  afterAll(async () => {
    await Promise.all(loads.map((load) => load.stop()));
    await receiver?.close();
    await t?.dispose();
  });

  const startLoad = () => {
    const load = new AdmissionLoad({
      targets: () => [t.client],
      apiKey: tenant.api_key,
      concurrency: 6,
      log: () => t.client,
    }).start();
    loads.push(load);
    return load;
  };
  const promisesKept = () =>
    expectPromisesKept({
      log: t.client,
      admitted: loads.flatMap((load) => load.admitted),
      servedHeads: loads.flatMap((load) => load.servedHeads),
      webhooks: { tenantId: tenant.tenant_id, receiver, secret: WEBHOOK_SECRET },
      audit: { dataDir: t.dataDir },
    });

  it(`given an L2 tenant allowed ${DAILY_LEAVES} leaves a day under load, and a trial tenant, when the clock jumps forward across UTC midnight and past 72 hours, then each UTC day admits exactly ${DAILY_LEAVES}, the trial window closes, and every promise holds`, async () => {
    const registeredAt = t.clock.now();
    const trial = await t.client.register();
    expect((await t.client.submitEvidence(trial.api_key, validEvidence('trial'))).status).toBe(201);

    const load = startLoad();
    const dailyRefusals = () =>
      load.others.filter((o) => o.status === 429 && o.text.includes('daily allowance')).length;
    /** The day's allowance is admitted, then refusals follow and nothing more is admitted. */
    const allowanceUsedUp = async (day: number) => {
      await load.admitMore(DAILY_LEAVES * day - load.admitted.length, 30_000);
      const refused = dailyRefusals();
      await until(() => dailyRefusals() >= refused + 5, `day ${day}'s allowance to be refused`, 30_000);
      expect(load.admitted).toHaveLength(DAILY_LEAVES * day);
    };
    try {
      await allowanceUsedUp(1);
      // Hours forward, across midnight UTC, while requests are in flight: a new allowance.
      t.clock.set(startOfUtcDay(t.clock.now()) + 24 * HOUR_MS + MINUTE_MS);
      await allowanceUsedUp(2);
      expect((await t.client.submitEvidence(trial.api_key, validEvidence('trial'))).status).toBe(201);
      // Past the trial's 72-hour window (two more midnights): the trial closes, the allowance resets.
      t.clock.set(registeredAt + 72 * HOUR_MS);
      await allowanceUsedUp(3);
    } finally {
      await load.stop();
    }
    const closed = await t.client.submitEvidence(trial.api_key, validEvidence('trial'));
    expect(closed.status).toBe(409);
    expect(closed.body.error).toBe('TRIAL_EXHAUSTED');
    // Nothing but the daily allowance refused anything.
    expect(load.others.filter((o) => !(o.status === 429 && o.text.includes('daily allowance')))).toEqual([]);

    await promisesKept();
  }, 120_000);

  it('given admissions under load, when the clock steps back hours, and the server restarts while it is behind, then no tree head is timestamped before an earlier one and every promise holds', async () => {
    await unlimitedInSharedLog(t.server, tenant.tenant_id);
    const load = startLoad();
    try {
      await load.admitMore(20);
      t.clock.stepBack(3 * HOUR_MS);
      await load.admitMore(20);
      // A restart rebuilds the sequencer from the store while the clock is still behind.
      await t.restart();
      await load.admitMore(20);
      t.clock.stepBack(HOUR_MS);
      await load.admitMore(20);
    } finally {
      await load.stop();
    }
    const report = await promisesKept();
    expect(report.heads).toBeGreaterThan(4);
  }, 120_000);

  it('given an L2 tenant allowed 3 leaves a day that used them on day D and 2 on D+1, when the clock steps back from 00:05 on D+1 to 23:58 on D and then catches up, then one more leaf is admitted in all, and the refusal waits for the end of D+1', async () => {
    const stepped = await t.client.register();
    await setTier(t.server, stepped.tenant_id, 'L2', '3');
    const submitted = async (count: number) => {
      const statuses: number[] = [];
      for (let i = 0; i < count; i++)
        statuses.push((await t.client.submitEvidence(stepped.api_key, validEvidence('stepped'))).status);
      return statuses;
    };
    // A midnight at least a day ahead, so the test clock (which only goes forward) can reach 23:50 before it.
    const midnight = startOfUtcDay(t.clock.now()) + 48 * HOUR_MS;
    t.clock.set(midnight - 10 * MINUTE_MS);
    expect(await submitted(4)).toEqual([201, 201, 201, 429]);
    t.clock.set(midnight + 5 * MINUTE_MS);
    expect(await submitted(2)).toEqual([201, 201]);

    t.clock.stepBack(7 * MINUTE_MS); // 23:58 on D: the tenant's day stays D+1, with 2 leaves counted
    expect(await submitted(2)).toEqual([201, 429]);
    const refused = await t.client.submitEvidence(stepped.api_key, validEvidence('stepped'));
    expect(refused.body.message).toMatch(/daily allowance of 3 leaves is used up/);
    expect(refused.headers.get('retry-after')).toBe(String(2 * 60 + 24 * 60 * 60));
    // A 201 answers once the read models hold the leaf, so the account already shows all three.
    const account = await t.client.get<{ limits: { leaves_today: number } }>('/account', stepped.api_key);
    expect(account.body.limits.leaves_today).toBe(3);

    t.clock.set(midnight + 6 * MINUTE_MS); // caught up: still D+1, whose 3 leaves are used
    expect(await submitted(2)).toEqual([429, 429]);
  }, 60_000);
});
