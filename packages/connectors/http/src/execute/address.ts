/**
 * Where a request may go. The host is resolved once per request and the connection made to
 * that address (no second lookup a rebinding DNS server could answer differently). Loopback,
 * private and other special addresses are refused unless the base URL names such an address
 * literally; link-local (cloud metadata), unspecified and multicast addresses always are.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { UpstreamError } from '@tollgate/core';
import type { EgressGuard } from '@tollgate/core';

const never = new BlockList();
never.addSubnet('0.0.0.0', 8, 'ipv4');
never.addSubnet('169.254.0.0', 16, 'ipv4');
never.addSubnet('224.0.0.0', 3, 'ipv4');
never.addSubnet('::', 128, 'ipv6');
never.addSubnet('fe80::', 10, 'ipv6');
never.addSubnet('ff00::', 8, 'ipv6');

const special = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  special.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 127],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  special.addSubnet(net, bits, 'ipv6');

/** True for addresses no request may go to, whatever the base URL (link-local, multicast, …). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  return family === 0 || never.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** True for loopback, private, link-local, shared, multicast and unspecified addresses. */
export function isSpecialAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return special.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** An address to connect to, resolved once. */
export interface PinnedAddress {
  address: string;
  family: 4 | 6;
}

const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');

/**
 * Resolves the base URL's host to one address the request may use. Every address the name has
 * must be allowed (one bad answer refuses all), so a name cannot mix a public and a private one;
 * with the operator's egress rules (`egress`), every address must pass them too, checked on the
 * very address the connection will use. The message says the destination was refused, never
 * what answered or why it resolved so.
 */
export async function pinAddress(
  base: URL,
  resource: string,
  egress?: EgressGuard,
): Promise<PinnedAddress> {
  const host = hostOf(base);
  const literal = isIP(host);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw refused(resource);
  if (literal !== 0) {
    // An IPv4-mapped IPv6 literal hides an IPv4 address: refused rather than decoded.
    if (isForbiddenAddress(host) || /^::ffff:/i.test(host)) throw refused(resource);
    if (egress !== undefined && !egress(base.href, host)) throw refused(resource);
    return { address: host, family: literal as 4 | 6 };
  }
  let answers: Array<{ address: string; family: number }>;
  try {
    answers = await lookup(host, { all: true, verbatim: true });
  } catch {
    throw refused(resource);
  }
  if (answers.length === 0 || answers.some((a) => isSpecialAddress(a.address)))
    throw refused(resource);
  if (egress !== undefined && answers.some((a) => !egress(base.href, a.address)))
    throw refused(resource);
  const first = answers[0] as { address: string; family: number };
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** The error for a destination that may not be reached (the same whatever the reason). */
export function refused(resource: string): UpstreamError {
  return new UpstreamError(
    'UPSTREAM_UNAVAILABLE',
    `The API of ${resource} cannot be reached from here (the destination is not allowed or did not answer).`,
    { attempts: 0 },
  );
}
