/**
 * Verifies one leaf of the log with nothing but the public log endpoints and node:crypto (no code of
 * this project): the checkpoint's signature under the log key, the leaf's hash recomputed from its
 * record, and its RFC 9162 inclusion proof up to the signed root.
 *
 *   node docs/verify-leaf.mjs <base URL or log URL> <leaf index> [log key]
 *
 * The service's base URL means its shared log; a log's own URL (`log_url`: `…/gov/v1/log`,
 * `…/gov/v1/logs/<name>`) means that log. Pass the log key you pinned (`GET <log URL>/keys` → `log`)
 * as the third argument; without it the
 * key the server serves now is trusted, which proves only that the log agrees with itself.
 * Exit 0 verified, 1 not.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';

const [base, indexText, pinnedKey] = process.argv.slice(2);
if (!base || !/^\d+$/.test(indexText ?? '')) {
  console.error('usage: node docs/verify-leaf.mjs <base URL or log URL> <leaf index> [log key]');
  process.exit(2);
}
const index = Number(indexText);
const trimmed = base.replace(/\/$/, '');
const log = /\/gov\/v1\/(?:log|logs\/[^/]+)$/.test(trimmed) ? trimmed : `${trimmed}/gov/v1/log`;

async function get(path) {
  const response = await fetch(log + path);
  if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
  return response;
}
const sha256 = (...parts) => createHash('sha256').update(Buffer.concat(parts)).digest();
/** RFC 8785 canonical JSON: JSON.stringify's strings and numbers, members sorted by UTF-16 code units. */
const canonical = (value) =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value !== null && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
          .join(',')}}`
      : JSON.stringify(value);
function fail(why) {
  console.error(`NOT VERIFIED: ${why}`);
  process.exit(1);
}

try {
  // 1. The log key, in signed-note format: <origin>+<key id, 8 hex>+base64(0x01 ‖ Ed25519 public key).
  const logKey = pinnedKey ?? (await (await get('/keys')).json()).log;
  const [, origin, keyId, keyBase64] =
    /^([^+\s]+)\+([0-9a-f]{8})\+(\S+)$/.exec(logKey) ?? fail('bad log key');
  const keyBytes = Buffer.from(keyBase64, 'base64');
  if (keyBytes.length !== 33 || keyBytes[0] !== 0x01) fail('not an Ed25519 checkpoint key');
  const publicKey = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: keyBytes.subarray(1).toString('base64url') },
    format: 'jwk',
  });

  // 2. The checkpoint (C2SP signed note): the text up to the blank line is what the log key signed.
  const note = await (await get('/checkpoint')).text();
  const text = note.slice(0, note.indexOf('\n\n') + 1);
  const [noteOrigin, sizeLine, rootBase64, ...extensions] = text.slice(0, -1).split('\n');
  if (noteOrigin !== origin) fail(`checkpoint of ${noteOrigin}, key of ${origin}`);
  const line = note
    .slice(text.length + 1)
    .split('\n')
    .find((l) => l.startsWith(`— ${origin} `));
  const signature = Buffer.from(line?.split(' ')[2] ?? '', 'base64');
  if (signature.length !== 68 || signature.subarray(0, 4).toString('hex') !== keyId)
    fail('no signature by the log key');
  if (!verify(null, Buffer.from(text), publicKey, signature.subarray(4))) fail('checkpoint signature');
  const size = Number(sizeLine);
  const root = Buffer.from(rootBase64, 'base64');
  if (index >= size) fail(`leaf ${index} is not under the checkpoint of size ${size}`);

  // 3. The leaf: SHA-256(0x00 ‖ canonical JSON of its record) must be the hash the log names.
  const leaf = await (await get(`/leaf?index=${index}`)).json();
  const leafHash = sha256(Buffer.from([0]), Buffer.from(canonical(leaf.record)));
  if (leafHash.toString('hex') !== leaf.leaf_hash) fail('the record does not hash to leaf_hash');

  // 4. The inclusion proof at the checkpoint's size, checked as RFC 9162 §2.1.3.2 says.
  const proof = await (await get(`/proof?leaf_hash=${leaf.leaf_hash}&tree_size=${size}`)).json();
  if (proof.leaf_index !== index) fail(`the proof is for leaf ${proof.leaf_index}`);
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const hex of proof.audit_path) {
    const p = Buffer.from(hex, 'hex');
    if (sn === 0) fail('audit path too long');
    if (fn % 2 === 1 || fn === sn) {
      r = sha256(Buffer.from([1]), p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else r = sha256(Buffer.from([1]), r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0 || !r.equals(root)) fail('the inclusion proof does not lead to the signed root');

  console.log(`VERIFIED leaf ${index} (${leaf.leaf_type}, artifact ${leaf.artifact_hash})`);
  console.log(`  in ${origin} of size ${size}, root ${root.toString('hex')}, ${extensions.join(' ')}`);
} catch (error) {
  fail(error.message);
}
