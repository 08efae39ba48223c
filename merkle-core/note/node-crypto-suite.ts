/** The CryptoSuite for Node: node:crypto SHA-256 and Ed25519. */
import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import type { CryptoSuite } from './signature-checks';

const SPKI_ED25519_PREFIX = Uint8Array.from([
  0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
]);

const publicKeys = new Map<string, KeyObject>();

/** A Node KeyObject for a raw 32-byte Ed25519 public key (cached: verifiers reuse few keys). */
function ed25519PublicKey(raw: Uint8Array): KeyObject {
  const cacheKey = Buffer.from(raw).toString('hex');
  let key = publicKeys.get(cacheKey);
  if (!key) {
    key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, raw]), format: 'der', type: 'spki' });
    publicKeys.set(cacheKey, key);
  }
  return key;
}

export const nodeCryptoSuite: CryptoSuite = {
  sha256: (data) => new Uint8Array(createHash('sha256').update(data).digest()),
  verifyEd25519: (publicKey, message, signature) => {
    if (publicKey.length !== 32 || signature.length !== 64) return false;
    return verify(null, message, ed25519PublicKey(publicKey), signature);
  },
};
