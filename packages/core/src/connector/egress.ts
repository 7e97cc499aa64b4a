/**
 * Egress rules: the operator's allow list of the destinations a tenant's resources may connect
 * to, per tenant and environment, for every kind's endpoints (the URLs `ResourceKind.endpoints`
 * reports). Pure: the caller resolves names (kit's `checkEgress`) and hands the addresses in.
 *
 * A rule set is `unrestricted`, or entries `<tenant>/<environment>=<destination>,…` separated
 * by `;` (`*` for any tenant or environment). A destination is, with an optional `:port` or
 * `:from-to` (no port: any port):
 * - `public`: any name whose every address is a public unicast address;
 * - a host name (`es.internal`) or `*.suffix` (`*.corp.example`): that name, whatever private
 *   address it resolves to (the operator vouches for it) — but never a link-local, multicast or
 *   unspecified one (those need a CIDR that names them);
 * - an address or CIDR (`10.0.0.0/8`, `127.0.0.1`, `[fd00::]/8`, `[::1]`): addresses inside it.
 *   A CIDR reaches loopback, private, link-local or other special addresses only when it lies
 *   inside that block (`0.0.0.0/0` is not a way to reach `169.254.169.254`; `169.254.0.0/16` is).
 *
 * IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`) are judged as the IPv4 address they carry.
 */
import { TollgateError } from '../errors/codes.js';
import type { ErrorDetail } from '../errors/codes.js';

/** What applies when the operator configures nothing: public addresses only, any port. */
export const DEFAULT_EGRESS_RULES = '*/*=public';

/** An IP network as 16 bytes (IPv4 as IPv4-mapped IPv6) and a prefix length over 128 bits. */
interface Network {
  bytes: Uint8Array;
  bits: number;
}

interface PortRange {
  from: number;
  to: number;
}

/** One allowed destination. */
export type EgressDestination = { readonly text: string; readonly ports?: PortRange } & (
  | { readonly match: 'public' }
  | { readonly match: 'name'; readonly name: string }
  | { readonly match: 'suffix'; readonly suffix: string }
  | { readonly match: 'network'; readonly network: Network }
);

/** One entry: a scope pattern and its destinations. */
export interface EgressEntry {
  readonly tenant: string;
  readonly environment: string;
  readonly destinations: readonly EgressDestination[];
}

/** The operator's egress rules, or `unrestricted`. */
export interface EgressRules {
  readonly unrestricted: boolean;
  readonly entries: readonly EgressEntry[];
}

/** Where a resource lives. */
export interface EgressScope {
  tenant: string;
  environment: string;
}

/** Host and port of an endpoint URL. */
export interface EgressTarget {
  /** Lower case, without brackets or a trailing dot. */
  host: string;
  /** The URL's port, its scheme's default (http 80, https 443), or undefined. */
  port: number | undefined;
  /** The host is an IP address literal. */
  literal: boolean;
}

export type EgressVerdict =
  | { allowed: true }
  /** The host name is allowed by the rules, but each address it resolves to must be checked. */
  | { allowed: 'addresses' }
  /** `problem` never says what answered; `expected` lists the scope's destinations. */
  | { allowed: false; problem: string; expected: string[] };

export const UNRESTRICTED_EGRESS_RULES: EgressRules = { unrestricted: true, entries: [] };

const UNRESTRICTED = 'unrestricted';
const SCOPE_PATTERN = /^(\*|[a-z0-9][a-z0-9_-]{0,62})$/;
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;
const DEFAULT_PORTS: Record<string, number> = {
  'http:': 80,
  'https:': 443,
  'ws:': 80,
  'wss:': 443,
};

/** Address blocks that are not public, most specific first within a family. */
type AddressClass =
  'loopback' | 'private' | 'link-local' | 'shared' | 'unspecified' | 'multicast' | 'reserved';
const BLOCKS: ReadonlyArray<{ network: Network; class: AddressClass }> = [
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'],
  ['198.51.100.0/24', 'reserved'],
  ['203.0.113.0/24', 'reserved'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'reserved'],
  ['64:ff9b::/96', 'reserved'],
  ['100::/64', 'reserved'],
  ['2001:db8::/32', 'reserved'],
  ['fc00::/7', 'private'],
  ['fe80::/10', 'link-local'],
  ['ff00::/8', 'multicast'],
].map(([cidr, klass]) => ({
  network: parseNetwork(cidr as string) as Network,
  class: klass as AddressClass,
}));
/** Classes a name rule never reaches: only a CIDR naming the block does. */
const NEVER_BY_NAME: ReadonlySet<AddressClass> = new Set([
  'link-local',
  'unspecified',
  'multicast',
]);

/**
 * Parses `TOLLGATE_EGRESS_RULES`. Every problem is reported at once (INVALID_ARGUMENT, one
 * detail per entry or destination), so a service refuses to start with rules it cannot read.
 */
export function parseEgressRules(text: string): EgressRules {
  const trimmed = text.trim();
  if (trimmed === UNRESTRICTED) return UNRESTRICTED_EGRESS_RULES;
  const entries: EgressEntry[] = [];
  const details: ErrorDetail[] = [];
  trimmed.split(';').forEach((raw, index) => {
    const entry = raw.trim();
    const path = `entries[${index}]`;
    const eq = entry.indexOf('=');
    const [scope, list] = eq < 0 ? [entry, undefined] : [entry.slice(0, eq), entry.slice(eq + 1)];
    const [tenant, environment, extra] = scope.trim().split('/');
    if (
      list === undefined ||
      tenant === undefined ||
      environment === undefined ||
      extra !== undefined
    ) {
      details.push({
        path,
        message:
          'expected <tenant>/<environment>=<destination>,… (* for any tenant or environment)',
        found: entry,
      });
      return;
    }
    if (!SCOPE_PATTERN.test(tenant) || !SCOPE_PATTERN.test(environment)) {
      details.push({
        path,
        message: 'the tenant and environment must be names or *',
        found: scope,
      });
      return;
    }
    const destinations: EgressDestination[] = [];
    list.split(',').forEach((item, d) => {
      const parsed = parseDestination(item.trim());
      if ('problem' in parsed)
        details.push({
          path: `${path}.destinations[${d}]`,
          message: parsed.problem,
          found: item.trim(),
        });
      else destinations.push(parsed);
    });
    entries.push({ tenant, environment, destinations });
  });
  if (details.length > 0) {
    throw new TollgateError(
      'INVALID_ARGUMENT',
      `egress rules: ${details.map((d) => `${d.found === '' ? '(empty)' : d.found}: ${d.message}`).join('; ')}`,
      { details },
    );
  }
  return { unrestricted: false, entries };
}

/** The destinations a scope may reach, as configured (`public`, `es.internal:9200`, …). */
export function egressDestinations(rules: EgressRules, scope: EgressScope): string[] {
  return destinationsOf(rules, scope).map((d) => d.text);
}

/** `a, b or c` — the destinations of a verdict, for messages. */
export function describeEgressDestinations(expected: readonly string[]): string {
  if (expected.length === 0) return 'none: no egress rule applies to this tenant and environment';
  if (expected.length === 1) return expected[0] as string;
  return `${expected.slice(0, -1).join(', ')} or ${expected.at(-1)}`;
}

/** Reads an endpoint URL's host and port; undefined when it names no network host. */
export function egressTarget(url: string): EgressTarget | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const host = parsed.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === '') return undefined;
  const port = parsed.port === '' ? DEFAULT_PORTS[parsed.protocol] : Number(parsed.port);
  return { host, port, literal: parseAddress(host) !== undefined };
}

/**
 * The first half of a check, on the URL alone (apply, draft, discover, call): allowed, refused,
 * or allowed by name pending the addresses the host resolves to (`checkEgressAddress` each).
 */
export function checkEgressTarget(
  rules: EgressRules,
  scope: EgressScope,
  target: EgressTarget,
): EgressVerdict {
  if (rules.unrestricted) return { allowed: true };
  const destinations = destinationsOf(rules, scope);
  const refused = (problem: string): EgressVerdict => ({
    allowed: false,
    problem,
    expected: destinations.map((d) => d.text),
  });
  const onPort = destinations.filter((d) => portMatches(d.ports, target.port));
  if (target.literal) return checkEgressAddress(rules, scope, target, target.host);
  if (!HOST_NAME.test(target.host)) return refused('its host is not a valid host name');
  const byName = onPort.some(
    (d) =>
      (d.match === 'name' && d.name === target.host) ||
      (d.match === 'suffix' && target.host.endsWith(`.${d.suffix}`)) ||
      d.match === 'public' ||
      d.match === 'network',
  );
  if (!byName)
    return refused(`its destination is not among the egress rules of ${scopeText(scope)}`);
  return { allowed: 'addresses' };
}

/** Whether one address `target.host` resolved to (or the literal itself) may be connected to. */
export function checkEgressAddress(
  rules: EgressRules,
  scope: EgressScope,
  target: EgressTarget,
  address: string,
): EgressVerdict {
  if (rules.unrestricted) return { allowed: true };
  const destinations = destinationsOf(rules, scope).filter((d) =>
    portMatches(d.ports, target.port),
  );
  const expected = destinationsOf(rules, scope).map((d) => d.text);
  const bytes = parseAddress(address);
  if (bytes === undefined) {
    const problem = `its host does not resolve to addresses the egress rules of ${scopeText(scope)} allow`;
    return { allowed: false, problem, expected };
  }
  const block = BLOCKS.find((b) => inNetwork(bytes, b.network));
  const allowed = destinations.some((d) => {
    switch (d.match) {
      case 'public':
        return block === undefined;
      case 'name':
      case 'suffix': {
        if (target.literal) return false;
        const named =
          d.match === 'name' ? d.name === target.host : target.host.endsWith(`.${d.suffix}`);
        return named && (block === undefined || !NEVER_BY_NAME.has(block.class));
      }
      case 'network':
        return (
          inNetwork(bytes, d.network) &&
          (block === undefined || d.network.bits >= block.network.bits)
        );
    }
  });
  if (allowed) return { allowed: true };
  // What a name resolved to is not said (that would map a tenant's view of internal DNS);
  // a literal address is the descriptor's own text, so its block may be named.
  const problem = !target.literal
    ? `its host does not resolve to addresses the egress rules of ${scopeText(scope)} allow`
    : block === undefined
      ? `its destination is not among the egress rules of ${scopeText(scope)}`
      : `it is a ${block.class} address, which the egress rules of ${scopeText(scope)} do not list`;
  return { allowed: false, problem, expected };
}

function scopeText(scope: EgressScope): string {
  return `${scope.tenant}/${scope.environment}`;
}

function destinationsOf(rules: EgressRules, scope: EgressScope): EgressDestination[] {
  return rules.entries
    .filter(
      (e) =>
        (e.tenant === '*' || e.tenant === scope.tenant) &&
        (e.environment === '*' || e.environment === scope.environment),
    )
    .flatMap((e) => e.destinations);
}

function portMatches(ports: PortRange | undefined, port: number | undefined): boolean {
  if (ports === undefined) return true;
  return port !== undefined && port >= ports.from && port <= ports.to;
}

function parseDestination(text: string): EgressDestination | { problem: string } {
  if (text === '')
    return { problem: 'empty destination (two commas in a row, or a trailing comma)' };
  const lower = text.toLowerCase();
  const form = lower.startsWith('[')
    ? /^\[([^\]]+)\](\/\d{1,3})?(?::(\d{1,5})(?:-(\d{1,5}))?)?$/.exec(lower)
    : /^([^:[\]]+)()(?::(\d{1,5})(?:-(\d{1,5}))?)?$/.exec(lower);
  if (form === null) {
    return {
      problem:
        lower.split(':').length > 2
          ? 'write IPv6 addresses in brackets: [fd00::]/8:5432'
          : 'expected public, a host name, *.domain, an address or a CIDR, then :port or :from-to optionally',
    };
  }
  const [, host = '', bits = '', fromText, toText] = form;
  let ports: PortRange | undefined;
  if (fromText !== undefined) {
    const from = Number(fromText);
    const to = toText === undefined ? from : Number(toText);
    if (from < 1 || to > 65535 || from > to)
      return { problem: 'a port must be 1-65535, a range from-to with from ≤ to' };
    ports = { from, to };
  }
  const withPorts = ports === undefined ? { text } : { text, ports };
  if (lower.startsWith('[') || /^[\d./]+$/.test(host)) {
    const network = parseNetwork(`${host}${bits}`);
    if (network === undefined) {
      return {
        problem: 'expected an address or CIDR (10.0.0.0/8, [fd00::]/8) without host bits set',
      };
    }
    return { ...withPorts, match: 'network', network };
  }
  if (host === 'public') return { ...withPorts, match: 'public' };
  if (host.startsWith('*.')) {
    const suffix = host.slice(2);
    if (!HOST_NAME.test(suffix) || !suffix.includes('.'))
      return { problem: 'a wildcard names a domain of at least two labels: *.corp.example' };
    return { ...withPorts, match: 'suffix', suffix };
  }
  if (!HOST_NAME.test(host))
    return { problem: 'expected public, a host name, *.domain, an address or a CIDR' };
  return { ...withPorts, match: 'name', name: host };
}

function parseNetwork(text: string): Network | undefined {
  const [address, bitsText, extra] = text.split('/');
  if (address === undefined || extra !== undefined) return undefined;
  const bytes = parseAddress(address);
  if (bytes === undefined) return undefined;
  const v4 = !address.includes(':');
  const max = v4 ? 32 : 128;
  if (bitsText !== undefined && !/^\d{1,3}$/.test(bitsText)) return undefined;
  const given = bitsText === undefined ? max : Number(bitsText);
  if (given > max) return undefined;
  const bits = v4 ? given + 96 : given;
  // Host bits set (10.0.0.1/8) read as a typo: refused rather than silently widened.
  for (let i = bits; i < 128; i++)
    if ((bytes[i >> 3] as number) & (0x80 >> (i & 7))) return undefined;
  return { bytes, bits };
}

function inNetwork(bytes: Uint8Array, network: Network): boolean {
  for (let i = 0; i < network.bits; i++) {
    const mask = 0x80 >> (i & 7);
    if (((bytes[i >> 3] as number) & mask) !== ((network.bytes[i >> 3] as number) & mask))
      return false;
  }
  return true;
}

/** 16 bytes for an IPv4 (as ::ffff:a.b.c.d) or IPv6 address, so mapped forms compare as IPv4. */
function parseAddress(text: string): Uint8Array | undefined {
  const bytes = new Uint8Array(16);
  const v4 = parseV4(text);
  if (v4 !== undefined) {
    bytes[10] = 0xff;
    bytes[11] = 0xff;
    bytes.set(v4, 12);
    return bytes;
  }
  if (!/^[0-9a-f:.]+$/i.test(text) || text.length > 45) return undefined;
  let body = text;
  if (text.includes('.')) {
    // A trailing dotted quad (::ffff:127.0.0.1) is the last two groups written in decimal.
    const lastColon = text.lastIndexOf(':');
    const embedded = parseV4(text.slice(lastColon + 1));
    if (embedded === undefined) return undefined;
    const [a, b, c, d] = embedded as [number, number, number, number];
    body = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string | undefined): number[] | undefined => {
    if (part === undefined || part === '') return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (!/^[0-9a-f]{1,4}$/i.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = groups(halves[0]);
  const back = groups(halves[1]);
  if (head === undefined || back === undefined) return undefined;
  const missing = 8 - head.length - back.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...new Array<number>(missing).fill(0), ...back];
  all.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  return bytes;
}

function parseV4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return undefined;
    out.push(Number(part));
  }
  return out;
}

/**
 * Whether a connection to `address`, which `url`'s host resolved to, is allowed: what a kind
 * that resolves names itself (and pins the address) asks just before connecting.
 */
export type EgressGuard = (url: string, address: string) => boolean;

/** The guard of one scope's rules: the URL's target must pass, then the address. */
export function egressGuard(rules: EgressRules, scope: EgressScope): EgressGuard {
  return (url, address) => {
    if (rules.unrestricted) return true;
    const target = egressTarget(url);
    if (target === undefined) return false;
    const first = checkEgressTarget(rules, scope, target);
    if (first.allowed === false) return false;
    return checkEgressAddress(rules, scope, target, address).allowed === true;
  };
}
