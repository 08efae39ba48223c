/**
 * Read models that are late: an admission is acknowledged once durable and signed, and a read that
 * must see it answers 503 after GOV_INTEGRATION_TIMEOUT_MS, saying which read model is late; the
 * leaf stays stored and everything catches up once the hold-up is gone.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { createLogger } from '../runtime/support/logger';
import { type RunningServer, startEmbedded } from '../runtime/wiring/embedded';
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

  it('given read models held up (their store locked by another writer), when evidence is admitted, then it is acknowledged once signed; its proof answers, reads of the read models answer 503 with Retry-After until they catch up, then show it', async () => {
    const client = new GovClient(server.url);
    const { api_key: key } = await client.register();

    const blocker = new Database(server.services.config.readStoreFile);
    blocker.exec('BEGIN IMMEDIATE');
    let admitted: Awaited<ReturnType<typeof client.submitEvidence>>;
    let heldReport: Awaited<ReturnType<typeof client.get>>;
    let heldProof: Awaited<ReturnType<typeof client.get>>;
    try {
      admitted = await client.submitEvidence(key);
      expect(admitted.status).toBe(201);
      const { artifact_hash, leaf_hash } = admitted.body as { artifact_hash: string; leaf_hash: string };
      // The proof comes from the log itself; the report from a read model that has not applied it.
      heldProof = await client.get(`/gov/v1/log/proof?leaf_hash=${leaf_hash}`);
      heldReport = await client.get(`/governance/report/${artifact_hash}`, key);
    } finally {
      blocker.exec('ROLLBACK');
      blocker.close();
    }

    expect(heldProof.status).toBe(200);
    expect(heldReport.status).toBe(503);
    expect(heldReport.headers.get('retry-after')).toBe('1');
    const body = heldReport.body as ErrorAnswer;
    expect(body.error).toBe('SERVICE_UNAVAILABLE');
    expect(body.message).toMatch(
      /read model '.+' is still applying writes .* nothing is lost, retry shortly/,
    );

    // Once the read models can write, the same reads show the admission without waiting for anything.
    const { artifact_hash } = admitted.body as { artifact_hash: string };
    const report = await client.get(`/governance/report/${artifact_hash}`, key);
    expect(report.status).toBe(200);
    const status = await client.get<{ trial_leaves_remaining: number }>('/governance/status', key);
    expect(status.body.trial_leaves_remaining).toBe(4);
  });
});
