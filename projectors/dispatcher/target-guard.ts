/**
 * SSRF guard for webhook targets: http(s) only, no userinfo, and every address the host resolves to
 * must be public unless the operator's allow-list (IPs or CIDRs) permits it. Run at registration and
 * again at each delivery; the deliverer then connects only to the addresses checked here.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

export type Resolve = (host: string) => Promise<string[]>;

export interface TargetGuardOptions {
  /** Operator allow-list: IPs or CIDRs (`127.0.0.1`, `10.0.0.0/8`, `::1`), already parsed from config. */
  allow: readonly string[];
  /** Host name → addresses; by default every A/AAAA record the system resolver (getaddrinfo) returns. */
  resolve?: Resolve;
}

export type TargetCheck = { ok: true; url: URL; addresses: string[] } | { ok: false; reason: string };

/** Refused ranges, most specific first: the first match names the reason (`in the loopback range …`). */
const BLOCKED: ReadonlyArray<{ list: BlockList; phrase: string }> = [
  { cidr: '169.254.169.254/32', name: 'cloud metadata' },
  { cidr: 'fd00:ec2::254/128', name: 'cloud metadata' },
  { cidr: '0.0.0.0/8', name: 'unspecified' },
  { cidr: '::/128', name: 'unspecified' },
  { cidr: '127.0.0.0/8', name: 'loopback' },
  { cidr: '::1/128', name: 'loopback' },
  { cidr: '10.0.0.0/8', name: 'private (RFC 1918)' },
  { cidr: '172.16.0.0/12', name: 'private (RFC 1918)' },
  { cidr: '192.168.0.0/16', name: 'private (RFC 1918)' },
  { cidr: '100.64.0.0/10', name: 'carrier-grade NAT' },
  { cidr: '169.254.0.0/16', name: 'link-local' },
  { cidr: 'fe80::/10', name: 'link-local' },
  { cidr: 'fc00::/7', name: 'unique-local' },
  { cidr: '224.0.0.0/4', name: 'multicast' },
  { cidr: 'ff00::/8', name: 'multicast' },
  { cidr: '255.255.255.255/32', name: 'broadcast' },
].map(({ cidr, name }) => ({
  list: blockListOf([cidr]),
  phrase: /\/(32|128)$/.test(cidr) ? `the ${name} address` : `in the ${name} range ${cidr}`,
}));

/** Names that are metadata endpoints whatever they resolve to. */
const BLOCKED_HOSTS = new Set(['metadata.google.internal']);

/** Approved IP-literal targets kept at most (a webhook URL each); past that the cache starts over. */
const MAX_APPROVED_LITERALS = 4096;

export class TargetGuard {
  private readonly allowed: BlockList;
  private readonly resolve: Resolve;
  /**
   * Approvals of targets whose host is an IP literal: they depend on nothing but the URL and the
   * allow-list, so each is reached once, not at every delivery (parsing and range checks were ~10 µs
   * of each attempt). A host name is resolved and checked again every time (rebinding).
   */
  private readonly approvedLiterals = new Map<string, TargetCheck>();

  /** Throws on an allow-list entry that is not an IP or CIDR: a configuration error. */
  constructor(options: TargetGuardOptions) {
    this.allowed = blockListOf(options.allow);
    this.resolve = options.resolve ?? resolveAll;
  }

  async check(target: string): Promise<TargetCheck> {
    const known = this.approvedLiterals.get(target);
    if (known) return known;
    const check = await this.judge(target);
    if (check.ok && isIP(bareHost(check.url))) {
      if (this.approvedLiterals.size >= MAX_APPROVED_LITERALS) this.approvedLiterals.clear();
      this.approvedLiterals.set(target, check);
    }
    return check;
  }

  private async judge(target: string): Promise<TargetCheck> {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return refuse('not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return refuse(`scheme ${url.protocol} is not allowed; use http or https`);
    }
    if (url.username || url.password) return refuse('credentials (user:pass@) in the URL are not allowed');
    const host = bareHost(url);
    if (BLOCKED_HOSTS.has(host.replace(/\.$/, '')))
      return refuse(`host ${host} is a cloud metadata endpoint`);
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : await this.resolve(host);
    } catch (error) {
      return refuse(`host ${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? error})`);
    }
    if (addresses.length === 0) return refuse(`host ${host} does not resolve to any address`);
    for (const address of addresses) {
      const blocked = this.blockedRange(address);
      if (blocked) {
        const via = address === host ? '' : `${host} resolves to `;
        return refuse(`${via}${address}, which is ${blocked}: not allowed as a webhook target`);
      }
    }
    return { ok: true, url, addresses };
  }

  /** Which refused range `address` is in (`in the loopback range 127.0.0.0/8`), or null when allowed. */
  private blockedRange(address: string): string | null {
    const ip = address.replace(/%.*$/, ''); // an IPv6 zone id (fe80::1%eth0) is no part of the address
    const family = isIP(ip);
    if (family === 0) return 'not an IP address';
    const type = family === 4 ? 'ipv4' : 'ipv6';
    const mapped = family === 6 ? mappedIpv4(ip) : null;
    if (this.allowed.check(ip, type) || (mapped && this.allowed.check(mapped, 'ipv4'))) return null;
    if (mapped) {
      const inner = this.blockedRange(mapped);
      return inner && `IPv4-mapped ${mapped}, ${inner}`;
    }
    return BLOCKED.find(({ list }) => list.check(ip, type))?.phrase ?? null;
  }
}

/** The URL's host without the brackets of an IPv6 literal. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** `a.b.c.d` of an IPv4-mapped IPv6 address (::ffff:a.b.c.d, in any spelling), else null. */
function mappedIpv4(ipv6: string): string | null {
  const canonical = new URL(`http://[${ipv6}]/`).hostname; // WHATWG spells it ::ffff:7f00:1
  const match = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(canonical);
  if (!match) return null;
  const [high, low] = [parseInt(match[1]!, 16), parseInt(match[2]!, 16)];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

function blockListOf(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.trim().split('/');
    const family = isIP(address);
    const maxBits = family === 4 ? 32 : 128;
    const bits = prefix === undefined ? maxBits : /^\d{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN;
    if (family === 0 || extra !== undefined || !(bits <= maxBits)) {
      throw new Error(`webhook allow-list entry "${entry}" is not an IP address or CIDR`);
    }
    list.addSubnet(address, bits, maxBits === 32 ? 'ipv4' : 'ipv6');
  }
  return list;
}

async function resolveAll(host: string): Promise<string[]> {
  const records = await lookup(host, { all: true, verbatim: true });
  return records.map((record) => record.address);
}

function refuse(reason: string): TargetCheck {
  return { ok: false, reason };
}
