/**
 * Rate limits: POST /auto-register per client address and clock hour (X-Forwarded-For only behind a
 * trusted proxy), and the authenticated routes per tenant, whichever of its keys is used.
 */
import { ConfigError, loadConfig } from '../runtime/config/config';
import { addressKey } from '../runtime/http/client-address';
import {
  type ErrorAnswer,
  HOUR_MS,
  MINUTE_MS,
  startOfUtcDay,
  startTestServer,
  TestClock,
  type TestServer,
} from './support/governance-client';

let emails = 0;
const registration = () => ({ email: `limit${++emails}@example.com` });

describe('POST /auto-register per client address', () => {
  let t: TestServer;
  // 10:15 UTC: 45 minutes before the next clock hour.
  const clock = new TestClock(startOfUtcDay(Date.now()) + 10 * HOUR_MS + 15 * MINUTE_MS);
  const head = () => t.server.services.eventStore.headPosition();
  const register = (headers: Record<string, string> = {}) =>
    t.client.request<ErrorAnswer>('POST', '/auto-register', { json: registration(), headers });

  beforeAll(async () => {
    t = await startTestServer('gov-registration-limit', {
      clock,
      env: { GOV_REGISTRATIONS_PER_IP_HOUR: '3' },
    });
  });
  afterAll(async () => {
    await t?.dispose();
  });

  it('given a limit of 3 an hour, when one address registers 3 tenants, then each is created', async () => {
    for (let i = 0; i < 3; i++) expect((await register()).status).toBe(201);
  });

  it('then an invalid registration is still answered 400 (it does not count, and is not hidden by the limit)', async () => {
    const res = await t.client.request<ErrorAnswer>('POST', '/auto-register', { json: { email: 'nope' } });
    expect(res.status).toBe(400);
  });

  it('then the 4th answers 429 RATE_LIMITED with Retry-After up to the next clock hour, and appends nothing', async () => {
    const before = await head();
    const res = await register();
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({
      error: 'RATE_LIMITED',
      message: expect.stringMatching(/3 registrations/),
    });
    expect(res.headers.get('retry-after')).toBe(String(45 * 60));
    expect(await head()).toBe(before);
  });

  it('given the address claims to be someone else in X-Forwarded-For, when no proxy is trusted (the default), then it is still limited', async () => {
    const res = await register({ 'x-forwarded-for': '203.0.113.50' });
    expect(res.status).toBe(429);
  });

  it('given the next clock hour, then the address may register again', async () => {
    clock.advance(45 * MINUTE_MS);
    expect((await register()).status).toBe(201);
  });
});

describe('POST /auto-register behind a trusted proxy (GOV_TRUST_PROXY_HOPS=1)', () => {
  let t: TestServer;
  const register = (forwardedFor?: string) =>
    t.client.request<ErrorAnswer>('POST', '/auto-register', {
      json: registration(),
      headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
    });

  beforeAll(async () => {
    t = await startTestServer('gov-registration-proxy', {
      env: { GOV_REGISTRATIONS_PER_IP_HOUR: '2', GOV_TRUST_PROXY_HOPS: '1' },
    });
  });
  afterAll(async () => {
    await t?.dispose();
  });

  it('given two clients behind the proxy, then each has its own allowance', async () => {
    expect((await register('203.0.113.1')).status).toBe(201);
    expect((await register('203.0.113.1')).status).toBe(201);
    expect((await register('203.0.113.1')).status).toBe(429);
    expect((await register('203.0.113.2')).status).toBe(201);
  });

  it('given a client that prepends a forged address, then it is counted by the address the proxy saw (the last one)', async () => {
    expect((await register('198.51.100.9, 203.0.113.1')).status).toBe(429);
    expect((await register('203.0.113.1, 198.51.100.9')).status).toBe(201);
  });

  it('given IPv6 clients, then one /64 shares one allowance and another /64 has its own', async () => {
    expect((await register('2001:db8:1:2::1')).status).toBe(201);
    expect((await register('2001:db8:1:2:ffff::9')).status).toBe(201);
    expect((await register('2001:db8:1:2::abcd')).status).toBe(429);
    expect((await register('2001:db8:1:3::1')).status).toBe(201);
  });
});

describe('client address keys', () => {
  it.each([
    ['203.0.113.9', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:0:0:9', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::ffff:1.2.3.4.5', 'other:::ffff:1.2.3.4.5'],
  ])('%s counts as %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });
});

describe('the limit settings', () => {
  it.each([
    [{ GOV_REGISTRATIONS_PER_IP_HOUR: '0' }, /GOV_REGISTRATIONS_PER_IP_HOUR must be an integer from 1/],
    [{ GOV_TRUST_PROXY_HOPS: '-1' }, /GOV_TRUST_PROXY_HOPS must be an integer from 0 to 10/],
    [{ GOV_TRUST_PROXY_HOPS: 'yes' }, /GOV_TRUST_PROXY_HOPS must be an integer/],
  ])('given %o, then the configuration is refused naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('given nothing set, then 10 registrations an hour per address and no proxy trusted', () => {
    expect(loadConfig({})).toMatchObject({ registrationsPerIpHour: 10, trustProxyHops: 0 });
  });
});

describe('authenticated routes per tenant', () => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer('gov-tenant-limit');
  });
  afterAll(async () => {
    await t?.dispose();
  });

  it('given a Trial tenant (60 requests a minute) with a rotated key, when it spreads requests over its old and new key, then they share one allowance: the 61st answers 429', async () => {
    const tenant = await t.client.register();
    const rotated = await t.client.post<{ api_key: string }>('/api-key/rotate', undefined, tenant.api_key);
    expect(rotated.status).toBe(200);
    // The rotation was the first request of the minute.
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      const key = i % 2 === 0 ? tenant.api_key : rotated.body.api_key;
      statuses.push((await t.client.get('/account', key)).status);
    }
    expect(statuses.slice(0, 59).every((status) => status === 200)).toBe(true);
    const limited = await t.client.get<ErrorAnswer>('/account', rotated.body.api_key);
    expect(statuses[59]).toBe(429);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
