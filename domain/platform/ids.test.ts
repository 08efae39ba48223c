import { createHash } from 'node:crypto';
import {
  API_KEY_PREFIX_LENGTH,
  apiKeyMatches,
  base32Lower,
  hashApiKey,
  isAgentId,
  isKeyId,
  isRawApiKey,
  isSessionId,
  isUserId,
  leafHashText,
  newAgentId,
  newApiKey,
  newNonce,
  newSessionId,
  parseLeafHashText,
  userIdOfEmail,
} from './ids';

/** A random source that returns the same byte every time: pins every generator's output. */
const fill = (byte: number) => (n: number) => new Uint8Array(n).fill(byte);

describe('platform ids', () => {
  it.each([
    ['', ''],
    ['f', 'my'],
    ['fo', 'mzxq'],
    ['foo', 'mzxw6'],
    ['foob', 'mzxw6yq'],
    ['fooba', 'mzxw6ytb'],
    ['foobar', 'mzxw6ytboi'],
  ])('base32 of %j is the RFC 4648 test vector %j (lower case, unpadded)', (input, expected) => {
    expect(base32Lower(Buffer.from(input))).toBe(expected);
  });

  it('an agent id is svc_ and 26 base32 characters of 128 random bits', () => {
    expect(newAgentId(fill(0))).toBe(`svc_${'a'.repeat(26)}`);
    // 128 one-bits: 25 full characters of 7, then 3 bits padded with two zeros: 0b11100 = 28 = '4'.
    expect(newAgentId(fill(0xff))).toBe(`svc_${'7'.repeat(25)}4`);
    const ids = new Set(Array.from({ length: 200 }, () => newAgentId()));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(isAgentId(id)).toBe(true);
  });

  it.each([
    [`svc_${'a'.repeat(26)}`, true],
    [`svc_${'a'.repeat(25)}`, false],
    [`svc_${'a'.repeat(27)}`, false],
    [`svc_${'A'.repeat(26)}`, false],
    [`svc_${'a'.repeat(25)}1`, false],
    [`svc_sk_${'a'.repeat(43)}`, false],
    [`usr_${'a'.repeat(26)}`, false],
    [42, false],
  ])('isAgentId(%j) is %s', (value, expected) => {
    expect(isAgentId(value)).toBe(expected);
  });

  it('a user id is the first 24 hex of SHA-256 of the trimmed, lower-cased email', () => {
    const digest = createHash('sha256').update('ada@example.com').digest('hex');
    expect(userIdOfEmail('ada@example.com')).toBe(`usr_${digest.slice(0, 24)}`);
    expect(userIdOfEmail('  Ada@Example.COM \n')).toBe(userIdOfEmail('ada@example.com'));
    expect(userIdOfEmail('bob@example.com')).not.toBe(userIdOfEmail('ada@example.com'));
    expect(isUserId(userIdOfEmail('ada@example.com'))).toBe(true);
    expect(isUserId(`usr_${'A'.repeat(24)}`)).toBe(false);
  });

  it('an API key is svc_sk_ and 43 base64url characters; its id, prefix and hash follow the contract', () => {
    const key = newApiKey(fill(0xfb));
    expect(key.raw).toBe(`svc_sk_${Buffer.alloc(32, 0xfb).toString('base64url')}`);
    expect(key.raw).toMatch(/^svc_sk_[A-Za-z0-9_-]{43}$/);
    expect(key.keyId).toBe(`key_${'fb'.repeat(12)}`);
    expect(key.prefix).toBe(key.raw.slice(0, 14));
    expect(key.prefix).toHaveLength(API_KEY_PREFIX_LENGTH);
    expect(key.hash).toBe(createHash('sha256').update(key.raw).digest('hex'));
    expect(isRawApiKey(key.raw)).toBe(true);
    expect(isKeyId(key.keyId)).toBe(true);
    const fresh = newApiKey();
    expect(fresh.raw).not.toBe(newApiKey().raw);
    expect(isRawApiKey(fresh.raw)).toBe(true);
  });

  it.each([
    [`svc_sk_${'A'.repeat(43)}`, true],
    [`svc_sk_${'A'.repeat(42)}`, false],
    [`svc_sk_${'A'.repeat(42)}=`, false],
    [`svc_${'a'.repeat(26)}`, false],
    [`gov_live_${'0'.repeat(16)}_${'A'.repeat(43)}`, false],
  ])('isRawApiKey(%j) is %s', (value, expected) => {
    expect(isRawApiKey(value)).toBe(expected);
  });

  it('a presented key matches only its own stored hash', () => {
    const key = newApiKey();
    expect(apiKeyMatches(key.raw, key.hash)).toBe(true);
    expect(apiKeyMatches(newApiKey().raw, key.hash)).toBe(false);
    expect(apiKeyMatches(key.raw, key.hash.toUpperCase())).toBe(false);
    expect(apiKeyMatches(key.raw, 'short')).toBe(false);
    expect(hashApiKey(key.raw)).toBe(key.hash);
  });

  it('session ids are ses_ and 24 hex; nonces are 64 hex', () => {
    expect(newSessionId(fill(0xab))).toBe(`ses_${'ab'.repeat(12)}`);
    expect(isSessionId(newSessionId())).toBe(true);
    expect(isSessionId('ses_123')).toBe(false);
    expect(newNonce(fill(1))).toBe('01'.repeat(32));
    expect(newNonce()).toMatch(/^[0-9a-f]{64}$/);
  });

  it('writes a leaf hash as sha256:<hex> and refuses to write anything else', () => {
    const hex = 'ab'.repeat(32);
    expect(leafHashText(hex)).toBe(`sha256:${hex}`);
    expect(() => leafHashText('AB'.repeat(32))).toThrow(/64 lowercase hex/);
    expect(() => leafHashText('ab')).toThrow(/64 lowercase hex/);
  });

  it.each([
    [`sha256:${'ab'.repeat(32)}`, 'ab'.repeat(32)],
    [`sha256:${'AB'.repeat(32)}`, null],
    [`SHA256:${'ab'.repeat(32)}`, null],
    ['ab'.repeat(32), null],
    [`sha256:${'ab'.repeat(31)}`, null],
    [`sha256:${'ab'.repeat(32)}00`, null],
    [`sha512:${'ab'.repeat(32)}`, null],
    [` sha256:${'ab'.repeat(32)}`, null],
    [null, null],
  ])('parseLeafHashText(%j) is %j', (text, expected) => {
    expect(parseLeafHashText(text)).toBe(expected);
  });
});
