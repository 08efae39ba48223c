import { isIP } from 'node:net';
import fc from 'fast-check';
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

  /**
   * Addresses with an IPv4 address inside, and special-purpose ranges (IANA IPv4 and IPv6
   * Special-Purpose Address Registries): each is judged both as an IP literal (what registration
   * sees) and as the address a host name resolves to (what every attempt checks before it connects).
   */
  const SPECIAL: ReadonlyArray<[string, string]> = [
    ['64:ff9b::7f00:1', 'NAT64 (64:ff9b::/96) of 127.0.0.1, in the loopback range 127.0.0.0/8'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 (64:ff9b::/96) of 169.254.169.254, the cloud metadata address'],
    ['64:ff9b:1::a00:1', 'local-use NAT64 (64:ff9b:1::/48) of 10.0.0.1, in the private (RFC 1918)'],
    // RFC 6052's /48 form: 127.0.0.1 in bits 48-63 and 72-87
    ['64:ff9b:1:7f00:0:100::', 'local-use NAT64 (64:ff9b:1::/48) of 127.0.0.1, in the loopback'],
    // its /64 form reads 127.0.0.8; its last 32 bits (8.0.0.0) are public, and do not let it through
    ['64:ff9b:1:0:7f:0:800:0', 'local-use NAT64 (64:ff9b:1::/48) of 127.0.0.8, in the loopback'],
    ['2002:7f00:1::', '6to4 (2002::/16) of 127.0.0.1, in the loopback range 127.0.0.0/8'],
    ['2002:a9fe:a9fe::1', '6to4 (2002::/16) of 169.254.169.254, the cloud metadata address'],
    ['::7f00:1', 'IPv4-compatible 127.0.0.1, in the loopback range 127.0.0.0/8'],
    ['::a00:1', 'IPv4-compatible 10.0.0.1, in the private (RFC 1918) range 10.0.0.0/8'],
    ['::ffff:0:7f00:1', 'IPv4-translated 127.0.0.1, in the loopback range 127.0.0.0/8'],
    ['::ffff:c612:1', 'IPv4-mapped 198.18.0.1, in the benchmarking range 198.18.0.0/15'],
    // Teredo: server 127.0.0.1 (bits 32-63); client 8.8.8.8 (the last 32 bits, inverted)
    ['2001:0:7f00:1:0:0:f7f7:f7f7', 'Teredo (2001::/32) server 127.0.0.1, in the loopback'],
    // server 65.54.227.120; client 10.0.0.1
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'Teredo (2001::/32) client 10.0.0.1, in the private'],
    ['198.18.0.1', 'in the benchmarking range 198.18.0.0/15'],
    ['198.19.255.254', 'in the benchmarking range 198.18.0.0/15'],
    ['192.0.0.1', 'in the IETF protocol assignments range 192.0.0.0/24'],
    ['192.0.0.192', 'in the IETF protocol assignments range 192.0.0.0/24'],
    ['192.0.2.1', 'in the documentation (TEST-NET-1) range 192.0.2.0/24'],
    ['198.51.100.7', 'in the documentation (TEST-NET-2) range 198.51.100.0/24'],
    ['203.0.113.9', 'in the documentation (TEST-NET-3) range 203.0.113.0/24'],
    ['192.88.99.1', 'in the 6to4 relay anycast range 192.88.99.0/24'],
    ['240.0.0.1', 'in the reserved range 240.0.0.0/4'],
    ['255.255.255.254', 'in the reserved range 240.0.0.0/4'],
    ['100::1', 'in the discard-only range 100::/64'],
    ['100:0:0:1::1', 'in the dummy prefix range 100:0:0:1::/64'],
    ['2001:db8::1', 'in the documentation range 2001:db8::/32'],
    ['2001:2::1', 'in the IETF protocol assignments range 2001::/23'],
    ['2001:1ff::1', 'in the IETF protocol assignments range 2001::/23'],
    ['3fff::1', 'in the documentation range 3fff::/20'],
    ['5f00::1', 'in the SRv6 SIDs range 5f00::/16'],
    ['fec0::1', 'in the site-local (deprecated) range fec0::/10'],
  ];

  it.each(SPECIAL)('given the IP literal %s in a URL, then it is refused (%s)', async (address, reason) => {
    const literal = isIP(address) === 6 ? `[${address}]` : address;
    const result = await guard.check(`https://${literal}:8443/hook`);
    expect(result).toEqual({ ok: false, reason: expect.stringContaining(`, which is ${reason}`) });
    expect(!result.ok && result.reason).toContain('not allowed as a webhook target');
  });

  it.each(SPECIAL)(
    'given a host resolving to %s when an attempt connects, then it is refused (%s)',
    async (address, reason) => {
      const dns = new TargetGuard({ allow: [], resolve: dnsOf({ 'hooks.example': [PUBLIC, address] }) });
      const result = await dns.check('https://hooks.example/');
      expect(result).toEqual({
        ok: false,
        reason: expect.stringContaining(`hooks.example resolves to ${address}, which is ${reason}`),
      });
    },
  );

  it.each([
    ['64:ff9b::808:808', 'NAT64 of 8.8.8.8'],
    ['64:ff9b:1::808:808', 'local-use NAT64 of 8.8.8.8'],
    ['2002:808:808::1', '6to4 of 8.8.8.8'],
    ['::808:808', 'IPv4-compatible 8.8.8.8'],
    ['::ffff:8.8.8.8', 'IPv4-mapped 8.8.8.8'],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'Teredo, server 65.54.227.120, client 8.8.8.8'],
    ['2001:200::1', 'just past 2001::/23'],
    ['198.20.0.1', 'just past 198.18.0.0/15'],
    ['192.0.3.1', 'just past 192.0.2.0/24'],
    ['2001:db9::1', 'just past 2001:db8::/32'],
  ])('given a host resolving to %s (%s), then it is allowed', async (address) => {
    const dns = new TargetGuard({ allow: [], resolve: dnsOf({ 'hooks.example': [address] }) });
    await expect(dns.check('https://hooks.example/')).resolves.toMatchObject({
      ok: true,
      addresses: [address],
    });
  });

  it('property: every IPv6 form carrying an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo client) is judged as that IPv4, and any spelling of an IPv6 address as its canonical one', async () => {
    /** null when allowed, else what the address was found to be (`10.0.0.1, in the private …`). */
    const verdict = async (address: string) => {
      const dns = new TargetGuard({ allow: [], resolve: async () => [address] });
      const result = await dns.check('https://hooks.example/');
      return result.ok ? null : result.reason.replace('hooks.example resolves to ', '');
    };
    const hex = (word: number) => `${(word >>> 16).toString(16)}:${(word & 0xffff).toString(16)}`;
    await fc.assert(
      fc.asyncProperty(fc.ipV4(), async (ipv4) => {
        const word = ipv4.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);
        // `1.2.3.4, which is in the … range …: not allowed …` becomes `1.2.3.4, in the … range …: …`
        const expected = (await verdict(ipv4))?.replace(', which is ', ', ') ?? null;
        const forms = [
          `::ffff:${ipv4}`,
          `64:ff9b::${ipv4}`,
          `2002:${hex(word)}::1`,
          `2001:0:4136:e378:8000:63bf:${hex(~word >>> 0)}`,
          ...(word > 1 ? [`::${ipv4}`] : []),
        ];
        for (const form of forms) {
          const found = await verdict(form);
          if (expected === null) expect([form, found]).toEqual([form, null]);
          else expect([form, found]).toEqual([form, expect.stringContaining(` ${expected}`)]);
        }
      }),
      { numRuns: 300 },
    );
    await fc.assert(
      fc.asyncProperty(fc.ipV6(), async (ipv6) => {
        const canonical = new URL(`http://[${ipv6}]/`).hostname.slice(1, -1);
        const [spelled, plain] = [await verdict(ipv6), await verdict(canonical)];
        expect(spelled === null ? null : spelled.slice(ipv6.length)).toBe(
          plain === null ? null : plain.slice(canonical.length),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('given an allow-list naming a special-purpose range, then addresses inside it are permitted; an IPv4 entry extends to IPv4-mapped addresses only', async () => {
    const allowing = new TargetGuard({
      allow: ['198.18.0.0/15', '127.0.0.1', '2001:db8::/32', '2002:a00::/24'],
    });
    for (const url of [
      'http://198.18.0.1/',
      'http://[::ffff:198.18.0.1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[2001:db8::5]/',
      'http://[2002:a00:1::]/', // 6to4 of 10.0.0.1, allowed as itself
    ]) {
      await expect(allowing.check(url)).resolves.toMatchObject({ ok: true });
    }
    // reached through a translator or a relay, not the host's own 127.0.0.1
    for (const url of [
      'http://[64:ff9b::7f00:1]/',
      'http://[2002:7f00:1::]/',
      'http://[::127.0.0.1]/',
      'http://[2001:0:7f00:1::f7f7:f7f7]/',
    ]) {
      await expect(allowing.check(url)).resolves.toEqual({
        ok: false,
        reason: expect.stringContaining('127.0.0.1, in the loopback range 127.0.0.0/8'),
      });
    }
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

  it('given a host that does not resolve, or resolves to nothing, then an attempt is refused (unresolved)', async () => {
    const result = await guard.check('https://nowhere.example/');
    expect(result).toEqual({
      ok: false,
      reason: expect.stringContaining('nowhere.example does not resolve (ENOTFOUND)'),
      unresolved: true,
    });
    const empty = new TargetGuard({ allow: [], resolve: dnsOf({ 'empty.example': [] }) });
    await expect(empty.check('https://empty.example/')).resolves.toMatchObject({
      ok: false,
      unresolved: true,
    });
  });

  it('given a host that does not resolve yet, then registration accepts it (unresolved), and still refuses what resolves to a refused address', async () => {
    const dns = new TargetGuard({
      allow: [],
      resolve: dnsOf({ 'hooks.example': [PUBLIC], 'inside.example': ['10.0.0.7'], 'empty.example': [] }),
    });
    await expect(dns.checkRegistration('https://later.example/hook')).resolves.toEqual({
      ok: true,
      resolved: false,
    });
    await expect(dns.checkRegistration('https://empty.example/hook')).resolves.toEqual({
      ok: true,
      resolved: false,
    });
    await expect(dns.checkRegistration('https://hooks.example/hook')).resolves.toEqual({
      ok: true,
      resolved: true,
    });
    await expect(dns.checkRegistration('https://inside.example/hook')).resolves.toEqual({
      ok: false,
      reason: expect.stringContaining('inside.example resolves to 10.0.0.7, which is in the private'),
    });
    for (const url of ['http://[64:ff9b::7f00:1]/', 'http://198.18.0.1/', 'ftp://hooks.example/']) {
      await expect(dns.checkRegistration(url)).resolves.toMatchObject({ ok: false });
    }
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
