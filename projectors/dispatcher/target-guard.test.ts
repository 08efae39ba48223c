import { TargetGuard } from './target-guard';

/** A resolver answering from a fixed table, so no test touches real DNS. */
function dnsOf(table: Record<string, string[]>) {
  return async (host: string) => {
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses;
  };
}

const PUBLIC = '93.184.215.14';

describe('webhook target guard (SSRF)', () => {
  const guard = new TargetGuard({
    allow: [],
    resolve: dnsOf({ 'hooks.example': [PUBLIC], 'v6.example': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'] }),
  });

  it('given a host resolving to a public address, then the target is ok with the checked addresses', async () => {
    const result = await guard.check('https://hooks.example/gov?x=1');
    expect(result).toEqual({ ok: true, url: new URL('https://hooks.example/gov?x=1'), addresses: [PUBLIC] });
    await expect(guard.check('http://v6.example:8080/')).resolves.toMatchObject({ ok: true });
  });

  it('given public IP literals, then they are ok without any DNS lookup', async () => {
    const noDns = new TargetGuard({ allow: [], resolve: () => Promise.reject(new Error('no DNS here')) });
    await expect(noDns.check(`http://${PUBLIC}/`)).resolves.toMatchObject({ ok: true, addresses: [PUBLIC] });
    await expect(noDns.check('https://[2606:4700::1111]/')).resolves.toMatchObject({
      ok: true,
      addresses: ['2606:4700::1111'],
    });
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.7', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private (RFC 1918)'],
    ['172.16.0.1', 'private (RFC 1918)'],
    ['172.31.255.254', 'private (RFC 1918)'],
    ['192.168.1.1', 'private (RFC 1918)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['169.254.169.254', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['::ffff:127.0.0.1', 'IPv4-mapped 127.0.0.1, in the loopback'],
    ['::ffff:10.0.0.1', 'IPv4-mapped 10.0.0.1, in the private (RFC 1918)'],
    ['::ffff:169.254.169.254', 'IPv4-mapped 169.254.169.254, the cloud metadata'],
  ])('given a host resolving to %s, then it is refused as %s', async (address, range) => {
    const dns = new TargetGuard({ allow: [], resolve: dnsOf({ 'hooks.example': [address] }) });
    const result = await dns.check('https://hooks.example/');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain(`hooks.example resolves to ${address}, which is`);
    expect(!result.ok && result.reason).toContain(range);
  });

  it.each([
    ['http://127.0.0.1:8080/', 'loopback range 127.0.0.0/8'],
    ['http://0x7f.1/', 'loopback range 127.0.0.0/8'],
    ['http://2130706433/', 'loopback range 127.0.0.0/8'],
    ['http://[::1]/', 'the loopback address'],
    ['http://[::ffff:7f00:1]/', 'IPv4-mapped 127.0.0.1, in the loopback range'],
    ['http://[0:0:0:0:0:ffff:a00:1]/', 'IPv4-mapped 10.0.0.1, in the private (RFC 1918) range 10.0.0.0/8'],
    ['http://169.254.169.254/latest/meta-data/', 'the cloud metadata address'],
    ['http://[fd00:ec2::254]/', 'the cloud metadata address'],
    ['http://172.20.0.1/', 'private (RFC 1918) range 172.16.0.0/12'],
    ['http://0.0.0.0/', 'unspecified range 0.0.0.0/8'],
  ])('given the IP literal URL %s, then it is refused (%s)', async (url, reason) => {
    const result = await guard.check(url);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain(reason);
  });

  it('given the metadata.google.internal host, then it is refused whatever it resolves to', async () => {
    const dns = new TargetGuard({ allow: [], resolve: dnsOf({ 'metadata.google.internal': [PUBLIC] }) });
    for (const url of [
      'http://metadata.google.internal/',
      'http://Metadata.Google.Internal./computeMetadata/',
    ]) {
      const result = await dns.check(url);
      expect(result).toEqual({ ok: false, reason: expect.stringContaining('cloud metadata') });
    }
  });

  it('given DNS answering one public and one private address, then the target is refused', async () => {
    const dns = new TargetGuard({ allow: [], resolve: dnsOf({ 'rebind.example': [PUBLIC, '10.0.0.7'] }) });
    const result = await dns.check('https://rebind.example/');
    expect(result).toEqual({
      ok: false,
      reason: expect.stringContaining('10.0.0.7, which is in the private'),
    });
  });

  it('given credentials in the URL, then it is refused', async () => {
    for (const url of [
      'https://user:pass@hooks.example/',
      'https://user@hooks.example/',
      'https://:pw@hooks.example/',
    ]) {
      const result = await guard.check(url);
      expect(result).toEqual({ ok: false, reason: expect.stringContaining('credentials') });
    }
  });

  it.each([
    'ftp://hooks.example/',
    'file:///etc/passwd',
    'gopher://hooks.example/',
    'javascript:alert(1)',
    'ws://hooks.example/',
  ])('given the non-http scheme %s, then it is refused', async (url) => {
    const result = await guard.check(url);
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('use http or https') });
  });

  it('given text that is not a URL, then it is refused', async () => {
    await expect(guard.check('hooks.example/gov')).resolves.toEqual({ ok: false, reason: 'not a valid URL' });
  });

  it('given a host that does not resolve, or resolves to nothing, then it is refused', async () => {
    const result = await guard.check('https://nowhere.example/');
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('does not resolve (ENOTFOUND)') });
    const empty = new TargetGuard({ allow: [], resolve: dnsOf({ 'empty.example': [] }) });
    await expect(empty.check('https://empty.example/')).resolves.toMatchObject({ ok: false });
  });

  it('given an allow-list with 127.0.0.1, then loopback 127.0.0.1 is permitted and 127.0.0.2 still refused', async () => {
    const allowing = new TargetGuard({
      allow: ['127.0.0.1'],
      resolve: dnsOf({ 'local.test': ['127.0.0.1'] }),
    });
    await expect(allowing.check('http://127.0.0.1:3000/hook')).resolves.toMatchObject({ ok: true });
    await expect(allowing.check('http://local.test:3000/hook')).resolves.toMatchObject({
      ok: true,
      addresses: ['127.0.0.1'],
    });
    await expect(allowing.check('http://[::ffff:127.0.0.1]/')).resolves.toMatchObject({ ok: true });
    await expect(allowing.check('http://127.0.0.2/')).resolves.toMatchObject({ ok: false });
    await expect(allowing.check('http://[::1]/')).resolves.toMatchObject({ ok: false });
  });

  it('given an allow-list with CIDRs and IPv6 entries, then addresses inside them are permitted', async () => {
    const allowing = new TargetGuard({ allow: ['10.0.0.0/8', '::1', 'fd00::/8'] });
    for (const url of ['http://10.20.30.40/', 'http://[::1]/', 'http://[fd12::1]/']) {
      await expect(allowing.check(url)).resolves.toMatchObject({ ok: true });
    }
    await expect(allowing.check('http://192.168.0.1/')).resolves.toMatchObject({ ok: false });
  });

  it('given an approved IP-literal target, when it is checked again, then the first approval answers (nothing to resolve)', async () => {
    const allowing = new TargetGuard({ allow: ['127.0.0.1'] });
    const first = await allowing.check('http://127.0.0.1:3000/hook');
    expect(first).toMatchObject({ ok: true });
    await expect(allowing.check('http://127.0.0.1:3000/hook')).resolves.toBe(first);
    // Another URL on the same address is its own target.
    await expect(allowing.check('http://127.0.0.1:3000/other')).resolves.not.toBe(first);
  });

  it('given a host name, when it is checked again, then it is resolved again every time', async () => {
    const answers = [[PUBLIC], ['10.0.0.9']];
    const resolve = jest.fn(async () => answers.shift() ?? []);
    const dns = new TargetGuard({ allow: [], resolve });
    await expect(dns.check('https://hooks.example/')).resolves.toMatchObject({ ok: true });
    await expect(dns.check('https://hooks.example/')).resolves.toMatchObject({ ok: false });
    expect(resolve).toHaveBeenCalledTimes(2);
  });

  it.each(['localhost', '10.0.0.0/33', '10.0.0.0/', '10.0.0.0/8/8', '::1/129', '300.0.0.1'])(
    'given the allow-list entry %p, then the guard refuses the configuration',
    (entry) => {
      expect(() => new TargetGuard({ allow: [entry] })).toThrow(/allow-list entry/);
    },
  );
});
