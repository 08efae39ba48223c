/**
 * Acceptance: `gov witness` follows a real log over HTTP and cosigns its checkpoints (C2SP
 * tlog-cosignature); the log accepts cosignatures only from the witness keys in GOV_WITNESS_KEYS and
 * serves them in its STH and checkpoint. Against a stand-in log that forks or signs badly, the witness
 * refuses: exit 3, a report, no signature, no state change.
 */
import fs from 'node:fs';
import path from 'node:path';
import { checkpointNoteFromSth, type JsonSth } from '../domain/log';
import { validateResponse } from '../event-schemas';
import {
  cosignatureLine,
  generateKeyPair,
  loadSignerKey,
  loadVerifierKey,
  type NoteSigner,
  SIGNATURE_TYPE_COSIGNATURE_V1,
  toHex,
  type VerifierKey,
  verifyCheckpoint,
  verifyCosignature,
} from '../merkle-core';
import { ConfigError, loadConfig } from '../runtime/config/config';
import { exited, type GovRun, lines, runGov, spawnGov, waitForLines } from './support/children';
import { checkpointOf, FakeLogKey, FakeLogServer, fakeTree } from './support/fake-log';
import {
  type ErrorAnswer,
  type Registration,
  setTier,
  startTestServer,
  type TestServer,
  validEvidence,
} from './support/governance-client';
import { tempDir } from './support/temp-dir';

interface WitnessSignatureAnswer {
  tree_size: number;
  witness_key: string;
  timestamp: number;
  cosignature: string;
  sth: JsonSth;
}

const SIGNATURES = '/gov/v1/log/witness-signatures';

function gov(...args: string[]): Promise<GovRun> {
  return runGov(args);
}

/** The signature line with one byte of its Ed25519 signature changed. */
function withFlippedSignatureByte(line: string): string {
  const space = line.lastIndexOf(' ');
  const blob = Buffer.from(line.slice(space + 1, -1), 'base64');
  // Key ID (4 bytes), timestamp (8), then the signature.
  blob[40]! ^= 0x01;
  return `${line.slice(0, space + 1)}${blob.toString('base64')}\n`;
}

/** The one JSON object a `--once --json` run prints. */
function outcomeOf(run: GovRun): Record<string, unknown> {
  return JSON.parse(run.stdout.trim()) as Record<string, unknown>;
}

describe('gov witness', () => {
  let temp: { dir: string; remove: () => void };
  let keyFile: string;
  let witnessKey: VerifierKey;
  let witnessSigner: NoteSigner;

  beforeAll(async () => {
    temp = tempDir('gov-witness');
    keyFile = path.join(temp.dir, 'witness.key');
    const keygen = await gov('witness', 'keygen', '--out', keyFile, '--name', 'witness.test', '--json');
    expect({ code: keygen.code, stderr: keygen.stderr }).toEqual({ code: 0, stderr: '' });
    witnessKey = loadVerifierKey(outcomeOf(keygen).verifier_key as string);
    witnessSigner = loadSignerKey(fs.readFileSync(keyFile, 'utf8'));
  });
  afterAll(() => temp.remove());

  describe('following a log that trusts it', () => {
    let t: TestServer;
    let tenant: Registration;
    let logKey: VerifierKey;
    let stateFile: string;
    /** The cosignature line the first round made, as the log recorded it. */
    let firstCosignature: string;
    let firstSize: number;

    const witnessOnce = () =>
      gov(
        'witness',
        '--once',
        '--json',
        '--log',
        `${t.server.url}/gov/v1/log`,
        '--log-key',
        logKey.text,
        '--key',
        keyFile,
        '--state',
        stateFile,
      );
    const latestSth = async () => (await t.client.get<JsonSth>('/gov/v1/log/sth')).body;
    const admit = async (count: number) => {
      for (let i = 0; i < count; i++) await t.client.admit(tenant.api_key, validEvidence(`model-${i}`));
    };
    const cosignedEvents = async () => {
      let count = 0;
      for await (const _ of t.server.services.eventStore.readAll({
        filter: { eventTypes: ['WitnessCosigned'] },
      }))
        count++;
      return count;
    };

    beforeAll(async () => {
      t = await startTestServer('gov-witness-log', { env: { GOV_WITNESS_KEYS: witnessKey.text } });
      stateFile = path.join(temp.dir, 'state.json');
      tenant = await t.client.register();
      // Past the trial's five leaves.
      await setTier(t.server, tenant.tenant_id, 'L2');
      logKey = loadVerifierKey((await t.client.get<{ log: string }>('/gov/v1/log/keys')).body.log);
      await admit(3);
    });
    afterAll(async () => {
      await t?.dispose();
    });

    it('given admissions, when `gov witness --once` runs, then it exits 0 and the STH and the checkpoint carry a cosignature that verifies', async () => {
      const before = await latestSth();
      expect(before.witness_signatures).toEqual([]);

      const run = await witnessOnce();

      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      const outcome = outcomeOf(run);
      expect(outcome).toMatchObject({
        outcome: 'cosigned',
        origin: logKey.name,
        witness_key: witnessKey.text,
        previous: null,
        checkpoint: { size: before.tree_size, root_hash: before.root_hash },
      });
      firstCosignature = outcome.cosignature as string;
      firstSize = before.tree_size;

      const sth = await latestSth();
      expect(sth.witness_signatures).toEqual([{ name: 'witness.test', signature: expect.any(String) }]);
      const checkpoint = (await t.client.get('/gov/v1/log/checkpoint')).text;
      expect(checkpoint).toBe(checkpointNoteFromSth(sth));
      expect(checkpoint.endsWith(firstCosignature)).toBe(true);
      expect(await verifyCheckpoint(checkpoint, logKey)).toMatchObject({ ok: true });
      expect(await verifyCosignature(checkpoint, witnessKey)).toMatchObject({
        ok: true,
        checkpoint: { size: firstSize },
      });
      const pinned = await t.client.get<JsonSth>(`/gov/v1/log/sth?tree_size=${firstSize}`);
      expect(pinned.body).toEqual(sth);
      expect(JSON.parse(fs.readFileSync(stateFile, 'utf8')).logs[logKey.name]).toMatchObject({
        size: firstSize,
        root_hash: before.root_hash,
      });
    });

    it('given nothing new, when it runs again, then it finds its cosignature served and does nothing', async () => {
      const run = await witnessOnce();
      expect({ code: run.code, outcome: outcomeOf(run).outcome }).toEqual({ code: 0, outcome: 'up-to-date' });
      expect(await cosignedEvents()).toBe(1);
    });

    it('given more admissions, when it runs again, then it cosigns the new size, and the older head keeps its own cosignature', async () => {
      await admit(4);
      const grown = await latestSth();
      expect(grown.tree_size).toBeGreaterThan(firstSize);
      expect(grown.witness_signatures).toEqual([]);

      const run = await witnessOnce();

      expect(run.code).toBe(0);
      expect(outcomeOf(run)).toMatchObject({
        outcome: 'cosigned',
        previous: { size: firstSize },
        checkpoint: { size: grown.tree_size, root_hash: grown.root_hash },
      });
      const checkpoint = (await t.client.get('/gov/v1/log/checkpoint')).text;
      expect(await verifyCosignature(checkpoint, witnessKey)).toMatchObject({
        ok: true,
        checkpoint: { size: grown.tree_size },
      });
      const older = await t.client.get<JsonSth>(`/gov/v1/log/sth?tree_size=${firstSize}`);
      expect(await verifyCosignature(checkpointNoteFromSth(older.body), witnessKey)).toMatchObject({
        ok: true,
      });
      expect(await cosignedEvents()).toBe(2);
    });

    it('given a restart, then the latest head is still served with its cosignature', async () => {
      const before = await latestSth();
      await t.restart();
      expect(await latestSth()).toEqual(before);
      expect(before.witness_signatures).toHaveLength(1);
    });

    it('given a repeated cosignature of a size (a retry with a new timestamp), then it answers 200 with the first one and records nothing new', async () => {
      const head = await t.client.get<JsonSth>(`/gov/v1/log/sth?tree_size=${firstSize}`);
      const note = checkpointNoteFromSth({ ...head.body, witness_signatures: [] });
      const again = cosignatureLine(note, witnessSigner, Math.floor(Date.now() / 1000) + 5);
      expect(again).not.toBe(firstCosignature);

      const res = await t.client.post<WitnessSignatureAnswer>(SIGNATURES, {
        tree_size: firstSize,
        cosignature: again,
      });

      expect(res.status).toBe(200);
      expect(validateResponse('witness-signature', res.body)).toMatchObject({ ok: true });
      expect(res.body).toMatchObject({
        tree_size: firstSize,
        witness_key: witnessKey.text,
        cosignature: firstCosignature,
      });
      expect(res.body.sth.witness_signatures).toHaveLength(1);
      expect(await cosignedEvents()).toBe(2);
    });

    it('refuses a cosignature by a witness key it does not trust (400, naming GOV_WITNESS_KEYS)', async () => {
      const stranger = loadSignerKey(
        generateKeyPair('stranger.test', SIGNATURE_TYPE_COSIGNATURE_V1).signerKey,
      );
      const sth = await latestSth();
      const line = cosignatureLine(checkpointNoteFromSth(sth), stranger, Math.floor(Date.now() / 1000));

      const res = await t.client.post<ErrorAnswer>(SIGNATURES, {
        tree_size: sth.tree_size,
        cosignature: line,
      });

      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: 'INVALID_REQUEST',
        fields: [
          {
            pointer: '/cosignature',
            reason: expect.stringMatching(/stranger\.test\+[0-9a-f]{8}.*GOV_WITNESS_KEYS/),
          },
        ],
      });
      expect((await latestSth()).witness_signatures).toHaveLength(1);
    });

    it('refuses a cosignature by a trusted key that does not verify over the checkpoint signed at that size (400)', async () => {
      const sth = await latestSth();
      const latestLine = cosignatureLine(
        checkpointNoteFromSth(sth),
        witnessSigner,
        Math.floor(Date.now() / 1000),
      );
      const forged = await t.client.post<ErrorAnswer>(SIGNATURES, {
        tree_size: firstSize + 1,
        cosignature: latestLine,
      });
      expect(forged.status).toBe(400);
      expect(forged.body.fields).toEqual([
        {
          pointer: '/cosignature',
          reason: expect.stringContaining(
            `does not verify over the checkpoint the log signed at tree size ${firstSize + 1}`,
          ),
        },
      ]);

      const tampered = withFlippedSignatureByte(latestLine);
      const refused = await t.client.post<ErrorAnswer>(SIGNATURES, {
        tree_size: sth.tree_size,
        cosignature: tampered,
      });
      expect(refused.status).toBe(400);
      expect(await cosignedEvents()).toBe(2);
    });

    it('given a witness the log does not trust, when it runs, then it creates its key, and exits 1 with the log’s reason', async () => {
      const strangerKey = path.join(temp.dir, 'stranger.key');
      const run = await gov(
        'witness',
        '--once',
        '--log',
        `${t.server.url}/gov/v1/log`,
        '--log-key',
        logKey.text,
        '--key',
        strangerKey,
        '--name',
        'stranger.test',
        '--state',
        path.join(temp.dir, 'stranger-state.json'),
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`created the witness key ${strangerKey}`);
      expect(run.stderr).toMatch(/\nstranger\.test\+[0-9a-f]{8}\+/);
      expect(run.stderr).toMatch(/the log did not take the cosignature: .*answered 400: .*GOV_WITNESS_KEYS/);
      expect((await latestSth()).witness_signatures).toHaveLength(1);
    });

    it('answers 404 for a size no tree head was signed at, and 400 naming the field for a malformed body', async () => {
      const sth = await latestSth();
      const line = cosignatureLine(checkpointNoteFromSth(sth), witnessSigner, Math.floor(Date.now() / 1000));
      const missing = await t.client.post<ErrorAnswer>(SIGNATURES, {
        tree_size: sth.tree_size + 100,
        cosignature: line,
      });
      expect(missing.status).toBe(404);
      expect(missing.body.error).toBe('NOT_FOUND');

      const malformed = await t.client.post<ErrorAnswer>(SIGNATURES, { tree_size: -1, cosignature: 'hello' });
      expect(malformed.status).toBe(400);
      expect(malformed.body.fields!.map((f) => f.pointer).sort()).toEqual(['/cosignature', '/tree_size']);
    });

    it('follows the log until stopped: it cosigns each new size as the log grows', async () => {
      const child = spawnGov([
        'witness',
        '--json',
        '--interval',
        '0.2',
        '--log',
        t.server.url,
        '--log-key',
        logKey.text,
        '--key',
        keyFile,
        '--state',
        stateFile,
      ]);
      const out = lines(child);
      try {
        await waitForLines(out, 1);
        expect(JSON.parse(out[0]!)).toMatchObject({ outcome: 'up-to-date', time: expect.any(String) });
        await admit(2);
        const grown = await latestSth();
        const deadline = Date.now() + 15_000;
        const cosignedGrown = () =>
          out.some((line) => {
            const o = JSON.parse(line);
            return o.outcome === 'cosigned' && o.checkpoint.size === grown.tree_size;
          });
        while (!cosignedGrown() && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 50));
        expect(cosignedGrown()).toBe(true);
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exited(child)).toEqual({ code: 0, signal: null });
      expect(fs.existsSync(`${stateFile}.lock`)).toBe(false);
      expect((await latestSth()).witness_signatures).toHaveLength(1);
    });

    it('takes a cosignature of another log at /gov/v1/logs/<name>/witness-signatures and serves it in that log’s heads only; the same size of the shared log is cosigned apart', async () => {
      const now = Math.floor(Date.now() / 1000);
      const testHead = (await t.client.get<JsonSth & { log: string }>('/gov/v1/logs/test/sth')).body;
      expect(testHead).toMatchObject({ log: 'test', witness_signatures: [] });
      const size = testHead.tree_size;
      const sharedAtSize = (await t.client.get<JsonSth>(`/gov/v1/log/sth?tree_size=${size}`)).body;
      expect(sharedAtSize.witness_signatures).toEqual([]);
      const before = await cosignedEvents();

      // The shared log's cosignature does not verify over the test log's checkpoint of the same size.
      const sharedLine = cosignatureLine(checkpointNoteFromSth(sharedAtSize), witnessSigner, now);
      const crossed = await t.client.post<ErrorAnswer>('/gov/v1/logs/test/witness-signatures', {
        tree_size: size,
        cosignature: sharedLine,
      });
      expect(crossed.status).toBe(400);
      expect(crossed.body.fields![0]!.reason).toContain('GET /gov/v1/logs/test/checkpoint');

      const testLine = cosignatureLine(checkpointNoteFromSth(testHead), witnessSigner, now);
      const res = await t.client.post<WitnessSignatureAnswer & { sth: { log: string } }>(
        '/gov/v1/logs/test/witness-signatures',
        { tree_size: size, cosignature: testLine },
      );
      expect(res.status).toBe(200);
      expect(validateResponse('witness-signature', res.body)).toMatchObject({ ok: true });
      expect(res.body).toMatchObject({ tree_size: size, cosignature: testLine, sth: { log: 'test' } });
      const served = (await t.client.get<JsonSth>('/gov/v1/logs/test/sth')).body;
      expect(served.witness_signatures).toHaveLength(1);
      const checkpoint = (await t.client.get<string>('/gov/v1/logs/test/checkpoint')).text;
      expect(await verifyCosignature(checkpoint, witnessKey)).toMatchObject({ ok: true });
      expect(
        (await t.client.get<JsonSth>(`/gov/v1/log/sth?tree_size=${size}`)).body.witness_signatures,
      ).toEqual([]);

      // Same witness key, same size, another log: a cosignature of its own, not a repeat of the first.
      const shared = await t.client.post<WitnessSignatureAnswer>(SIGNATURES, {
        tree_size: size,
        cosignature: sharedLine,
      });
      expect(shared.status).toBe(200);
      expect(shared.body.cosignature).toBe(sharedLine);
      expect(await cosignedEvents()).toBe(before + 2);

      const unknown = await t.client.post<ErrorAnswer>(
        `/gov/v1/logs/dedicated-${'0'.repeat(24)}/witness-signatures`,
        {
          tree_size: size,
          cosignature: testLine,
        },
      );
      expect(unknown.status).toBe(404);
      expect(unknown.body.message).toContain('GET /gov/v1/logs');
    });
  });

  describe('against a log that forks or signs badly', () => {
    const origin = 'fake.example/gov/v1/log';
    const logKey = new FakeLogKey(origin);
    let fake: FakeLogServer;
    let stateFile: string;

    const witnessOnce = (...extra: string[]) =>
      gov(
        'witness',
        '--once',
        '--log',
        fake.url,
        '--log-key',
        logKey.verifier.text,
        '--key',
        keyFile,
        '--state',
        stateFile,
        ...extra,
      );

    beforeAll(async () => {
      stateFile = path.join(temp.dir, 'fake-state.json');
      const honest = await fakeTree(5);
      fake = await FakeLogServer.start({ tree: honest, size: 5, note: checkpointOf(honest, 5, logKey) });
      const first = await witnessOnce();
      expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
      expect(first.stdout).toMatch(/^cosigned fake\.example\/gov\/v1\/log at size 5 .*first cosignature/);
    });
    afterAll(() => fake?.close());

    it('given a correctly signed checkpoint of a different tree at a larger size, then it exits 3 with a report, signs nothing and keeps its state', async () => {
      const state = fs.readFileSync(stateFile, 'utf8');
      const honestRoot = toHex(fake.view.tree.root(5));
      const forked = await fakeTree(9, { 2: 'rewritten history' });
      fake.view = { tree: forked, size: 9, note: checkpointOf(forked, 9, logKey) };
      fake.requests.length = 0;

      const run = await witnessOnce();

      expect(run.code).toBe(3);
      expect(run.stdout).toContain(`REFUSED to cosign ${origin}`);
      expect(run.stdout).toContain(`cosigned:    size 5, root ${honestRoot}`);
      expect(run.stdout).toContain(`checkpoint:  size 9, root ${toHex(forked.root(9))}`);
      expect(run.stdout).toMatch(/why: +consistency proof rejected: .*\[inconsistent\]/);
      expect(run.stdout).toContain(`still holds size 5`);
      expect(fake.requestsTo('consistency').map((r) => r.url)).toEqual([
        '/gov/v1/log/consistency?from=5&to=9',
      ]);
      expect(fake.requestsTo('witness-signatures')).toEqual([]);
      expect(fs.readFileSync(stateFile, 'utf8')).toBe(state);
    });

    it('given a checkpoint signed by another key under the same origin, then it exits 3 without asking for a proof', async () => {
      const state = fs.readFileSync(stateFile, 'utf8');
      const grown = await fakeTree(12);
      fake.view = { tree: grown, size: 12, note: checkpointOf(grown, 12, new FakeLogKey(origin)) };
      fake.requests.length = 0;

      const run = await witnessOnce('--json');

      expect(run.code).toBe(3);
      expect(outcomeOf(run)).toMatchObject({
        outcome: 'refused',
        code: 'bad-signature',
        previous: { size: 5 },
        claimed: { size: 12, verified: false },
        reason: expect.stringContaining(`no signature by ${origin}`),
      });
      expect(fake.requestsTo('consistency')).toEqual([]);
      expect(fake.requestsTo('witness-signatures')).toEqual([]);
      expect(fs.readFileSync(stateFile, 'utf8')).toBe(state);
    });

    it('given the honest log grown again, then it cosigns: refusals left its state where it was', async () => {
      const grown = await fakeTree(12);
      fake.view = { tree: grown, size: 12, note: checkpointOf(grown, 12, logKey) };
      const run = await witnessOnce();
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^cosigned .* at size 12 .*consistent with size 5/);
    });
  });

  describe('GOV_WITNESS_KEYS', () => {
    const env = (keys: string) => ({ GOV_DATA_DIR: '/tmp/unused', GOV_WITNESS_KEYS: keys });

    it('takes comma-separated witness verifier keys, each once', () => {
      const other = generateKeyPair('other.test', SIGNATURE_TYPE_COSIGNATURE_V1).verifierKey;
      const config = loadConfig(env(` ${witnessKey.text}, ${other},${witnessKey.text} `));
      expect(config.witnessKeys.map((k) => k.text)).toEqual([witnessKey.text, other]);
      expect(loadConfig(env('')).witnessKeys).toEqual([]);
    });

    it('refuses a malformed key or a log key, naming the entry', () => {
      expect(() => loadConfig(env(`${witnessKey.text},not-a-key`))).toThrow(ConfigError);
      expect(() => loadConfig(env(`${witnessKey.text},not-a-key`))).toThrow(
        /GOV_WITNESS_KEYS entry 2 \('not-a-key'\)/,
      );
      const logKey = generateKeyPair('log.test').verifierKey;
      expect(() => loadConfig(env(logKey))).toThrow(/entry 1 .* is a log \(Ed25519 0x01\) key/);
    });
  });
});
