/** The CryptoSuite for browsers (and any runtime with WebCrypto): crypto.subtle SHA-256 and Ed25519. */
import type { CryptoSuite } from './signature-checks';

/** Copies into a fresh ArrayBuffer-backed array, which is what WebCrypto's typings accept. */
function buffer(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return copy;
}

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

export async function webSha256(data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', buffer(data)));
}

/** SHA-256(0x01 ‖ left ‖ right). */
export async function webHashChildren(left: Uint8Array, right: Uint8Array): Promise<Uint8Array> {
  const message = new Uint8Array(1 + left.length + right.length);
  message[0] = 0x01;
  message.set(left, 1);
  message.set(right, 1 + left.length);
  return new Uint8Array(await crypto.subtle.digest('SHA-256', message));
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
