/** Signed-note keys for Node: generation, loading, export and signing (Ed25519, see ed25519-signer). */
import { createPrivateKey, createPublicKey, type KeyObject, randomBytes } from 'node:crypto';
import { bytesEqual } from '../encoding/bytes';
import { signEd25519 } from './ed25519-signer';
import {
  formatSignerKey,
  formatVerifierKey,
  KeyFormatError,
  keyIdPreimage,
  parseSignerKeyText,
  parseVerifierKeyText,
  SIGNATURE_TYPE_COSIGNATURE_V1,
  SIGNATURE_TYPE_ED25519,
} from './key-format';
import { nodeCryptoSuite } from './node-crypto-suite';
import { isValidKeyName } from './note';
import type { VerifierKey } from './signature-checks';

const PKCS8_ED25519_PREFIX = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);

function keyIdOf(name: string, type: number, publicKey: Uint8Array): Uint8Array {
  return (nodeCryptoSuite.sha256(keyIdPreimage(name, type, publicKey)) as Uint8Array).slice(0, 4);
}

/** A Node KeyObject for a raw 32-byte Ed25519 seed (the private key of RFC 8032). */
export function ed25519PrivateKey(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** A private key able to sign notes (type 0x01) or cosignatures (type 0x04). */
export class NoteSigner {
  readonly keyId: Uint8Array;
  readonly publicKey: Uint8Array;
  readonly #privateKey: KeyObject;

  constructor(
    readonly name: string,
    readonly type: number,
    seed: Uint8Array,
  ) {
    if (!isValidKeyName(name)) throw new KeyFormatError(`invalid key name ${JSON.stringify(name)}`);
    if (seed.length !== 32) throw new KeyFormatError('an Ed25519 seed is 32 bytes');
    this.#privateKey = ed25519PrivateKey(seed);
    const spki = createPublicKey(this.#privateKey).export({ format: 'der', type: 'spki' });
    this.publicKey = new Uint8Array(spki.subarray(spki.length - 32));
    this.keyId = keyIdOf(name, type, this.publicKey);
  }

  /** Ed25519 signature (64 bytes) of `message`; deterministic, as Ed25519 is. */
  sign(message: Uint8Array): Uint8Array {
    return new Uint8Array(signEd25519(this.#privateKey, message));
  }

  /** The matching verifier key in note format. */
  get verifierKey(): string {
    return formatVerifierKey(this.name, this.keyId, this.type, this.publicKey);
  }
}

/** Loads a signer key `PRIVATE+KEY+name+keyid+base64(type ‖ seed)`, checking its key ID. */
export function loadSignerKey(text: string): NoteSigner {
  const { name, keyId, type, material } = parseSignerKeyText(text);
  const signer = new NoteSigner(name, type, material);
  if (!bytesEqual(keyId, signer.keyId)) throw new KeyFormatError(`key ID of ${name} does not match its key`);
  return signer;
}

/** Loads a verifier key `name+keyid+base64(type ‖ public key)`, checking its key ID. */
export function loadVerifierKey(text: string): VerifierKey {
  const { name, keyId, type, material } = parseVerifierKeyText(text);
  if (!bytesEqual(keyId, keyIdOf(name, type, material))) {
    throw new KeyFormatError(`key ID of ${name} does not match its public key`);
  }
  return { name, keyId, type, publicKey: material, text: text.trim() };
}

/** Exports a signer's private key in note format (the seed is the secret: handle with care). */
export function exportSignerKey(name: string, type: number, seed: Uint8Array): string {
  const signer = new NoteSigner(name, type, seed);
  return formatSignerKey(name, signer.keyId, type, seed);
}

/** A fresh key pair in note format; `name` is the log origin for logs, the witness name for witnesses. */
export function generateKeyPair(
  name: string,
  type: number = SIGNATURE_TYPE_ED25519,
): { signerKey: string; verifierKey: string } {
  if (type !== SIGNATURE_TYPE_ED25519 && type !== SIGNATURE_TYPE_COSIGNATURE_V1) {
    throw new KeyFormatError(`unsupported signature type ${type}`);
  }
  const seed = new Uint8Array(randomBytes(32));
  const signer = new NoteSigner(name, type, seed);
  return { signerKey: formatSignerKey(name, signer.keyId, type, seed), verifierKey: signer.verifierKey };
}
