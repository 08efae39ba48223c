/**
 * SSRF guard for webhook targets: http(s) only, no userinfo, and every address the host resolves to
 * must be public unless the operator's allow-list (IPs or CIDRs) permits it. An IPv6 address that
 * carries an IPv4 address (IPv4-mapped, NAT64, 6to4, Teredo, …) is judged by the IPv4 inside. Run at
 * registration and again at each delivery; the deliverer then connects only to the addresses
 * checked here.
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

export type TargetCheck =
  | { ok: true; url: URL; addresses: string[] }
  | {
      ok: false;
      reason: string;
      /** The host name did not resolve (to any address): nothing was judged. */
      unresolved?: true;
    };

/** The check at registration: `resolved` is false for a host name that does not resolve yet. */
export type RegistrationCheck = { ok: true; resolved: boolean } | { ok: false; reason: string };

/**
 * An address as 32-bit unsigned words, most significant first: one for IPv4, four for IPv6. Ranges
 * are compared on these (a few integer operations) rather than through a BlockList per range.
 */
type Words = readonly number[];

interface Range {
  words: Words;
  bits: number;
  /** How a refusal names it: `the loopback address`, `in the loopback range 127.0.0.0/8`. */
  phrase: string;
}

/**
 * Refused ranges, most specific first (the first match names the reason): the IANA IPv4 and IPv6
 * Special-Purpose Address Registries' ranges, the cloud metadata addresses and the deprecated
 * site-local fec0::/10. Their globally reachable anycast sub-blocks (192.0.0.9, 2001:1::1, …) are
 * refused with them: no webhook receiver lives there, and an operator can allow one.
 */
const BLOCKED_IPV4 = ranges([
  ['169.254.169.254/32', 'cloud metadata'],
  ['0.0.0.0/8', 'unspecified'],
  ['127.0.0.0/8', 'loopback'],
  ['10.0.0.0/8', 'private (RFC 1918)'],
  ['172.16.0.0/12', 'private (RFC 1918)'],
  ['192.168.0.0/16', 'private (RFC 1918)'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['169.254.0.0/16', 'link-local'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation (TEST-NET-1)'],
  ['198.51.100.0/24', 'documentation (TEST-NET-2)'],
  ['203.0.113.0/24', 'documentation (TEST-NET-3)'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['198.18.0.0/15', 'benchmarking'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
]);
const BLOCKED_IPV6 = ranges([
  ['fd00:ec2::254/128', 'cloud metadata'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['100::/64', 'discard-only'],
  ['100:0:0:1::/64', 'dummy prefix'],
  ['2001:db8::/32', 'documentation'],
  ['2001::/23', 'IETF protocol assignments'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'SRv6 SIDs'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local (deprecated)'],
  ['ff00::/8', 'multicast'],
]);

/**
 * IPv6 addresses that carry an IPv4 address, which a translator, a tunnel or the host's own stack
 * reaches: they are judged by the IPv4 inside (refused if it is in a refused range). Checked before
 * BLOCKED_IPV6, so Teredo (inside 2001::/23) is judged by its IPv4s. The allow-list's IPv4 entries
 * apply to the IPv4 inside only for IPv4-mapped addresses, whose socket connects to that very IPv4;
 * the others reach it through a translator or relay elsewhere, so only an allow-list entry for the
 * IPv6 address itself (e.g. `64:ff9b::/96`) permits them.
 */
const EMBEDDING: ReadonlyArray<{
  range: Range;
  ipv4s: (w: Words) => Array<[label: string, ipv4: number]>;
  mapped?: true;
}> = [
  { range: range('::ffff:0:0/96'), ipv4s: (w) => [['IPv4-mapped', w[3]!]], mapped: true },
  // RFC 2765's IPv4-translated form (SIIT)
  { range: range('::ffff:0:0:0/96'), ipv4s: (w) => [['IPv4-translated', w[3]!]] },
  // :: and ::1 are the unspecified and loopback addresses, judged as such
  { range: range('::/96'), ipv4s: (w) => (w[3]! > 1 ? [['IPv4-compatible', w[3]!]] : []) },
  { range: range('64:ff9b::/96'), ipv4s: (w) => [['NAT64 (64:ff9b::/96) of', w[3]!]] },
  { range: range('64:ff9b:1::/48'), ipv4s: localNat64 },
  {
    range: range('2002::/16'),
    ipv4s: (w) => [['6to4 (2002::/16) of', ((w[0]! << 16) | (w[1]! >>> 16)) >>> 0]],
  },
  {
    range: range('2001::/32'),
    ipv4s: (w) => [
      ['Teredo (2001::/32) server', w[1]!],
      ['Teredo (2001::/32) client', ~w[3]! >>> 0],
    ],
  },
];

/**
 * The IPv4s a local-use NAT64 address (RFC 8215) may carry. The operator picks the prefix length
 * inside 64:ff9b:1::/48, and RFC 6052 puts the IPv4 elsewhere for each; the address is judged by
 * every form it is well-formed in (octet u, bits 64-71, is zero; the bits after the IPv4 too),
 * shortest prefix first, and the /96 form (the last 32 bits) always.
 */
function localNat64(w: Words): Array<[string, number]> {
  const label = 'local-use NAT64 (64:ff9b:1::/48) of';
  const found: Array<[string, number]> = [];
  if (w[2]! >>> 24 === 0) {
    if ((w[2]! & 0xff) === 0 && w[3] === 0) found.push([label, ((w[1]! << 16) | (w[2]! >>> 8)) >>> 0]); // /48
    if (w[3] === 0) found.push([label, ((w[1]! << 24) | w[2]!) >>> 0]); // /56
    if ((w[3]! & 0xffffff) === 0) found.push([label, ((w[2]! << 8) | (w[3]! >>> 24)) >>> 0]); // /64
  }
  found.push([label, w[3]!]); // /96
  return found;
}

/** Names that are metadata endpoints whatever they resolve to. */
const BLOCKED_HOSTS = new Set(['metadata.google.internal']);

/** Approved IP-literal targets kept at most (a webhook URL each); past that the cache starts over. */
const MAX_APPROVED_LITERALS = 4096;

export class TargetGuard {
  private readonly allowed: BlockList;
  private readonly resolve: Resolve;
  /**
   * Approvals of targets whose host is an IP literal: they depend on nothing but the URL and the
   * allow-list, so each is reached once, not at every delivery (parsing and range checks would be ~10 µs
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

  /**
   * The check at registration. As `check`, except that a host name that does not resolve (yet) is
   * accepted: every attempt checks it again, and one that finds it unresolved, or resolving to a
   * refused address, fails (and is retried on the schedule). Literal refused IPs, and names that do
   * resolve to a refused address, are refused here already.
   */
  async checkRegistration(target: string): Promise<RegistrationCheck> {
    const check = await this.check(target);
    if (check.ok) return { ok: true, resolved: true };
    return check.unresolved ? { ok: true, resolved: false } : check;
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
      const code = (error as NodeJS.ErrnoException).code ?? error;
      return { ok: false, reason: `host ${host} does not resolve (${code})`, unresolved: true };
    }
    if (addresses.length === 0)
      return { ok: false, reason: `host ${host} does not resolve to any address`, unresolved: true };
    for (const address of addresses) {
      const blocked = this.blockedRange(address);
      if (blocked) {
        const via = address === host ? '' : `${host} resolves to `;
        return refuse(
          `${via}${address}, which is ${blocked}: not allowed as a webhook target (it must be publicly reachable)`,
        );
      }
    }
    return { ok: true, url, addresses };
  }

  /** Which refused range `address` is in (`in the loopback range 127.0.0.0/8`), or null when allowed. */
  private blockedRange(address: string): string | null {
    const zone = address.indexOf('%'); // an IPv6 zone id (fe80::1%eth0) is no part of the address
    const ip = zone === -1 ? address : address.slice(0, zone);
    const family = isIP(ip);
    if (family === 0) return 'not an IP address';
    if (family === 4) {
      if (this.allowed.check(ip, 'ipv4')) return null;
      return firstRange(BLOCKED_IPV4, [ipv4Word(ip)]);
    }
    if (this.allowed.check(ip, 'ipv6')) return null;
    const words = ipv6Words(ip);
    const embedding = EMBEDDING.find(({ range }) => inRange(words, range));
    const embedded = embedding?.ipv4s(words) ?? [];
    if (embedded.length === 0) return firstRange(BLOCKED_IPV6, words);
    for (const [label, word] of embedded) {
      const ipv4 = ipv4Text(word);
      if (embedding?.mapped && this.allowed.check(ipv4, 'ipv4')) continue;
      const inner = firstRange(BLOCKED_IPV4, [word]);
      if (inner) return `${label} ${ipv4}, ${inner}`;
    }
    return null;
  }
}

/** The URL's host without the brackets of an IPv6 literal. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function ranges(entries: ReadonlyArray<[cidr: string, name: string]>): Range[] {
  return entries.map(([cidr, name]) => range(cidr, name));
}

/** A CIDR (valid: these are constants) as a Range; `name` only matters for refused ranges. */
function range(cidr: string, name = ''): Range {
  const [address = '', prefix = ''] = cidr.split('/');
  const words = isIP(address) === 4 ? [ipv4Word(address)] : ipv6Words(address);
  const bits = Number(prefix);
  const single = bits === words.length * 32;
  return { words, bits, phrase: single ? `the ${name} address` : `in the ${name} range ${cidr}` };
}

function inRange(words: Words, { words: base, bits }: Range): boolean {
  for (let i = 0, left = bits; left > 0; i++, left -= 32) {
    const mask = left >= 32 ? 0xffffffff : ~(0xffffffff >>> left);
    if (((words[i]! ^ base[i]!) & mask) !== 0) return false;
  }
  return true;
}

function firstRange(list: readonly Range[], words: Words): string | null {
  for (const candidate of list) if (inRange(words, candidate)) return candidate.phrase;
  return null;
}

/** A dotted-quad IPv4 address (already validated by isIP) as an unsigned 32-bit number. */
function ipv4Word(ip: string): number {
  const [a = 0, b = 0, c = 0, d = 0] = ip.split('.').map(Number);
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

function ipv4Text(word: number): string {
  return `${word >>> 24}.${(word >>> 16) & 0xff}.${(word >>> 8) & 0xff}.${word & 0xff}`;
}

/** An IPv6 address (already validated by isIP; `::` and a trailing dotted quad allowed) as 4 words. */
function ipv6Words(ip: string): number[] {
  const groups = (text: string): number[] => {
    const out: number[] = [];
    if (text === '') return out;
    for (const part of text.split(':')) {
      if (part.includes('.')) {
        const word = ipv4Word(part);
        out.push(word >>> 16, word & 0xffff);
      } else out.push(parseInt(part, 16));
    }
    return out;
  };
  const gap = ip.indexOf('::');
  let all: number[];
  if (gap === -1) all = groups(ip);
  else {
    const head = groups(ip.slice(0, gap));
    const tail = groups(ip.slice(gap + 2));
    all = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  }
  return [0, 2, 4, 6].map((i) => ((all[i]! << 16) | all[i + 1]!) >>> 0);
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
