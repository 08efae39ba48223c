/** Ed25519 signing: libsodium and node:crypto write the same signatures, those of RFC 8032. */
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import fc from 'fast-check';
import { ed25519Implementation, ed25519Signer, signEd25519 } from './ed25519-signer';
import { ed25519PrivateKey as privateKeyOf } from './keys';

/** RFC 8032 section 7.1, TESTs 1 and 2. */
const RFC8032_VECTORS = [
  {
    seed: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    message: '',
    signature:
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    seed: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    message: '72',
    signature:
      '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
];

const sodiumInstalled = (() => {
  try {
    require.resolve('sodium-native');
    return true;
  } catch {
    return false;
  }
})();

describe('Ed25519 signing', () => {
  it('uses libsodium by default wherever the optional sodium-native package is installed', () => {
    expect(ed25519Implementation()).toBe(sodiumInstalled ? 'libsodium' : 'node:crypto');
  });

  const implementations = sodiumInstalled
    ? (['libsodium', 'node:crypto'] as const)
    : (['node:crypto'] as const);

  it.each(implementations)('%s writes the RFC 8032 test vectors', (implementation) => {
    for (const vector of RFC8032_VECTORS) {
      const sign = ed25519Signer(privateKeyOf(Buffer.from(vector.seed, 'hex')), implementation);
      expect(sign(Buffer.from(vector.message, 'hex')).toString('hex')).toBe(vector.signature);
    }
  });

  it('libsodium and node:crypto write the same bytes for any key and message, and Node verifies them', () => {
    if (!sodiumInstalled) return; // nothing to compare with: node:crypto is the only implementation
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ maxLength: 3000 }),
        (seed, message) => {
          const key = privateKeyOf(seed);
          const bySodium = ed25519Signer(key, 'libsodium')(message);
          expect(bySodium.toString('hex')).toBe(ed25519Signer(key, 'node:crypto')(message).toString('hex'));
          expect(verify(null, message, createPublicKey(key), bySodium)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('signEd25519 signs with the key it is given, key by key', () => {
    const a = generateKeyPairSync('ed25519');
    const b = generateKeyPairSync('ed25519');
    const message = Buffer.from('the same message');
    expect(verify(null, message, a.publicKey, signEd25519(a.privateKey, message))).toBe(true);
    expect(verify(null, message, b.publicKey, signEd25519(b.privateKey, message))).toBe(true);
    expect(verify(null, message, b.publicKey, signEd25519(a.privateKey, message))).toBe(false);
  });

  it('GOV_ED25519=node:crypto keeps libsodium out', () => {
    expect(ed25519Implementation({ GOV_ED25519: 'node:crypto' })).toBe('node:crypto');
    expect(ed25519Implementation({ GOV_ED25519: 'libsodium' })).toBe(ed25519Implementation({}));
  });

  it('refuses a key that is not an Ed25519 private key', () => {
    expect(() => ed25519Signer(generateKeyPairSync('x25519').privateKey)).toThrow(TypeError);
    expect(() => ed25519Signer(generateKeyPairSync('ed25519').publicKey)).toThrow(TypeError);
  });
});
