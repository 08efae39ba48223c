/**
 * The embedded server's read-model projectors on their own thread (GOV_PROJECTION_THREAD=1, the
 * default): read-your-write holds across the threads, the projector metrics are the main thread's,
 * and a thread that dies is started again without losing an answer.
 */

import { ProjectionSupervisor } from '../../projectors/engine/supervisor';
import { startTestServer, type TestServer } from '../../tests/support/governance-client';
import { ProjectionThread } from './threaded-projections';

describe('read-model projectors on a thread of their own', () => {
  let t: TestServer;
  afterEach(async () => t?.dispose());

  it('given the default configuration, when evidence is admitted, then its report is readable at once and the projector metrics count it', async () => {
    t = await startTestServer('projection-thread');
    expect(t.server.supervisor).toBeInstanceOf(ProjectionThread);
    const { api_key: key } = await t.client.register();
    const admitted = await t.client.admit(key);

    const report = await t.client.get(`/governance/report/${admitted.artifact_hash}`, key);
    expect(report.status).toBe(200);
    const metrics = await t.client.get('/v1/metrics');
    const applied = /gov_projector_events_total\{projector="governance@g1"\} (\d+)/.exec(metrics.text);
    expect(Number(applied?.[1])).toBeGreaterThanOrEqual(1);
    const checkpoint = /gov_projector_checkpoint_position\{projector="governance@g1"\} (\d+)/.exec(
      metrics.text,
    );
    expect(Number(checkpoint?.[1])).toBeGreaterThan(0);
  });

  it('given a projection thread that exits, when the next evidence arrives, then the thread is started again and the admission is answered', async () => {
    t = await startTestServer('projection-thread-exit');
    const { api_key: key } = await t.client.register();
    await t.client.admit(key);
    const projections = t.server.supervisor as ProjectionThread;
    // biome-ignore lint/complexity/useLiteralKeys: the test ends the private thread to play a crash
    await projections['thread']!.terminate();

    const admitted = await t.client.admit(key);
    const report = await t.client.get(`/governance/report/${admitted.artifact_hash}`, key);
    expect(report.status).toBe(200);
    const status = await t.client.get<{ trial_leaves_remaining: number }>('/governance/status', key);
    expect(status.body.trial_leaves_remaining).toBe(3);
  });

  it('given GOV_PROJECTION_THREAD=0, when evidence is admitted, then the projectors run inline with the same answers', async () => {
    t = await startTestServer('projection-inline', { env: { GOV_PROJECTION_THREAD: '0' } });
    expect(t.server.supervisor).toBeInstanceOf(ProjectionSupervisor);
    const { api_key: key } = await t.client.register();
    const admitted = await t.client.admit(key);
    expect((await t.client.get(`/governance/report/${admitted.artifact_hash}`, key)).status).toBe(200);
  });
});
