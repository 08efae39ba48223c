/**
 * Secrets are compared in constant time: a presented API key against its stored hash, and a webhook
 * signature against the expected HMAC, both go through crypto.timingSafeEqual on equal-length buffers
 * (never `===` on strings, whose time depends on the first differing character).
 */
import crypto from 'node:crypto';
import { apiKeyMatches, hashApiKey, issueApiKey } from '../command-api/governance/tenants/api-keys';
import { signatureHeader, verifySignatureHeader } from '../projectors/webhooks/signature';

describe('constant-time comparisons of secrets', () => {
  let compare: jest.SpyInstance<boolean, [NodeJS.ArrayBufferView, NodeJS.ArrayBufferView]>;
  beforeEach(() => {
    compare = jest.spyOn(crypto, 'timingSafeEqual');
  });
  afterEach(() => {
    compare.mockRestore();
  });

  /** Every call compared two buffers of the same length, `bytes` long. */
  const comparedEqualLengths = (bytes: number) =>
    compare.mock.calls.every(([a, b]) => a.byteLength === bytes && b.byteLength === bytes);

  it('given an issued key, when it or a key differing in one character is presented, then the hashes are compared with timingSafeEqual', () => {
    const issued = issueApiKey('live');
    const wrong = `${issued.apiKey.slice(0, -1)}${issued.apiKey.endsWith('A') ? 'B' : 'A'}`;
    expect(apiKeyMatches(issued.apiKey, issued.keyHash)).toBe(true);
    expect(apiKeyMatches(wrong, issued.keyHash)).toBe(false);
    expect(compare).toHaveBeenCalledTimes(2);
    expect(comparedEqualLengths(32)).toBe(true);
  });

  it('given a stored hash of another length (a damaged record), then the key does not match and nothing throws', () => {
    const issued = issueApiKey('test');
    expect(apiKeyMatches(issued.apiKey, hashApiKey(issued.apiKey).slice(0, 62))).toBe(false);
    expect(apiKeyMatches(issued.apiKey, '')).toBe(false);
  });

  it('given a webhook body, when its signature or a forged one is checked, then the HMACs are compared with timingSafeEqual', () => {
    const secret = 'a-webhook-secret-of-some-length';
    const body = '{"type":"leaf_admitted"}';
    const header = signatureHeader(secret, body);
    const forged = `sha256=${'0'.repeat(64)}`;
    expect(verifySignatureHeader(secret, body, header)).toBe(true);
    expect(verifySignatureHeader(secret, body, forged)).toBe(false);
    expect(compare).toHaveBeenCalledTimes(2);
    expect(comparedEqualLengths(32)).toBe(true);
  });
});
