/**
 * Security: no secret ever reaches the logs. The real server runs as its own process at log level
 * trace, everything it prints captured; a full flow (registration, key rotation, a wrong key, webhooks
 * with a given and a generated secret, admissions and gate failures delivered and signed, a witness
 * cosignature) is run against it; then every secret the flow saw, and the private key material in its
 * data folder, is searched for in what it printed.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  cosignatureLine,
  generateKeyPair,
  loadSignerKey,
  SIGNATURE_TYPE_COSIGNATURE_V1,
} from '../merkle-core';
import { exited, freePort, REPO_ROOT, spawnTypeScript } from './support/children';
import {
  failingEvidence,
  GovClient,
  type Registration,
  type RequestOptions,
  validEvidence,
} from './support/governance-client';
import { tempDir } from './support/temp-dir';
import { WebhookReceiver } from './support/webhook-receiver';

/** A secret to look for, named so a failure says which one leaked without printing it. */
interface Needle {
  name: string;
  value: string;
}

/** The bytes as hex, base64 and base64url (unpadded): the ways key material gets printed. */
function encodings(name: string, bytes: Buffer): Needle[] {
  return [
    { name: `${name} (hex)`, value: bytes.toString('hex') },
    { name: `${name} (base64)`, value: bytes.toString('base64').replace(/=+$/, '') },
    { name: `${name} (base64url)`, value: bytes.toString('base64url') },
  ];
}

/**
 * The private key material in the keys folder: PEM bodies (and the Ed25519 seed in them), note signer
 * keys (and their seed), and the webhook secret box key. Lock marks (JSON) hold no key.
 */
function keyMaterial(keysDir: string): Needle[] {
  const needles: Needle[] = [];
  const files = (fs.readdirSync(keysDir, { recursive: true }) as string[])
    .map((entry) => path.join(keysDir, entry))
    .filter((file) => fs.statSync(file).isFile() && !file.endsWith('.json'));
  for (const file of files) {
    const name = path.relative(keysDir, file);
    const text = fs.readFileSync(file, 'utf8');
    if (text.includes('-----BEGIN')) {
      const body = text
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('-----'))
        .join('');
      needles.push({ name: `${name} PEM body`, value: body });
      needles.push(...encodings(`${name} seed`, Buffer.from(body, 'base64').subarray(-32)));
    } else if (text.startsWith('PRIVATE+KEY+')) {
      const line = text.trim();
      const material = line.split('+').slice(4).join('+');
      needles.push(
        { name: `${name} signer key`, value: line },
        { name: `${name} key text`, value: material },
      );
      needles.push(...encodings(`${name} seed`, Buffer.from(material, 'base64').subarray(1)));
    } else {
      needles.push({ name: `${name} text`, value: text.trim() });
      needles.push(...encodings(`${name} bytes`, Buffer.from(text.trim(), 'base64')));
    }
  }
  expect(files.map((file) => path.basename(file)).sort()).toEqual(
    expect.arrayContaining(['authority.pem', 'log.key', 'validator-1.pem', 'webhook-secrets.key']),
  );
  return needles;
}

function apiKeyNeedles(name: string, apiKey: string): Needle[] {
  return [
    { name, value: apiKey },
    { name: `${name} secret part`, value: apiKey.split('_').slice(3).join('_') },
    { name: `${name} hash`, value: createHash('sha256').update(apiKey).digest('hex') },
  ];
}

describe('secrets never reach the logs', () => {
  const temp = tempDir('gov-secrets-in-logs');
  const dataDir = path.join(temp.dir, 'data');
  const output: string[] = [];
  const correlationIds: string[] = [];
  const needles: Needle[] = [];
  let receiver: WebhookReceiver;
  let client: GovClient;
  let child: ReturnType<typeof spawnTypeScript> | null = null;

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited(child);
    }
    await receiver?.close();
    temp.remove();
  });

  /** Every request carries its own correlation id, so the test can tell its lines were captured. */
  async function request<T = Record<string, unknown>>(
    method: string,
    route: string,
    options: RequestOptions = {},
  ) {
    const id = `secrets-test-${correlationIds.length + 1}`;
    correlationIds.push(id);
    return client.request<T>(method, route, {
      ...options,
      headers: { ...options.headers, 'x-correlation-id': id },
    });
  }

  it('given a full flow against the server at log level trace, when its output is searched, then no secret is found in it', async () => {
    receiver = await WebhookReceiver.start('/hooks');
    // Gate failures go to a receiver path that answers 500: the failure path is exercised too.
    receiver.script = (_n, delivery) => ({ status: delivery.body.type === 'gate_fail' ? 500 : 200 });
    const witness = generateKeyPair('witness.secrets.test', SIGNATURE_TYPE_COSIGNATURE_V1);
    needles.push(
      { name: 'witness signer key', value: witness.signerKey.trim() },
      { name: 'witness key material', value: witness.signerKey.trim().split('+').slice(4).join('+') },
    );

    const port = await freePort();
    child = spawnTypeScript(path.join(REPO_ROOT, 'runtime/main.ts'), [], {
      GOV_PORT: String(port),
      GOV_PLATFORM_PORT: '0',
      GOV_HOST: '127.0.0.1',
      GOV_DATA_DIR: dataDir,
      GOV_EVENT_STORE_FILE: '',
      GOV_READ_STORE_FILE: '',
      GOV_EVENT_STORE_URL: '',
      GOV_READ_STORE_URL: '',
      GOV_KAFKA_BROKERS: '',
      GOV_LOG_LEVEL: 'trace',
      GOV_WEBHOOK_ALLOW: '127.0.0.1',
      GOV_WEBHOOK_TIMEOUT_MS: '2000',
      GOV_WITNESS_KEYS: witness.verifierKey,
    });
    child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
    client = new GovClient(`http://127.0.0.1:${port}`);
    for (let i = 0; ; i++) {
      if (i > 600) throw new Error(`the server did not start:\n${output.join('').slice(-2000)}`);
      const up = await fetch(`${client.url}/health`).then(
        (res) => res.ok,
        () => false,
      );
      if (up) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    // Registration (a live and a test-mode key), rotation, the old key still used, a wrong key.
    const registered = await request<Registration>('POST', '/auto-register', {
      json: { email: 'secrets@example.com', organization: 'Secrets Inc' },
    });
    expect(registered.status).toBe(201);
    const oldKey = registered.body.api_key;
    const testMode = await request<Registration>('POST', '/auto-register', {
      json: { email: 'secrets-test@example.com', mode: 'test' },
    });
    expect(testMode.status).toBe(201);
    const rotated = await request<{ api_key: string }>('POST', '/api-key/rotate', { key: oldKey });
    expect(rotated.status).toBe(200);
    const key = rotated.body.api_key;
    expect((await request('GET', '/account', { key: oldKey })).status).toBe(200);
    const wrongKey = `${key.slice(0, -6)}abcdef`;
    expect((await request('GET', '/account', { key: wrongKey })).status).toBe(401);
    expect((await request('GET', '/account', { key: testMode.body.api_key })).status).toBe(200);
    needles.push(
      ...apiKeyNeedles('registered API key', oldKey),
      ...apiKeyNeedles('rotated API key', key),
      ...apiKeyNeedles('test-mode API key', testMode.body.api_key),
      ...apiKeyNeedles('wrong API key presented', wrongKey),
    );

    // Webhooks: one with its secret given, one with a generated secret (returned once).
    const givenSecret = 'given-webhook-secret-9f8e7d6c5b4a';
    const given = await request('POST', '/webhooks', {
      key,
      json: { url: `${receiver.url}/ok`, events: ['leaf_admitted'], secret: givenSecret },
    });
    expect(given.status).toBe(201);
    const generated = await request<{ secret: string }>('POST', '/webhooks', {
      key,
      json: { url: `${receiver.url}/fail`, events: ['gate_fail'] },
    });
    expect(generated.status).toBe(201);
    expect(generated.body.secret.length).toBeGreaterThanOrEqual(16);
    needles.push(
      { name: 'given webhook secret', value: givenSecret },
      { name: 'generated webhook secret', value: generated.body.secret },
    );

    // Evidence admitted and evidence failing its gates: both delivered, signed.
    expect(
      (await request('POST', '/governance/evidence', { key, json: validEvidence('secret-model') })).status,
    ).toBe(201);
    expect(
      (await request('POST', '/governance/evidence', { key, json: failingEvidence('secret-model') })).status,
    ).toBe(422);
    const deliveries = await receiver.waitFor(
      (all) =>
        all.some((d) => d.body.type === 'leaf_admitted') && all.some((d) => d.body.type === 'gate_fail'),
      20_000,
    );
    for (const delivery of deliveries) {
      const signature = delivery.headers['x-gov-signature-256'] as string;
      expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
      needles.push({ name: `signature of a ${delivery.body.type} delivery`, value: signature.slice(7) });
    }

    // A witness cosignature of the latest checkpoint.
    const sth = await request<{ tree_size: number }>('GET', '/gov/v1/log/sth');
    const checkpoint = await request('GET', '/gov/v1/log/checkpoint');
    const line = cosignatureLine(
      checkpoint.text,
      loadSignerKey(witness.signerKey),
      Math.floor(Date.now() / 1000),
    );
    const cosigned = await request('POST', '/gov/v1/log/witness-signatures', {
      json: { tree_size: sth.body.tree_size, cosignature: line },
    });
    expect(cosigned.status).toBe(200);

    // A graceful stop flushes everything the process (and its delivery thread) had to say.
    child.kill('SIGTERM');
    expect((await exited(child)).code).toBe(0);
    needles.push(...keyMaterial(path.join(dataDir, 'keys')));
    const logs = output.join('');

    // The capture is complete: every request's line is there.
    for (const id of correlationIds) expect({ id, logged: logs.includes(id) }).toEqual({ id, logged: true });
    expect(needles.length).toBeGreaterThan(30);
    for (const needle of needles) expect(needle.value.length).toBeGreaterThanOrEqual(16);
    const leaked = needles.filter((needle) => logs.includes(needle.value)).map((needle) => needle.name);
    expect(leaked).toEqual([]);
  });
});
