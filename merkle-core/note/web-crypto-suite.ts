/** The CryptoSuite for browsers (and any runtime with WebCrypto): crypto.subtle SHA-256 and Ed25519. */
import { webCryptoBytes as buffer, webSha256 } from '../tree/web-crypto-hash';
import type { CryptoSuite } from './signature-checks';

const importedKeys = new Map<string, Promise<CryptoKey>>();

function importEd25519(publicKey: Uint8Array): Promise<CryptoKey> {
  const cacheKey = Array.from(publicKey, (b) => b.toString(16).padStart(2, '0')).join('');
  let key = importedKeys.get(cacheKey);
  if (!key) {
    key = crypto.subtle.importKey('raw', buffer(publicKey), { name: 'Ed25519' }, false, ['verify']);
    importedKeys.set(cacheKey, key);
  }
  return key;
}

export const webCryptoSuite: CryptoSuite = {
  sha256: webSha256,
  verifyEd25519: async (publicKey, message, signature) => {
    if (publicKey.length !== 32 || signature.length !== 64) return false;
    return crypto.subtle.verify(
      'Ed25519',
      await importEd25519(publicKey),
      buffer(signature),
      buffer(message),
    );
  },
};
