/**
 * The one reading of a `credentialRef`: what the resolver fetches and what a credential
 * namespace compares are both this parse, so a reference cannot mean one thing to the rule and
 * another to the resolver. Strict on purpose: only canonical references parse — no `.`/`..` or
 * empty segments, no percent-encoding, backslashes, whitespace, control or non-ASCII characters —
 * because each of those is read differently by some layer (the OS, a URL parser, Vault).
 */

/** A parsed credential reference. */
export type CredentialRefParts =
  /** `env://NAME`: the environment variable NAME. */
  | { scheme: 'env'; name: string }
  /** `file:///a/b` (absolute) or `file://a/b` (relative to the resolver's base folder). */
  | { scheme: 'file'; absolute: boolean; segments: string[] }
  /** `vault://mount/path[#key]`: `segments[0]` is the KV v2 mount, the rest the secret path. */
  | { scheme: 'vault'; segments: string[]; key?: string };

export type CredentialRefScheme = CredentialRefParts['scheme'];

/** The parse, or why the reference is refused (never quoting it). */
export type CredentialRefParse =
  | { ok: true; parts: CredentialRefParts }
  | { ok: false; scheme?: CredentialRefScheme; problem: string };

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Characters a file path segment may hold. */
const FILE_SEGMENT = /^[A-Za-z0-9._@+=,~-]+$/;
/** Characters a Vault path segment or key may hold. */
const VAULT_SEGMENT = /^[A-Za-z0-9._-]+$/;
const MAX_LENGTH = 1024;

/** Parses `env://`, `file://` and `vault://` references; anything not canonical is refused. */
export function parseCredentialRef(ref: string): CredentialRefParse {
  const match = /^(env|file|vault):\/\/(.*)$/s.exec(ref);
  if (match === null)
    return { ok: false, problem: 'it is not an env://, file:// or vault:// reference' };
  const scheme = match[1] as CredentialRefScheme;
  const rest = match[2] ?? '';
  const refused = (problem: string): CredentialRefParse => ({ ok: false, scheme, problem });
  if (ref.length > MAX_LENGTH) return refused(`it is longer than ${MAX_LENGTH} characters`);
  const escape = escapeProblem(rest);
  if (escape !== undefined) return refused(escape);
  if (scheme === 'env') {
    return ENV_NAME.test(rest)
      ? { ok: true, parts: { scheme, name: rest } }
      : refused('the variable name must match [A-Za-z_][A-Za-z0-9_]*');
  }
  if (scheme === 'file') {
    const absolute = rest.startsWith('/');
    const segments = (absolute ? rest.slice(1) : rest).split('/');
    const problem = segmentsProblem(segments, FILE_SEGMENT, 'letters, digits and ._@+=,~-');
    if (problem !== undefined) return refused(problem);
    return { ok: true, parts: { scheme, absolute, segments } };
  }
  const pieces = rest.split('#');
  if (pieces.length > 2) return refused('it has more than one #');
  const [path = '', key] = pieces;
  const segments = path.split('/');
  const problem = segmentsProblem(segments, VAULT_SEGMENT, 'letters, digits and ._-');
  if (problem !== undefined) return refused(problem);
  if (segments.length < 2) return refused('expected vault://<mount>/<path>[#key]');
  if (key === undefined) return { ok: true, parts: { scheme, segments } };
  if (!VAULT_SEGMENT.test(key) || /^\.+$/.test(key))
    return refused('the key after # may hold only letters, digits and ._-');
  return { ok: true, parts: { scheme, segments, key } };
}

/** The reference a parse came from, rebuilt (equal to the input for every accepted reference). */
export function renderCredentialRef(parts: CredentialRefParts): string {
  switch (parts.scheme) {
    case 'env':
      return `env://${parts.name}`;
    case 'file':
      return `file://${parts.absolute ? '/' : ''}${parts.segments.join('/')}`;
    case 'vault':
      return `vault://${parts.segments.join('/')}${parts.key === undefined ? '' : `#${parts.key}`}`;
  }
}

/** Characters that some layer would decode, fold or cut differently from a plain reading. */
function escapeProblem(rest: string): string | undefined {
  if (rest.includes('%')) return 'it holds a percent-encoded character (%)';
  if (rest.includes('\\')) return 'it holds a backslash';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(rest)) return 'it holds a control character';
  if (/\s/.test(rest)) return 'it holds whitespace';
  if (/[^\u0020-\u007e]/.test(rest)) return 'it holds a non-ASCII character';
  return undefined;
}

function segmentsProblem(segments: string[], charset: RegExp, allowed: string): string | undefined {
  if (segments.some((segment) => segment === '')) return 'it has an empty path segment';
  if (segments.some((segment) => /^\.+$/.test(segment)))
    return 'it has a path segment made of dots (. or ..)';
  if (!segments.every((segment) => charset.test(segment)))
    return `path segments may hold only ${allowed}`;
  return undefined;
}
