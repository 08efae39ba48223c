import { createSecretKey, randomBytes } from 'node:crypto';
import { generateWebhookSecret, openSecret, sealSecret } from './secret-box';

const key = randomBytes(32);
const secret = 'whsec_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';

describe('webhook secret box (AES-256-GCM at rest)', () => {
  it('given a sealed secret, when opened with the same key and webhook id, then the secret comes back', () => {
    const sealed = sealSecret(key, 'wh_1', secret);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(secret);
    expect(openSecret(key, 'wh_1', sealed)).toBe(secret);
    expect(openSecret(createSecretKey(key), 'wh_1', sealed)).toBe(secret);
  });

  it('given the same secret sealed twice, then the ciphertexts differ (fresh IV)', () => {
    expect(sealSecret(key, 'wh_1', secret)).not.toBe(sealSecret(key, 'wh_1', secret));
  });

  it('given a tampered ciphertext, tag or IV, when opened, then it throws', () => {
    const [version, iv, tag, ciphertext] = sealSecret(key, 'wh_1', secret).split('.') as [
      string,
      string,
      string,
      string,
    ];
    const flip = (part: string) => {
      const bytes = Buffer.from(part, 'base64url');
      bytes[0]! ^= 1;
      return bytes.toString('base64url');
    };
    for (const sealed of [
      [version, iv, tag, flip(ciphertext)],
      [version, iv, flip(tag), ciphertext],
      [version, flip(iv), tag, ciphertext],
    ]) {
      expect(() => openSecret(key, 'wh_1', sealed.join('.'))).toThrow(/does not open/);
    }
  });

  it('given a sealed secret moved to another webhook, when opened under that id, then it throws', () => {
    const sealed = sealSecret(key, 'wh_1', secret);
    expect(() => openSecret(key, 'wh_2', sealed)).toThrow(/does not open/);
  });

  it('given the wrong server key, when opened, then it throws', () => {
    const sealed = sealSecret(key, 'wh_1', secret);
    expect(() => openSecret(randomBytes(32), 'wh_1', sealed)).toThrow(/does not open/);
  });

  it.each(['', 'v2.a.b.c', 'v1.only.three', `v1.${'A'.repeat(16)}.${'A'.repeat(21)}.AAAA`])(
    'given malformed text %p, when opened, then it throws',
    (sealed) => {
      expect(() => openSecret(key, 'wh_1', sealed)).toThrow(/not a sealed webhook secret/);
    },
  );

  it('given a key that is not 32 bytes, then sealing and opening refuse it', () => {
    expect(() => sealSecret(randomBytes(16), 'wh_1', secret)).toThrow(/32 bytes/);
    expect(() => openSecret(randomBytes(16), 'wh_1', sealSecret(key, 'wh_1', secret))).toThrow(/32 bytes/);
  });

  it('when a secret is generated, then it is whsec_ and 32 random bytes in base64url', () => {
    const generated = generateWebhookSecret();
    expect(generated).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(generated.slice('whsec_'.length), 'base64url')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(generated);
  });
});
