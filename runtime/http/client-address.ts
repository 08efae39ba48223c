import { isIPv4, isIPv6 } from 'node:net';
import type { Request } from 'express';

/**
 * Who a request comes from, for per-client limits: the connection's address, or with
 * GOV_TRUST_PROXY_HOPS set (Express's `trust proxy`) the address that many X-Forwarded-For hops back.
 * IPv4-mapped IPv6 addresses count as their IPv4 address; other IPv6 addresses count by their /64,
 * since one subscriber usually holds a whole /64 and could otherwise rotate through it.
 */
export function clientAddressKey(req: Request): string {
  return addressKey(req.ip ?? req.socket.remoteAddress ?? '');
}

export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return `other:${address}`;
  return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (zone and embedded IPv4 tail included). */
function expandIPv6(address: string): string[] {
  const withoutZone = address.split('%')[0]!.toLowerCase();
  const [head = '', tail] = withoutZone.split('::') as [string, string | undefined];
  const groups = (part: string) => (part === '' ? [] : part.split(':').flatMap(ipv4AsGroups));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => group.replace(/^0+(?=.)/, ''));
}

/** A dotted IPv4 tail (`::1.2.3.4`) as its two hex groups; any other group as it is. */
function ipv4AsGroups(group: string): string[] {
  if (!group.includes('.')) return [group];
  const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}
