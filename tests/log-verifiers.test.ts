/**
 * Every log passes the verifiers the shared log passes, each at its own URL and under its own key: for
 * the shared log, the test log and a dedicated log, docs/verify-leaf.mjs (the README's verifier:
 * node:crypto only, no code of this project) verifies every leaf under the log's pinned key and
 * refuses it under another log's; merkle-core's verifiers check the log's STHs and checkpoint, every
 * inclusion proof, consistency between every pair of heads and each leaf's record; and its C2SP tiles
 * are its leaves: the hash tile their hashes, the entry bundle their records, the checkpoint's root
 * recomputed from them.
 */
import path from 'node:path';
import { SHARED_LOG_NAME } from '../domain/log';
import {
  CompactRange,
  decodeEntryBundle,
  entryBundlePath,
  fromHex,
  leafHash,
  tilePath,
  toHex,
} from '../merkle-core';
import { readLogKey } from '../runtime/keys/log-keys';
import {
  type AdmittedEvidence,
  LogVerifier,
  setTier,
  startTestServer,
  type TestServer,
  validEvidence,
} from './support/governance-client';
import { verifyLeaf } from './support/verify-leaf';

/** Leaves per log: enough for inclusion proofs with every shape of step. */
const LEAVES = 7;

describe('every log passes the verifiers the shared log passes', () => {
  let t: TestServer;
  let dedicated: string;
  const admitted = new Map<string, AdmittedEvidence[]>();

  beforeAll(async () => {
    t = await startTestServer('gov-log-verifiers');
    const live = await t.client.register();
    const testMode = await t.client.register({ mode: 'test' });
    const l4 = await t.client.register();
    // L2: more leaves than a trial's five.
    await setTier(t.server, live.tenant_id, 'L2');
    await setTier(t.server, testMode.tenant_id, 'L2');
    await setTier(t.server, l4.tenant_id, 'L4');
    dedicated = `dedicated-${l4.tenant_id.slice('ten_'.length)}`;
    for (const [log, key] of [
      [SHARED_LOG_NAME, live.api_key],
      ['test', testMode.api_key],
      [dedicated, l4.api_key],
    ] as const) {
      const leaves: AdmittedEvidence[] = [];
      for (let i = 0; i < LEAVES; i++) leaves.push(await t.client.admit(key, validEvidence(`${log}-${i}`)));
      admitted.set(log, leaves);
    }
  }, 60_000);
  afterAll(async () => {
    await t?.dispose();
  });

  const logs = () => [SHARED_LOG_NAME, 'test', dedicated];
  /** The log's path on the server: the shared log keeps /gov/v1/log. */
  const basePath = (log: string) => (log === SHARED_LOG_NAME ? '/gov/v1/log' : `/gov/v1/logs/${log}`);
  /** The log's key as its operator publishes it (the keys folder), never as the server answers it. */
  const pinnedKey = (log: string) =>
    log === SHARED_LOG_NAME
      ? t.server.sequencer.verifierKey
      : readLogKey(path.join(t.dataDir, 'keys'), log)!.verifierKey;

  it('given each log’s leaves, then each is in its own log from index 0', () => {
    for (const log of logs())
      expect(admitted.get(log)!.map((a) => [a.sth.log_id, a.leaf_index])).toEqual(
        Array.from({ length: LEAVES }, (_, i) => [pinnedKey(log), i]),
      );
  });

  it.each([
    ['shared', () => SHARED_LOG_NAME],
    ['test', () => 'test'],
    ['dedicated', () => dedicated],
  ])(
    'docs/verify-leaf.mjs verifies every leaf of the %s log at its URL under its key, and refuses them under another log’s',
    async (_kind, logOf) => {
      const log = logOf();
      const url = `${t.server.url}${basePath(log)}`;
      const root = admitted.get(log)!.at(-1)!.sth.root_hash;
      for (let index = 0; index < LEAVES; index++) {
        const run = await verifyLeaf(url, index, pinnedKey(log));
        expect({ index, ...run }).toMatchObject({ index, code: 0, stderr: '' });
        expect(run.stdout).toContain(`VERIFIED leaf ${index} `);
        expect(run.stdout).toContain(`of size ${LEAVES}, root ${root}`);
      }
      const other = logs().find((name) => name !== log)!;
      const refused = await verifyLeaf(url, 0, pinnedKey(other));
      expect(refused).toMatchObject({ code: 1, stdout: '' });
      expect(refused.stderr).toContain('NOT VERIFIED');
    },
  );

  it.each([
    ['shared', () => SHARED_LOG_NAME],
    ['test', () => 'test'],
    ['dedicated', () => dedicated],
  ])(
    "merkle-core's verifiers accept the %s log: its STHs and checkpoint, each leaf's proof and record, and consistency between every pair of heads",
    async (_kind, logOf) => {
      const log = logOf();
      const verifier = new LogVerifier(() => t.client, basePath(log));
      expect((await verifier.logKey()).text).toBe(pinnedKey(log));
      for (const leaf of admitted.get(log)!) await verifier.checkAdmission(leaf);
      expect((await verifier.latest()).tree_size).toBe(LEAVES);
      expect(await verifier.checkAllConsistency()).toBeGreaterThanOrEqual(LEAVES - 1);
    },
  );

  it.each([
    ['shared', () => SHARED_LOG_NAME],
    ['test', () => 'test'],
    ['dedicated', () => dedicated],
  ])(
    'the %s log’s C2SP tiles are its leaves: the hash tile their hashes, the entry bundle their records, the root recomputed from them',
    async (_kind, logOf) => {
      const log = logOf();
      const hashes = admitted.get(log)!.map((a) => fromHex(a.leaf_hash));
      const get = async (resource: string) => {
        const res = await fetch(`${t.server.url}${basePath(log)}/${resource}`);
        expect({ resource, status: res.status }).toEqual({ resource, status: 200 });
        return new Uint8Array(await res.arrayBuffer());
      };
      const tile = await get(tilePath({ level: 0, index: 0, width: LEAVES }));
      expect(toHex(tile)).toBe(hashes.map(toHex).join(''));
      const entries = decodeEntryBundle(await get(entryBundlePath(0, LEAVES)));
      expect(entries.map((entry) => toHex(leafHash(entry)))).toEqual(hashes.map(toHex));
      const range = new CompactRange();
      for (const hash of hashes) range.append(hash);
      const checkpoint = Buffer.from(await get('checkpoint'))
        .toString('utf8')
        .split('\n');
      expect(checkpoint.slice(1, 3)).toEqual([String(LEAVES), Buffer.from(range.root()).toString('base64')]);
    },
  );
});
