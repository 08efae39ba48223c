/**
 * The README's five-minute tour, kept true: its registration and evidence bodies are read from
 * README.md and sent to a server, and docs/verify-leaf.mjs (which the tour runs) verifies every leaf
 * from the public log alone, and refuses a leaf, a proof or a key that is not the log's.
 */
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { REPO_ROOT } from './support/children';
import {
  type AdmittedEvidence,
  type GateFailure,
  type Registration,
  startTestServer,
  type TestServer,
} from './support/governance-client';
import { verifyLeaf } from './support/verify-leaf';

const README = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');

function tourBody(pattern: RegExp): Record<string, unknown> {
  const match = pattern.exec(README);
  if (!match) throw new Error(`README.md has no ${pattern}`);
  return JSON.parse(match[1]!) as Record<string, unknown>;
}

/** A log key in signed-note format with the log's name and key id but another Ed25519 public key. */
function impostorKey(logKey: string): string {
  const [name, keyId] = logKey.split('+');
  const x = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x!;
  return `${name}+${keyId}+${Buffer.concat([Buffer.from([1]), Buffer.from(x, 'base64url')]).toString('base64')}`;
}

describe("the README's tour", () => {
  let t: TestServer;
  let tenant: Registration;
  let logKey: string;
  const admitted: AdmittedEvidence[] = [];
  const evidence = tourBody(/^EVIDENCE='(\{[\s\S]*?\n\})'$/m);

  beforeAll(async () => {
    t = await startTestServer('gov-readme-tour');
    tenant = await t.client.register(tourBody(/-d '(\{"email":[^']*\})'/));
    // A Trial tenant's five leaves: a tree whose proofs have every shape of step.
    for (let i = 0; i < 5; i++) admitted.push(await t.client.admit(tenant.api_key, evidence));
    logKey = ((await t.client.get('/gov/v1/log/keys')).body as { log: string }).log;
  });
  afterAll(() => t.dispose());

  it('registers with its body and admits its evidence', () => {
    expect(tenant.tier).toBe('L1');
    expect(admitted.map((a) => a.leaf_index)).toEqual([0, 1, 2, 3, 4]);
  });

  it('refuses its evidence with G1 under the minimum, and makes no leaf', async () => {
    const failing = structuredClone(evidence) as { gate_results: { G1: Record<string, unknown> } };
    failing.gate_results.G1.confidence_interval_lower = 0.5;
    // A tenant of its own: the tour's tenant has used its five trial leaves.
    const other = await t.client.register({ email: 'second@example.com' });
    const res = await t.client.submitEvidence(other.api_key, failing);
    expect(res.status).toBe(422);
    expect((res.body as GateFailure).gates_failed).toEqual(['G1']);
    expect(((await t.client.get('/gov/v1/log/sth')).body as { tree_size: number }).tree_size).toBe(5);
  });

  it('verifies every leaf with docs/verify-leaf.mjs under the pinned log key', async () => {
    const root = admitted[4]!.sth.root_hash;
    for (const { leaf_index } of admitted) {
      const run = await verifyLeaf(t.server.url, leaf_index, logKey);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toContain(`VERIFIED leaf ${leaf_index} `);
      expect(run.stdout).toContain(`of size 5, root ${root}`);
    }
    // The same log by its URL, at either of its paths (a leaf's log_url names its log).
    for (const url of [`${t.server.url}/gov/v1/log`, `${t.server.url}/gov/v1/logs/shared`]) {
      const run = await verifyLeaf(url, 3, logKey);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toContain(`VERIFIED leaf 3 `);
    }
  });

  it('refuses a key that is not the log’s, and a leaf beyond the signed size', async () => {
    const impostor = await verifyLeaf(t.server.url, 0, impostorKey(logKey));
    expect(impostor).toMatchObject({ code: 1, stdout: '' });
    expect(impostor.stderr).toContain('NOT VERIFIED: checkpoint signature');
    const beyond = await verifyLeaf(t.server.url, 5, logKey);
    expect(beyond.code).toBe(1);
    expect(beyond.stderr).toContain('leaf 5 is not under the checkpoint of size 5');
  });

  describe('behind a log that alters its answers', () => {
    let proxy: http.Server;
    let proxyUrl: string;
    let alter: 'record' | 'proof' | null = null;

    beforeAll(async () => {
      proxy = http.createServer(async (req, res) => {
        const upstream = await fetch(`${t.server.url}${req.url}`);
        let text = await upstream.text();
        if (alter === 'record' && req.url!.startsWith('/gov/v1/log/leaf')) {
          const leaf = JSON.parse(text) as { record: { subject_id: string } };
          leaf.record.subject_id = 'someone-else';
          text = JSON.stringify(leaf);
        }
        if (alter === 'proof' && req.url!.startsWith('/gov/v1/log/proof')) {
          const proof = JSON.parse(text) as { audit_path: string[] };
          proof.audit_path[0] = admitted[4]!.leaf_hash;
          text = JSON.stringify(proof);
        }
        res.writeHead(upstream.status, {
          'content-type': upstream.headers.get('content-type') ?? 'text/plain',
        });
        res.end(text);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

    it('passes the answers through unaltered: verified', async () => {
      alter = null;
      expect((await verifyLeaf(proxyUrl, 1, logKey)).code).toBe(0);
    });

    it('refuses a leaf whose record was changed', async () => {
      alter = 'record';
      const run = await verifyLeaf(proxyUrl, 1, logKey);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('the record does not hash to leaf_hash');
    });

    it('refuses an inclusion proof that does not lead to the signed root', async () => {
      alter = 'proof';
      const run = await verifyLeaf(proxyUrl, 1, logKey);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('the inclusion proof does not lead to the signed root');
    });
  });
});
