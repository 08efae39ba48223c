/**
 * The agent platform's leaves in the transparency log, against the started server: an agent's config
 * versions and passport are leaves of its owner's tenant's log as soon as create and PATCH answer,
 * served by the public log routes with their records, and their inclusion proofs verify under the
 * signed tree head with merkle-core; `gov audit` of the store stays clean with them in the tree.
 */
import path from 'node:path';
import { runAudit, sqliteAuditSource, trustFromPublishedKeys } from '../audit';
import { type JsonSth, verifySth } from '../domain/log';
import { fromHex, loadVerifierKey, verifyInclusion } from '../merkle-core';
import { readPublishedKeys } from '../runtime/keys/key-history';
import { PlatformClient, type PlatformTestServer, startPlatformTestServer } from './support/platform-client';

let server: PlatformTestServer;
let client: PlatformClient;

beforeAll(async () => {
  server = await startPlatformTestServer('gov-platform-leaves-');
  client = new PlatformClient(server);
}, 60_000);

afterAll(async () => {
  await server?.dispose();
});

async function eventsOf(agentId: string, type: string): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for await (const event of server.server.platform.eventStore.readStream(`agent-${agentId}`))
    if (event.type === type) found.push(event.data as Record<string, unknown>);
  return found;
}

async function publicGet<T>(pathAndQuery: string): Promise<{ status: number; body: T }> {
  const response = await fetch(`${server.server.url}${pathAndQuery}`);
  return { status: response.status, body: (await response.json()) as T };
}

const logBase = (log: string) => (log === 'shared' ? '/gov/v1/log' : `/gov/v1/logs/${log}`);

describe('agent config versions and passports as leaves', () => {
  it('given an agent just created and changed, then its passport and both config versions are leaves under a signed tree head at once, served with their records, their proofs verifying', async () => {
    const alice = await client.newUser('alice');
    const created = await client.request<{ agent: { agent_id: string }; passport_id: string }>(
      'POST',
      '/v1/agents',
      { cookie: alice.cookie },
      { agent_name: 'Leaf' },
    );
    expect(created.status).toBe(201);
    const agentId = created.body.agent.agent_id;
    const patched = await client.request(
      'PATCH',
      `/v1/agents/${agentId}`,
      { cookie: alice.cookie },
      { model: 'm2' },
    );
    expect(patched.status).toBe(200);

    const [passport] = await eventsOf(agentId, 'AgentPassportIssued');
    const versions = await eventsOf(agentId, 'AgentConfigVersioned');
    expect(`sha256:${passport!.leaf_hash}`).toBe(created.body.passport_id);
    const leaves = [
      { event: passport!, type: 'GOV_AGENT_PASSPORT_V1' },
      ...versions.map((event) => ({ event, type: 'GOV_AGENT_CONFIG_V1' })),
    ];
    expect(leaves).toHaveLength(3);
    // No waiting: the answers above came after the leaves were under a signed tree head.
    for (const { event, type } of leaves) {
      const base = logBase(event.log as string);
      const proof = await publicGet<{
        leaf_index: number;
        tree_size: number;
        root_hash: string;
        audit_path: string[];
      }>(`${base}/proof?leaf_hash=${event.leaf_hash}`);
      expect(proof.status).toBe(200);
      const sth = await publicGet<JsonSth & { log: string }>(`${base}/sth?tree_size=${proof.body.tree_size}`);
      expect(sth.body.root_hash).toBe(proof.body.root_hash);
      const keys = await publicGet<{ logs?: unknown }>('/gov/v1/log/keys');
      expect(keys.status).toBe(200);
      const logKey = loadVerifierKey(sth.body.log_id);
      expect(await verifySth(sth.body, logKey)).toMatchObject({ ok: true });
      expect(
        verifyInclusion(
          proof.body.leaf_index,
          proof.body.tree_size,
          fromHex(event.leaf_hash as string),
          proof.body.audit_path.map(fromHex),
          fromHex(sth.body.root_hash),
        ),
      ).toEqual({ ok: true });
      const leaf = await publicGet<Record<string, unknown>>(`${base}/leaf?index=${proof.body.leaf_index}`);
      expect(leaf.status).toBe(200);
      expect(leaf.body).toMatchObject({
        log: event.log,
        leaf_hash: event.leaf_hash,
        leaf_type: type,
        artifact_hash: null,
        record: event.record,
      });
      // The named log serves it too.
      const named = await publicGet<Record<string, unknown>>(
        `/gov/v1/logs/${event.log}/leaf?index=${proof.body.leaf_index}`,
      );
      expect(named.body).toMatchObject({ leaf_hash: event.leaf_hash, leaf_type: type });
    }
    // The passport names no owner: neither the email nor the user id.
    expect(JSON.stringify(passport!.record)).not.toContain(alice.email);
    expect(JSON.stringify(passport!.record)).not.toMatch(/usr_[0-9a-f]{24}/);
  });

  it('given platform leaves in the tree, then an audit of the store (all checks) finds nothing and checks their signatures', async () => {
    const { dataDir } = server;
    const report = await runAudit(sqliteAuditSource(path.join(dataDir, 'events.db')), {
      trust: trustFromPublishedKeys(readPublishedKeys(path.join(dataDir, 'keys'))),
      workers: 0,
      checks: 'all',
    });
    expect(report.discrepancies).toEqual([]);
    expect(report.signatures).toBeGreaterThanOrEqual(3);
    // The log structure alone, as a monitor checks it: the platform leaves take the stored-text fast path.
    const logOnly = await runAudit(sqliteAuditSource(path.join(dataDir, 'events.db')), {
      trust: trustFromPublishedKeys(readPublishedKeys(path.join(dataDir, 'keys'))),
      workers: 0,
      checks: 'log',
    });
    expect(logOnly.discrepancies).toEqual([]);
  });
});
