/**
 * An admission whose effects are late answers 503 after GOV_INTEGRATION_TIMEOUT_MS, saying which part
 * is late; the leaf stays stored and everything catches up once the hold-up is gone.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { type RunningServer, startEmbedded } from '../runtime/embedded';
import { createLogger } from '../runtime/logger';
import { type ErrorAnswer, GovClient, testConfig } from './support/governance-client';
import { tempDir } from './support/temp-dir';

describe('integration timeout', () => {
  const temp = tempDir('integration-timeout');
  let server: RunningServer;
  // The real clock: the delivery worker then runs on its own thread, so only the projection thread
  // writes to the read store while this test holds it locked.
  beforeAll(async () => {
    const config = testConfig(path.join(temp.dir, 'data'), { GOV_INTEGRATION_TIMEOUT_MS: '700' });
    server = await startEmbedded(config, createLogger('silent'));
  });
  afterAll(async () => {
    await server.close();
    temp.remove();
  });

  it('given read models held up (their store locked by another writer), when evidence is admitted, then 503 says the leaf is signed but the read models are late, and they catch up afterwards', async () => {
    const client = new GovClient(server.url);
    const { api_key: key } = await client.register();

    const blocker = new Database(server.services.config.readStoreFile);
    blocker.exec('BEGIN IMMEDIATE');
    let answer: Awaited<ReturnType<typeof client.submitEvidence>>;
    try {
      answer = await client.submitEvidence(key);
    } finally {
      blocker.exec('ROLLBACK');
      blocker.close();
    }

    expect(answer.status).toBe(503);
    const body = answer.body as ErrorAnswer;
    expect(body.error).toBe('SERVICE_UNAVAILABLE');
    expect(body.message).toMatch(/under a signed tree head, but the read models .* have not caught up/);
    expect(body.message).toMatch(/do not resubmit/);

    const leafHash = /leaf_hash=([0-9a-f]{64})/.exec(body.message)?.[1];
    expect(leafHash).toBeDefined();
    // The stored leaf reaches the read models once they can write: its proof and the tenant's status.
    await server.supervisor.catchUp();
    const proof = await client.get(`/gov/v1/log/proof?leaf_hash=${leafHash}`);
    expect(proof.status).toBe(200);
    const status = await client.get<{ trial_leaves_remaining: number }>('/governance/status', key);
    expect(status.body.trial_leaves_remaining).toBe(4);
  });
});
