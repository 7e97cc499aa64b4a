import { BlockList, isIP } from 'node:net';

/** A CIDR range (or a single address) in the form Cedar's `ip()` accepts. */
export interface IpRange {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
  /** Normalised text handed to Cedar, e.g. `10.0.0.0/8`. */
  text: string;
}

const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * Validates a caller address and returns the form Cedar accepts: IPv4-mapped IPv6
 * (`::ffff:10.1.2.3`, how dual-stack sockets report IPv4 peers) becomes plain IPv4; zone ids
 * (`fe80::1%eth0`), CIDRs and anything else are rejected (undefined).
 */
export function normalizeSourceIp(text: string): string | undefined {
  const mapped = IPV4_MAPPED.exec(text);
  const candidate = mapped ? (mapped[1] as string) : text;
  const family = isIP(candidate);
  if (family === 0 || candidate.includes('%')) return undefined;
  if (family === 6 && candidate.includes('.')) return undefined;
  return family === 6 ? candidate.toLowerCase() : candidate;
}

/** Parses `10.0.0.0/8`, `2001:db8::/32` or a bare address; returns an error message otherwise. */
export function parseIpRange(text: string): IpRange | string {
  const slash = text.indexOf('/');
  const rawAddress = slash < 0 ? text : text.slice(0, slash);
  const address = normalizeSourceIp(rawAddress);
  if (address === undefined || address !== rawAddress.toLowerCase()) {
    return `"${text}" is not an IPv4 or IPv6 address or CIDR range`;
  }
  const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
  const maxPrefix = family === 'ipv4' ? 32 : 128;
  const prefixText = slash < 0 ? String(maxPrefix) : text.slice(slash + 1);
  const prefix = Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText) || prefix > maxPrefix) {
    return `"${text}": prefix length must be 0-${maxPrefix}`;
  }
  return { address, prefix, family, text: `${address}/${prefix}` };
}

/** Whether a normalised address falls in any of `ranges` (TS mirror of Cedar's `isInRange`). */
export function inAnyRange(address: string, ranges: readonly IpRange[]): boolean {
  const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
  const list = new BlockList();
  for (const range of ranges)
    if (range.family === family) list.addSubnet(range.address, range.prefix, family);
  return list.check(address, family);
}
