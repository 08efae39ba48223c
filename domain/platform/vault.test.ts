/** The vault's AES-256-GCM recipe: round trips, and every wrong key, place or byte opens nothing. */
import { randomBytes } from 'node:crypto';
import {
  isVaultProvider,
  newVaultDataKey,
  openVaultKey,
  parseVaultMasterKey,
  sealVaultKey,
  unwrapVaultDataKey,
  vaultKeyPrefix,
  vaultMasterKeyId,
} from './vault';

const USER = `usr_${'a'.repeat(24)}`;
const OTHER_USER = `usr_${'b'.repeat(24)}`;
const AGENT = `svc_${'a'.repeat(26)}`;
const OTHER_AGENT = `svc_${'b'.repeat(26)}`;
const KEY = 'sk-proj-VAULTTEST-0123456789abcdefghijklmnop';
const place = { userId: USER, agentId: AGENT, provider: 'openai' as const };

describe('the vault recipe', () => {
  const master = randomBytes(32);

  it('wraps a data key that only the same master key and user unwrap', () => {
    const { dataKey, wrapped } = newVaultDataKey(master, USER);
    expect(wrapped).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(wrapped).not.toContain(dataKey.toString('base64url'));
    expect(unwrapVaultDataKey(master, USER, wrapped)).toEqual(dataKey);
    expect(unwrapVaultDataKey(randomBytes(32), USER, wrapped)).toBeNull();
    expect(unwrapVaultDataKey(master, OTHER_USER, wrapped)).toBeNull();
  });

  it('seals a model key that opens only with its data key, user, agent and provider', () => {
    const { dataKey } = newVaultDataKey(master, USER);
    const sealed = sealVaultKey(dataKey, place, KEY);
    expect(sealed).not.toContain(KEY);
    expect(sealed).not.toContain('VAULTTEST');
    expect(openVaultKey(dataKey, place, sealed)).toBe(KEY);
    expect(openVaultKey(randomBytes(32), place, sealed)).toBeNull();
    expect(openVaultKey(dataKey, { ...place, agentId: OTHER_AGENT }, sealed)).toBeNull();
    expect(openVaultKey(dataKey, { ...place, userId: OTHER_USER }, sealed)).toBeNull();
    expect(openVaultKey(dataKey, { ...place, provider: 'google' }, sealed)).toBeNull();
  });

  it('given an altered byte or a malformed value, then nothing opens', () => {
    const { dataKey } = newVaultDataKey(master, USER);
    const sealed = sealVaultKey(dataKey, place, KEY);
    // A bit of the ciphertext itself: a base64url text's last character may carry unused bits.
    const [version, iv, tag, ciphertext] = sealed.split('.') as [string, string, string, string];
    const altered = Buffer.from(ciphertext, 'base64url');
    altered[0]! ^= 1;
    expect(
      openVaultKey(dataKey, place, [version, iv, tag, altered.toString('base64url')].join('.')),
    ).toBeNull();
    expect(openVaultKey(dataKey, place, 'v2.nothing')).toBeNull();
  });

  it('seals the same key twice differently (a fresh IV each time)', () => {
    const { dataKey } = newVaultDataKey(master, USER);
    expect(sealVaultKey(dataKey, place, KEY)).not.toBe(sealVaultKey(dataKey, place, KEY));
  });

  it('names a master key by an HMAC, the same for the same key and never the key', () => {
    const id = vaultMasterKeyId(master);
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(vaultMasterKeyId(Buffer.from(master))).toBe(id);
    expect(vaultMasterKeyId(randomBytes(32))).not.toBe(id);
    expect(master.toString('hex')).not.toContain(id);
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => newVaultDataKey(randomBytes(16), USER)).toThrow(RangeError);
    expect(() => sealVaultKey(randomBytes(31), place, KEY)).toThrow(RangeError);
  });

  it('shows a key as its first 8 characters and an ellipsis', () => {
    expect(vaultKeyPrefix(KEY)).toBe('sk-proj-…');
  });

  it('reads GOV_VAULT_KEY as 64 hex characters only', () => {
    const hex = 'ab'.repeat(32);
    expect(parseVaultMasterKey(` ${hex}\n`)).toEqual(Buffer.from(hex, 'hex'));
    expect(parseVaultMasterKey('ab'.repeat(31))).toBeNull();
    expect(parseVaultMasterKey(Buffer.alloc(32).toString('base64'))).toBeNull();
  });

  it('knows the three providers', () => {
    expect(['openai', 'anthropic', 'google'].every(isVaultProvider)).toBe(true);
    expect(isVaultProvider('offline')).toBe(false);
  });
});
