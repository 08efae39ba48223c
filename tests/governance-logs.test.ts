/**
 * Over HTTP, which log an admission goes to: a test-mode tenant's to the test log, an L4 tenant's to
 * its dedicated log (its earlier leaves staying in the shared log), each 201 carrying that log's STH
 * signed by that log's key; here the logs are read from the server's own log directory. Then
 * `gov audit` of what the server wrote (three logs, a witness cosignature of the test log) is clean.
 */
import path from 'node:path';
import { checkpointNoteFromSth, type JsonSth, verifySth } from '../domain/log';
import {
  cosignatureLine,
  generateKeyPair,
  loadSignerKey,
  loadVerifierKey,
  SIGNATURE_TYPE_COSIGNATURE_V1,
} from '../merkle-core';
import { readLogKey } from '../runtime/keys/log-keys';
import { auditDataDir } from './support/audit-data-dir';
import { setTier, startTestServer, type TestServer, validEvidence } from './support/governance-client';

describe('admissions and their logs', () => {
  let t: TestServer;
  const witness = generateKeyPair('witness.logs.example', SIGNATURE_TYPE_COSIGNATURE_V1);
  /** The test log's head the test-mode tenant was handed (the last test cosigns it). */
  let testLogHead: JsonSth;
  beforeAll(async () => {
    t = await startTestServer('gov-logs', { env: { GOV_WITNESS_KEYS: witness.verifierKey } });
  });
  afterAll(async () => {
    await t?.dispose();
  });
  const keysDir = () => path.join(t.dataDir, 'keys');
  const sharedSize = () => t.server.sequencer.latest().sth.tree_size;

  it('given a test-mode tenant, when it admits, then the 201 carries an STH of the test log signed by the test log’s key, and the shared log does not grow', async () => {
    const tenant = await t.client.register({ mode: 'test' });
    const before = sharedSize();
    const admitted = await t.client.admit(tenant.api_key, validEvidence('test-mode'));
    const testKey = readLogKey(keysDir(), 'test')!;
    expect(admitted.sth.log_id).toBe(testKey.verifierKey);
    expect(await verifySth(admitted.sth, loadVerifierKey(testKey.verifierKey))).toMatchObject({ ok: true });
    expect(t.server.sequencer.source('test')!.latest().sth.tree_size).toBe(admitted.sth.tree_size);
    expect(sharedSize()).toBe(before);
    testLogHead = admitted.sth;
  });

  it('given a live tenant moved to L4, when it admits, then its leaves go to its dedicated log and its earlier leaf stays in the shared log', async () => {
    const tenant = await t.client.register();
    await setTier(t.server, tenant.tenant_id, 'L2');
    const earlier = await t.client.admit(tenant.api_key, validEvidence('before-l4'));
    expect(earlier.sth.log_id).toBe(t.server.sequencer.verifierKey);
    await setTier(t.server, tenant.tenant_id, 'L4');
    const log = `dedicated-${tenant.tenant_id.slice('ten_'.length)}`;
    const before = sharedSize();
    const later = await t.client.admit(tenant.api_key, validEvidence('after-l4'));
    const key = readLogKey(keysDir(), log)!;
    expect(later.sth.log_id).toBe(key.verifierKey);
    expect(later.leaf_index).toBe(0);
    expect(await verifySth(later.sth, loadVerifierKey(key.verifierKey))).toMatchObject({ ok: true });
    expect(sharedSize()).toBe(before);
    const shared = t.server.sequencer.source('shared')!.log;
    expect(Buffer.from(shared.leafHash(earlier.leaf_index)).toString('hex')).toBe(earlier.leaf_hash);
  });

  it('given the store the server wrote (the test log from its first start, a dedicated log, tier changes, a cosignature of the test log), when audited, then it is clean with each log’s figures', async () => {
    const cosigned = await t.client.post('/gov/v1/logs/test/witness-signatures', {
      tree_size: testLogHead.tree_size,
      cosignature: cosignatureLine(
        checkpointNoteFromSth(testLogHead),
        loadSignerKey(witness.signerKey),
        Math.floor(Date.now() / 1000),
      ),
    });
    expect(cosigned.status).toBe(200);
    await t.stop();
    const report = await auditDataDir(t.dataDir, { checks: 'all' });
    expect(report.discrepancies).toEqual([]);
    expect(report.notices).toEqual([]);
    expect(report.logs.map(({ log, kind, leaves }) => ({ log, kind, leaves }))).toEqual([
      { log: 'shared', kind: 'shared', leaves: 1 },
      { log: expect.stringMatching(/^dedicated-[0-9a-f]{24}$/), kind: 'dedicated', leaves: 1 },
      { log: 'test', kind: 'test', leaves: 1 },
    ]);
  });
});
