/**
 * WebSocket frames share the dispatcher: on a real server the dispatcher consumes on the delivery
 * thread, and a frame for a socket connected to the main thread goes straight to it.
 */
import path from 'node:path';
import { loadConfig } from '../runtime/config/config';
import { createLogger } from '../runtime/support/logger';
import { type RunningServer, startEmbedded } from '../runtime/wiring/embedded';
import { GovClient, validEvidence } from './support/governance-client';
import { tempDir } from './support/temp-dir';
import { WebhookReceiver } from './support/webhook-receiver';

describe('frames from the delivery thread', () => {
  let server: RunningServer;
  let receiver: WebhookReceiver;
  let client: GovClient;
  let remove: () => void;

  beforeAll(async () => {
    const temp = tempDir('gov-frames');
    remove = temp.remove;
    receiver = await WebhookReceiver.start();
    // No injected clock: deliveries (and the dispatcher's consumer) run on their own thread.
    const config = loadConfig({
      GOV_PORT: '0',
      GOV_PLATFORM_PORT: '0',
      GOV_HOST: '127.0.0.1',
      GOV_DATA_DIR: path.join(temp.dir, 'data'),
      GOV_WEBHOOK_ALLOW: '127.0.0.1',
    });
    server = await startEmbedded(config, createLogger('silent'));
    client = new GovClient(server.url);
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
    remove();
  });

  it('given a tenant with a socket connected and a leaf_admitted webhook, when its evidence is admitted, then the socket gets the frame once, and another tenant gets nothing', async () => {
    expect(server.webhookDelivery.consumer).toBeNull();
    const tenant = await client.register();
    const other = await client.register();
    for (const { api_key } of [tenant, other])
      expect(
        (await client.post('/webhooks', { url: receiver.url, events: ['leaf_admitted'] }, api_key)).status,
      ).toBe(201);
    const frames: string[] = [];
    const otherFrames: string[] = [];
    server.webhookDelivery.fanout.subscribe(tenant.tenant_id, { send: (frame) => frames.push(frame) });
    server.webhookDelivery.fanout.subscribe(other.tenant_id, { send: (frame) => otherFrames.push(frame) });

    const admitted = await client.submitEvidence(tenant.api_key, validEvidence('frames-1'));
    expect(admitted.status).toBe(201);
    await receiver.waitFor((all) => all.some((d) => d.body.leaf_hash === admitted.body.leaf_hash));
    const deadline = Date.now() + 5000;
    while (frames.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));

    expect(frames.map((frame) => JSON.parse(frame))).toEqual([
      expect.objectContaining({ type: 'leaf_admitted', leaf_hash: admitted.body.leaf_hash }),
    ]);
    expect(otherFrames).toEqual([]);
  });

  it('given a socket that unsubscribed, when the tenant has another admission, then no frame crosses for it', async () => {
    const tenant = await client.register();
    await client.post('/webhooks', { url: receiver.url, events: ['leaf_admitted'] }, tenant.api_key);
    const frames: string[] = [];
    const unsubscribe = server.webhookDelivery.fanout.subscribe(tenant.tenant_id, {
      send: (f) => frames.push(f),
    });
    unsubscribe();

    const admitted = await client.submitEvidence(tenant.api_key, validEvidence('frames-2'));
    await receiver.waitFor((all) => all.some((d) => d.body.leaf_hash === admitted.body.leaf_hash));
    await new Promise((r) => setTimeout(r, 100));

    expect(frames).toEqual([]);
  });
});
