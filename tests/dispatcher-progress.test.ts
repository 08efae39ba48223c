/**
 * Admissions may not run more than a bounded backlog ahead of the webhook dispatcher
 * (runtime/wiring/embedded.ts), so the main thread must learn how far the delivery thread's dispatcher got.
 */
import path from 'node:path';
import { createLogger } from '../runtime/support/logger';
import { type RunningServer, startEmbedded } from '../runtime/wiring/embedded';
import { ReportedProgress } from '../runtime/wiring/webhook-delivery';
import { GovClient, testConfig } from './support/governance-client';
import { tempDir } from './support/temp-dir';

describe('dispatcher progress on the main thread', () => {
  const temp = tempDir('dispatcher-progress');
  let server: RunningServer;
  // The real clock: the dispatcher then consumes on the delivery thread and reports its progress.
  beforeAll(async () => {
    server = await startEmbedded(testConfig(path.join(temp.dir, 'data')), createLogger('silent'));
  });
  afterAll(async () => {
    await server.close();
    temp.remove();
  });

  it('given the dispatcher on the delivery thread, when evidence is admitted, then the main thread learns that the dispatcher has handled it', async () => {
    expect(server.webhookDelivery.consumer).toBeNull();
    const client = new GovClient(server.url);
    const { api_key: key } = await client.register();
    const admitted = await client.submitEvidence(key);
    expect(admitted.status).toBe(201);

    const head = await server.services.eventStore.headPosition();
    await server.webhookDelivery.progress.waitForPosition(head);
    expect(server.webhookDelivery.progress.handledPosition()).toBeGreaterThanOrEqual(head);
  });

  it('given the delivery thread gone (failed or stopped), then nothing waits for its dispatcher any more', async () => {
    const progress = new ReportedProgress();
    progress.advance(10);
    const waiting = progress.waitForPosition(500);
    progress.abandon();
    await waiting;
    expect(progress.handledPosition()).toBeGreaterThan(Number.MAX_SAFE_INTEGER);
    await progress.waitForPosition(10 ** 12);
  });
});
