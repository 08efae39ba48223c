/**
 * `npm run fuzz` (through scripts/fuzz.sh): the built server in its own process on a temporary data
 * folder, a tenant of the shared log without limits (L2+ at L4's request rate) with a few leaves, an execution and a webhook (so hashes, closed-loop records
 * and deliveries exist), then `schemathesis run` against the OpenAPI document the server serves, with
 * the tenant's key on every request. A 5xx, an answer whose status, content type, headers or body is
 * not what the document says, or a request the document forbids that is accepted, fails the run.
 * The JUnit report goes to bench/results/schemathesis.xml, the server's error log to
 * bench/results/schemathesis-server.log.
 *
 * Usage: node dist/bench/schemathesis.js <schemathesis executable> [extra `schemathesis run` options]
 * Environment: GOV_FUZZ_EXAMPLES (examples per operation, default 40), GOV_FUZZ_SEED (default 8),
 * GOV_FUZZ_MAX_SECONDS (wall-clock cap of the schemathesis run, default 900).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { validBody } from '../domain/governance/test-fixtures';
import {
  cosignatureLine,
  generateKeyPair,
  loadSignerKey,
  type NoteSigner,
  SIGNATURE_TYPE_COSIGNATURE_V1,
} from '../merkle-core';
import { freePort } from '../tests/support/children';
import { plainFuzzLine } from './fuzz-output';
import { registerTenants, startServer, stopServer } from './http-server';
import { tempDir } from './temp-dir';

const REPO = path.resolve(__dirname, '../..');
const RESULTS = path.join(REPO, 'bench/results');

/**
 * No 5xx; every answer's status, content type, headers and body as documented; every request the
 * document forbids refused; no authenticated operation answering without valid credentials.
 * (Not checked: positive_data_acceptance, since bodies valid by schema still fail gates or name
 * leaves that do not exist; unsupported_method and allow_header_conformance, since an undocumented
 * method answers 404 by design.)
 */
const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
  'negative_data_rejection',
  'ignored_auth',
];

function envInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[1-9][0-9]*$/.test(raw)) throw new Error(`${name} must be a positive whole number (got '${raw}')`);
  return Number(raw);
}

/** Answers 200 to every delivery: fuzzed webhook URLs are pointed here (scripts/schemathesis_hooks.py). */
async function startReceiver(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/fuzz-webhook`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function post(
  base: string,
  route: string,
  key: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300)
    throw new Error(`seeding: POST ${route} answered ${res.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/** Identifiers that exist on the server, offered to schemathesis beside the values it generates. */
interface Known {
  artifactHashes: string[];
  leafHashes: string[];
  authLeafHash: string;
  unexecutedLeafHash: string;
  subjects: string[];
  webhookId: string;
  deliveryIds: string[];
  treeSize: number;
  cosignature: string;
}

async function get(base: string, route: string, key: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${route}`, { headers: { authorization: `Bearer ${key}` } });
  if (res.status !== 200)
    throw new Error(`seeding: GET ${route} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/**
 * Two admitted leaves, a gate failure, an execution of the first leaf, a webhook that receives them
 * and a witness cosignature of the resulting tree head.
 */
async function seed(base: string, key: string, receiver: string, witness: NoteSigner): Promise<Known> {
  const webhook = await post(base, '/webhooks', key, {
    url: receiver,
    events: ['leaf_admitted', 'gate_fail'],
  });
  const first = await post(base, '/governance/evidence', key, { ...validBody(), subject_id: 'fuzz-1' });
  const second = await post(base, '/governance/evidence', key, { ...validBody(), subject_id: 'fuzz-2' });
  const execution = await post(base, '/governance/execution', key, {
    parent_auth_leaf_hash: first.leaf_hash,
    outcome: 'EXECUTED',
  });
  const failing = validBody();
  failing.gate_results.G1.confidence_interval_lower = 0.1;
  const res = await fetch(`${base}/governance/evidence`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ ...failing, subject_id: 'fuzz-3' }),
  });
  if (res.status !== 422) throw new Error(`seeding: a failing submission answered ${res.status}`);
  const webhookId = webhook.webhook_id as string;
  let deliveries: Array<{ delivery_id: string }> = [];
  for (let i = 0; i < 100 && deliveries.length < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    deliveries = (await get(base, `/webhooks/${webhookId}/deliveries`, key)).deliveries as typeof deliveries;
  }
  const note = await (await fetch(`${base}/gov/v1/log/checkpoint`)).text();
  const treeSize = Number(note.split('\n')[1]);
  return {
    artifactHashes: [first.artifact_hash as string, second.artifact_hash as string],
    leafHashes: [
      first.leaf_hash as string,
      second.leaf_hash as string,
      execution.exec_leaf_hash as string,
      execution.variance_leaf_hash as string,
    ],
    authLeafHash: first.leaf_hash as string,
    unexecutedLeafHash: second.leaf_hash as string,
    subjects: ['fuzz-1', 'fuzz-2', 'fuzz-3'],
    webhookId,
    deliveryIds: deliveries.map((delivery) => delivery.delivery_id),
    treeSize,
    cosignature: cosignatureLine(note, witness, Math.floor(Date.now() / 1000)),
  };
}

/**
 * schemathesis.toml: each parameter that names something takes a value that exists half of the time
 * (so the success answers are checked too), a generated one otherwise.
 */
function configToml(known: Known): string {
  const dictionaries: Record<string, readonly (string | number)[]> = {
    artifact_hash: known.artifactHashes,
    auth_leaf_hash: [known.authLeafHash],
    leaf_hash: known.leafHashes,
    parent_auth_leaf_hash: [known.unexecutedLeafHash, known.authLeafHash],
    subject_id: known.subjects,
    webhook_id: [known.webhookId],
    delivery_id: known.deliveryIds,
    tile_path: [`0/000.p/${known.treeSize}`, `entries/000.p/${known.treeSize}`],
    tree_size: [known.treeSize],
    index: [0, known.treeSize - 1],
    cosignature: [known.cosignature],
  };
  const bindings: Record<string, string> = {
    'path.artifact_hash': 'artifact_hash',
    'path.auth_leaf_hash': 'auth_leaf_hash',
    'query.leaf_hash': 'leaf_hash',
    'body.parent_auth_leaf_hash': 'parent_auth_leaf_hash',
    'query.subject_id': 'subject_id',
    'path.id': 'webhook_id',
    'path.delivery_id': 'delivery_id',
    'path.path': 'tile_path',
    'query.tree_size': 'tree_size',
    'body.tree_size': 'tree_size',
    'query.index': 'index',
    'body.cosignature': 'cosignature',
  };
  const lines = ['[parameters]'];
  for (const [parameter, dictionary] of Object.entries(bindings))
    lines.push(`"${parameter}" = { dictionary = "${dictionary}", probability = 0.5 }`);
  for (const [name, values] of Object.entries(dictionaries)) {
    if (values.length === 0) throw new Error(`seeding produced no ${name}`);
    lines.push('', `[dictionaries.${name}]`, `values = [${values.map((v) => JSON.stringify(v)).join(', ')}]`);
  }
  return `${lines.join('\n')}\n`;
}

function runSchemathesis(
  executable: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  maxSeconds: number,
  cwd: string,
): Promise<number> {
  // In the temporary folder: Hypothesis keeps its caches (.hypothesis) in the working directory.
  const child = spawn(executable, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['inherit', 'pipe', 'inherit'],
  });
  const output = readline.createInterface({ input: child.stdout! });
  output.on('line', (line) => process.stdout.write(`${plainFuzzLine(line)}\n`));
  const outputClosed = once(output, 'close');
  const timer = setTimeout(() => {
    process.stderr.write(`fuzz: schemathesis ran longer than ${maxSeconds} s; stopping it\n`);
    child.kill('SIGTERM');
  }, maxSeconds * 1000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      // Every line printed before the step's own closing line.
      void outputClosed.then(() => resolve(code ?? (signal ? 124 : 1)));
    });
  });
}

async function main(): Promise<number> {
  const [executable, ...extra] = process.argv.slice(2);
  if (!executable)
    throw new Error('usage: schemathesis.js <schemathesis executable> [schemathesis run options]');
  const examples = envInteger('GOV_FUZZ_EXAMPLES', 40);
  const seedValue = envInteger('GOV_FUZZ_SEED', 8);
  const maxSeconds = envInteger('GOV_FUZZ_MAX_SECONDS', 900);

  const data = tempDir('gov-fuzz');
  const receiver = await startReceiver();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  fs.mkdirSync(RESULTS, { recursive: true });
  // A witness the server trusts, so that accepted cosignatures are exercised too.
  const witnessKeys = generateKeyPair('fuzz-witness', SIGNATURE_TYPE_COSIGNATURE_V1);
  // The server's error lines (each 500 with its stack) beside the report, to read what failed.
  const serverLog = fs.openSync(path.join(RESULTS, 'schemathesis-server.log'), 'w');
  const server = await startServer(
    data.dir,
    port,
    {
      GOV_PUBLIC_URL: base,
      GOV_LOG_LEVEL: 'error',
      GOV_WEBHOOK_ALLOW: '127.0.0.1',
      GOV_WITNESS_KEYS: witnessKeys.verifierKey,
      // The fuzzer registers tenants by the thousand from one address.
      GOV_REGISTRATIONS_PER_IP_HOUR: '1000000',
    },
    serverLog,
  );
  try {
    const [tenant] = await registerTenants(base, data.dir, 1);
    const known = await seed(base, tenant!.api_key, receiver.url, loadSignerKey(witnessKeys.signerKey));
    const config = path.join(data.dir, 'schemathesis.toml');
    fs.writeFileSync(config, configToml(known));
    const started = Date.now();
    const code = await runSchemathesis(
      executable,
      [
        '--config-file',
        config,
        'run',
        `${base}/openapi.json`,
        '--checks',
        CHECKS.join(','),
        '--max-examples',
        String(examples),
        '--seed',
        String(seedValue),
        // No example database in the working tree: each run is reproducible from its seed alone.
        '--generation-database',
        'none',
        '--continue-on-failure',
        '--workers',
        '1',
        '--request-timeout',
        '30',
        '--report',
        'junit',
        '--report-junit-path',
        path.join(RESULTS, 'schemathesis.xml'),
        '--no-color',
        ...extra,
      ],
      {
        SCHEMATHESIS_HOOKS: 'schemathesis_hooks',
        PYTHONPATH: path.join(REPO, 'scripts'),
        GOV_FUZZ_WEBHOOK_RECEIVER: receiver.url,
        GOV_FUZZ_API_KEY: tenant!.api_key,
      },
      maxSeconds,
      data.dir,
    );
    process.stderr.write(
      `fuzz: schemathesis exited ${code} after ${Math.round((Date.now() - started) / 1000)} s; report: ${path.relative(process.cwd(), path.join(RESULTS, 'schemathesis.xml'))}\n`,
    );
    return code;
  } finally {
    await stopServer(server);
    await receiver.close();
    fs.closeSync(serverLog);
    data.remove();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
