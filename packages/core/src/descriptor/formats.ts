/**
 * Checks for the structured strings a descriptor holds: endpoints, credential references,
 * field names, CIDRs and time windows. Each returns the problem at `path`, or undefined.
 * Credential references are never echoed back, whatever they hold.
 */
import { isIP } from 'node:net';
import type { DescriptorProblem } from './problems.js';
import { mismatch, renderFound } from './problems.js';

const CREDENTIAL_REF_FORMS = 'env://VAR_NAME, file://path or vault://mount/path[#key]';

/** An http(s) URL without user info, query or fragment (user:password is a secret finding). */
export function checkEndpoint(path: string, endpoint: string): DescriptorProblem | undefined {
  const expected = 'http(s) URL such as http://data.internal:9200';
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return mismatch(path, expected, renderFound(endpoint));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return mismatch(path, expected, `scheme ${JSON.stringify(url.protocol.slice(0, -1))}`);
  }
  if (url.username !== '' && url.password === '') {
    return mismatch(path, `${expected} without user info`, 'a URL with a user name');
  }
  if (url.search !== '' || url.hash !== '') {
    return mismatch(
      path,
      `${expected} without query or fragment`,
      'a URL with a query or fragment',
    );
  }
  return undefined;
}

/** `env://VAR_NAME`, `file:///abs/path`, `file://relative/path` or `vault://mount/path[#key]`. */
export function checkCredentialRef(path: string, ref: string): DescriptorProblem | undefined {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/s.exec(ref);
  if (match === null)
    return mismatch(path, CREDENTIAL_REF_FORMS, 'a value without a reference scheme');
  const [, scheme = '', rest = ''] = match;
  if (scheme === 'env') {
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(rest)
      ? undefined
      : mismatch(
          path,
          'env://VAR_NAME with VAR_NAME matching [A-Za-z_][A-Za-z0-9_]*',
          'an invalid variable name',
        );
  }
  if (scheme === 'file') {
    const segments = rest.replace(/^\//, '').split('/');
    const valid =
      rest.length > 0 &&
      !/[\s\0?#]/.test(rest) &&
      segments.every((segment) => segment !== '' && segment !== '..');
    return valid
      ? undefined
      : mismatch(
          path,
          'file:///absolute/path or file://relative/path without empty or .. segments',
          'a malformed file reference',
        );
  }
  if (scheme === 'vault') {
    return /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+(#[A-Za-z0-9_.-]+)?$/.test(rest) &&
      !/(^|\/)\.\.?(\/|#|$)/.test(rest)
      ? undefined
      : mismatch(
          path,
          'vault://mount/path[#key] with segments of letters, digits, _, . or -',
          'a malformed vault reference',
        );
  }
  return mismatch(
    path,
    CREDENTIAL_REF_FORMS,
    `unknown scheme ${JSON.stringify(scheme.toLowerCase())}`,
  );
}

const RESERVED_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

/** Why a field name is not acceptable, or undefined. Dotted paths name object subfields. */
export function fieldNameProblem(name: string): string | undefined {
  if (name.length === 0 || name.length > 255) return 'must be 1 to 255 characters';
  if (name.includes('*')) return 'must not contain *';
  const segments = name.split('.');
  if (segments.some((segment) => segment === '')) return 'must not have empty segments';
  const reserved = segments.find((segment) => RESERVED_SEGMENTS.has(segment));
  if (reserved !== undefined) return `segment ${JSON.stringify(reserved)} is reserved`;
  if (segments.some((segment) => segment.startsWith('_'))) {
    return 'segments must not start with _ (reserved for metadata fields)';
  }
  if (!segments.every((segment) => /^[A-Za-z0-9@][A-Za-z0-9_@-]*$/.test(segment))) {
    return 'segments may hold only letters, digits, _, - and @';
  }
  return undefined;
}

/** An IPv4 or IPv6 CIDR such as `10.0.0.0/8` or `fd00::/8`. */
export function checkCidr(path: string, cidr: string): DescriptorProblem | undefined {
  const match = /^([^/%]+)\/(\d{1,3})$/.exec(cidr);
  const version = match === null ? 0 : isIP(match[1] ?? '');
  const prefix = Number(match?.[2]);
  if (version === 0 || prefix > (version === 4 ? 32 : 128)) {
    return mismatch(path, 'IPv4 or IPv6 CIDR such as 10.0.0.0/8', renderFound(cidr));
  }
  return undefined;
}

/** `HH:MM-HH:MM Area/City`; the zone must be one the runtime's time zone database knows. */
export function checkTimeWindow(path: string, window: string): DescriptorProblem | undefined {
  const match =
    /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d) ([A-Za-z][A-Za-z0-9_+\-/]*)$/.exec(
      window,
    );
  if (match === null) {
    return mismatch(
      path,
      '"HH:MM-HH:MM Area/City" such as "08:00-20:00 Asia/Shanghai"',
      renderFound(window),
    );
  }
  const [, startH, startM, endH, endM, zone = ''] = match;
  if (startH === endH && startM === endM) {
    return mismatch(path, 'a window whose start and end differ', renderFound(window));
  }
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    return mismatch(
      path,
      'an IANA time zone such as Asia/Shanghai',
      `unknown time zone ${JSON.stringify(zone)}`,
    );
  }
  return undefined;
}
