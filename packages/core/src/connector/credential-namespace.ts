/**
 * Per-tenant credential namespaces: the operator's rules saying which credential references a
 * resource of a tenant and environment may name, so tenant A cannot point a resource at tenant
 * B's secret. A rule is a reference prefix with placeholders (`vault://secret/{tenant}/`,
 * `env://TOLLGATE_{TENANT}__`); a reference is allowed iff its parse (the resolver's reading,
 * see credential-ref.ts) starts with one rule expanded for the resource's scope. Pure; the
 * registry checks at apply and the executor again before resolving.
 *
 * Placeholders are bounded so no tenant's namespace can reach into another's: in path rules
 * (`file://`, `vault://`) `{tenant}`/`{environment}` are whole segments, followed by `/`; in
 * `env://` rules `{TENANT}`/`{ENVIRONMENT}` are the name upper-cased with `-` as `_`, and must be
 * followed by `__` (tenant `team`'s `TOLLGATE_TEAM__` is not a prefix of `team-a`'s
 * `TOLLGATE_TEAM_A__`). Names that cannot be derived unambiguously (holding `_` or `--`, or
 * ending in `-`) get no env:// namespace.
 */
import { TollgateError } from '../errors/codes.js';
import type { ErrorDetail } from '../errors/codes.js';
import { parseCredentialRef } from './credential-ref.js';
import type { CredentialRefParts, CredentialRefScheme } from './credential-ref.js';

/** The value that turns namespaces off (services warn loudly at boot). */
const UNRESTRICTED = 'unrestricted';

/** What applies when the operator configures nothing: one namespace per tenant and environment. */
export const DEFAULT_CREDENTIAL_NAMESPACES =
  'vault://secret/{tenant}/{environment}/,' +
  'file:///etc/tollgate/credentials/{tenant}/{environment}/,' +
  'env://TOLLGATE_{TENANT}__{ENVIRONMENT}__';

type Placeholder = 'tenant' | 'environment';
type Unit = string | { placeholder: Placeholder };

/** One parsed rule. */
export interface CredentialNamespaceRule {
  /** The rule as configured. */
  readonly text: string;
  readonly scheme: CredentialRefScheme;
  /** file:// only: whether the rule is for absolute paths. */
  readonly absolute: boolean;
  /** env://: literal runs and placeholders of the name; path rules: whole segments. */
  readonly units: readonly Unit[];
  /** Path rules: the literal start of the segment after the last `/` ('' when it ends with `/`). */
  readonly partial: string;
}

/** The operator's rule set, or `unrestricted`. */
export interface CredentialNamespaces {
  readonly unrestricted: boolean;
  readonly rules: readonly CredentialNamespaceRule[];
}

/** Where a resource lives. */
export interface CredentialScope {
  tenant: string;
  environment: string;
}

export type CredentialNamespaceVerdict =
  | { allowed: true }
  /** `problem` never quotes the reference; `expected` lists the scope's prefixes. */
  | { allowed: false; problem: string; expected: string[] };

export const UNRESTRICTED_CREDENTIAL_NAMESPACES: CredentialNamespaces = {
  unrestricted: true,
  rules: [],
};

const ENV_PLACEHOLDERS = new Map<string, Placeholder>([
  ['{TENANT}', 'tenant'],
  ['{ENVIRONMENT}', 'environment'],
]);
const PATH_PLACEHOLDERS = new Map<string, Placeholder>([
  ['{tenant}', 'tenant'],
  ['{environment}', 'environment'],
]);

const ENV_LITERAL = /^[A-Za-z0-9_]$/;
const PATH_LITERAL = { file: /^[A-Za-z0-9._@+=,~-]+$/, vault: /^[A-Za-z0-9._-]+$/ } as const;
/** Tenant and environment names as tokens carry them. */
const SCOPE_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** Names whose env:// form (upper case, `-` as `_`) is unambiguous. */
const ENV_DERIVABLE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Parses `TOLLGATE_CREDENTIAL_NAMESPACES`: `unrestricted`, or comma-separated rules. Every
 * problem is reported at once (INVALID_ARGUMENT, one detail per rule) so a service refuses to
 * start with a rule set that would not isolate tenants.
 */
export function parseCredentialNamespaces(text: string): CredentialNamespaces {
  const trimmed = text.trim();
  if (trimmed === UNRESTRICTED) return UNRESTRICTED_CREDENTIAL_NAMESPACES;
  const rules: CredentialNamespaceRule[] = [];
  const details: ErrorDetail[] = [];
  trimmed.split(',').forEach((raw, index) => {
    const path = `rules[${index}]`;
    const parsed = parseRule(raw.trim());
    if ('problem' in parsed) details.push({ path, message: parsed.problem, found: raw.trim() });
    else rules.push(parsed);
  });
  for (let i = 0; i < rules.length; i++) {
    for (let j = i + 1; j < rules.length; j++) {
      const [a, b] = [rules[i], rules[j]] as [CredentialNamespaceRule, CredentialNamespaceRule];
      if (mayOverlap(a, b)) {
        details.push({
          path: `rules[${j}]`,
          message: `overlaps ${a.text}: one tenant's namespace could hold another tenant's references (give each rule its own literal text before its placeholders)`,
          found: b.text,
        });
      }
    }
  }
  if (details.length > 0) {
    throw new TollgateError(
      'INVALID_ARGUMENT',
      `credential namespaces: ${details.map((d) => `${d.found === '' ? '(empty rule)' : d.found}: ${d.message}`).join('; ')}`,
      { details },
    );
  }
  return { unrestricted: false, rules };
}

/** The reference prefixes allowed in `scope`, rendered as references (`vault://secret/team-a/`). */
export function credentialNamespacePrefixes(
  namespaces: CredentialNamespaces,
  scope: CredentialScope,
): string[] {
  return namespaces.rules.flatMap((rule) => {
    const prefix = expand(rule, scope);
    return prefix === undefined ? [] : [render(rule, prefix)];
  });
}

/**
 * Whether `ref` may be named by a resource of `scope`: it must parse (see parseCredentialRef)
 * and its parse must start with one of the scope's expanded rules.
 */
export function checkCredentialNamespace(
  namespaces: CredentialNamespaces,
  scope: CredentialScope,
  ref: string,
): CredentialNamespaceVerdict {
  if (namespaces.unrestricted) return { allowed: true };
  const expected = credentialNamespacePrefixes(namespaces, scope);
  const parsed = parseCredentialRef(ref);
  if (!parsed.ok)
    return { allowed: false, problem: `it is malformed: ${parsed.problem}`, expected };
  const inside = namespaces.rules.some((rule) => {
    const prefix = expand(rule, scope);
    return prefix !== undefined && startsWith(parsed.parts, rule, prefix);
  });
  if (inside) return { allowed: true };
  return {
    allowed: false,
    problem: `it is outside the credential namespace of ${scope.tenant}/${scope.environment}`,
    expected,
  };
}

/** `a, b or c` — the prefixes of a verdict, for messages. */
export function describeCredentialPrefixes(expected: readonly string[]): string {
  if (expected.length === 0)
    return 'none: no namespace rule applies to this tenant and environment';
  if (expected.length === 1) return expected[0] as string;
  return `${expected.slice(0, -1).join(', ')} or ${expected.at(-1)}`;
}

/** A rule expanded for one scope: literal env name prefix, or complete segments + partial. */
type Expanded = { name: string } | { segments: string[]; partial: string };

function expand(rule: CredentialNamespaceRule, scope: CredentialScope): Expanded | undefined {
  const values: Record<Placeholder, string> = {
    tenant: scope.tenant,
    environment: scope.environment,
  };
  if (!SCOPE_NAME.test(scope.tenant) || !SCOPE_NAME.test(scope.environment)) return undefined;
  if (rule.scheme === 'env') {
    let name = '';
    for (const unit of rule.units) {
      if (typeof unit === 'string') name += unit;
      else if (!ENV_DERIVABLE.test(values[unit.placeholder])) return undefined;
      else name += values[unit.placeholder].toUpperCase().replaceAll('-', '_');
    }
    return { name };
  }
  const segments = rule.units.map((unit) =>
    typeof unit === 'string' ? unit : values[unit.placeholder],
  );
  return { segments, partial: rule.partial };
}

function render(rule: CredentialNamespaceRule, prefix: Expanded): string {
  if ('name' in prefix) return `env://${prefix.name}`;
  const root = rule.scheme === 'file' && rule.absolute ? '/' : '';
  return `${rule.scheme}://${root}${prefix.segments.map((s) => `${s}/`).join('')}${prefix.partial}`;
}

/** Prefix comparison on the parsed form: whole segments equal, then the partial one. */
function startsWith(
  parts: CredentialRefParts,
  rule: CredentialNamespaceRule,
  prefix: Expanded,
): boolean {
  if (parts.scheme !== rule.scheme) return false;
  if (parts.scheme === 'env') return 'name' in prefix && parts.name.startsWith(prefix.name);
  if ('name' in prefix) return false;
  if (parts.scheme === 'file' && parts.absolute !== rule.absolute) return false;
  const { segments } = parts;
  const n = prefix.segments.length;
  return (
    segments.length > n &&
    prefix.segments.every((segment, i) => segments[i] === segment) &&
    (segments[n] as string).startsWith(prefix.partial)
  );
}

function parseRule(text: string): CredentialNamespaceRule | { problem: string } {
  if (text === '') return { problem: 'empty rule (two commas in a row, or a trailing comma)' };
  const match = /^(env|file|vault):\/\/(.*)$/s.exec(text);
  if (match === null)
    return { problem: 'expected a rule starting with env://, file:// or vault://' };
  const scheme = match[1] as CredentialRefScheme;
  const rest = match[2] ?? '';
  const parsed = scheme === 'env' ? parseEnvRule(rest) : parsePathRule(scheme, rest);
  if ('problem' in parsed) return parsed;
  const placeholders = parsed.units.filter((u) => typeof u !== 'string');
  const count = (p: Placeholder) => placeholders.filter((u) => u.placeholder === p).length;
  const tenant = scheme === 'env' ? '{TENANT}' : '{tenant}';
  if (count('tenant') !== 1)
    return { problem: `a rule must hold ${tenant} exactly once (namespaces are per tenant)` };
  if (count('environment') > 1) return { problem: 'a rule may hold its environment at most once' };
  return { text, scheme, ...parsed };
}

function parseEnvRule(rest: string):
  | Omit<CredentialNamespaceRule, 'text' | 'scheme'>
  | {
      problem: string;
    } {
  const units: Unit[] = [];
  const tokens = rest.match(/\{[^}]*\}|./gs) ?? [];
  for (const [i, token] of tokens.entries()) {
    if (token.length > 1 && token.startsWith('{')) {
      const placeholder = ENV_PLACEHOLDERS.get(token);
      if (placeholder === undefined) {
        return {
          problem: /^\{(tenant|environment)\}$/i.test(token)
            ? `env:// rules take the upper-case placeholders {TENANT} and {ENVIRONMENT}, not ${token}`
            : `unknown placeholder ${token} (env:// rules take {TENANT} and {ENVIRONMENT})`,
        };
      }
      if (tokens[i + 1] !== '_' || tokens[i + 2] !== '_') {
        return {
          problem: `${token} must be followed by __, or one name's variables would be a prefix of another's (team's TOLLGATE_TEAM_… would cover team-a's TOLLGATE_TEAM_A_…)`,
        };
      }
      units.push({ placeholder });
    } else if (!ENV_LITERAL.test(token)) {
      return { problem: 'an env:// rule may hold only letters, digits, _ and placeholders' };
    } else {
      units.push(token);
    }
  }
  if (typeof units[0] !== 'string' || !/^[A-Za-z_]$/.test(units[0])) {
    return { problem: 'an env:// rule must start with a letter or _ (a variable name)' };
  }
  return { absolute: false, units: mergeLiterals(units), partial: '' };
}

function parsePathRule(
  scheme: 'file' | 'vault',
  rest: string,
): Omit<CredentialNamespaceRule, 'text' | 'scheme'> | { problem: string } {
  if (scheme === 'vault' && rest.includes('#'))
    return { problem: 'a vault:// rule names a path prefix, never a #key' };
  const absolute = scheme === 'file' && rest.startsWith('/');
  const pieces = (absolute ? rest.slice(1) : rest).split('/');
  const partial = pieces.pop() ?? '';
  const units: Unit[] = [];
  for (const piece of pieces) {
    const placeholder = PATH_PLACEHOLDERS.get(piece);
    if (placeholder !== undefined) {
      units.push({ placeholder });
      continue;
    }
    if (piece.includes('{') || piece.includes('}')) {
      return {
        problem: /\{(TENANT|ENVIRONMENT)\}/.test(piece)
          ? `${scheme}:// rules take the lower-case placeholders {tenant} and {environment}`
          : 'a placeholder must be a whole path segment ({tenant} or {environment} between slashes)',
      };
    }
    const problem = literalSegmentProblem(scheme, piece);
    if (problem !== undefined) return { problem };
    units.push(piece);
  }
  if (partial.includes('{') || partial.includes('}')) {
    return {
      problem: 'a placeholder must be followed by / (the rule would otherwise match longer names)',
    };
  }
  if (partial !== '' && !PATH_LITERAL[scheme].test(partial)) {
    return { problem: literalSegmentProblem(scheme, partial) ?? 'malformed last segment' };
  }
  return { absolute, units, partial };
}

function literalSegmentProblem(scheme: 'file' | 'vault', segment: string): string | undefined {
  if (segment === '') return 'a rule may not have empty path segments (//)';
  if (/^\.+$/.test(segment)) return 'a rule may not have . or .. segments';
  if (!PATH_LITERAL[scheme].test(segment)) {
    return scheme === 'file'
      ? 'path segments may hold only letters, digits and ._@+=,~-'
      : 'path segments may hold only letters, digits and ._-';
  }
  return undefined;
}

function mergeLiterals(units: Unit[]): Unit[] {
  const merged: Unit[] = [];
  for (const unit of units) {
    const last = merged.at(-1);
    if (typeof unit === 'string' && typeof last === 'string')
      merged[merged.length - 1] = last + unit;
    else merged.push(unit);
  }
  return merged;
}

/**
 * Whether two rules could give two different tenants a common reference. Walked unit by unit
 * (characters of env:// names, whole segments of paths) until the rules align on the same
 * `{tenant}` (then a shared reference names one tenant) or differ in literal text (then they
 * share none); a placeholder facing anything else might expand to it, so that is an overlap.
 * Partial last segments never matter: every rule holds `{tenant}` before them.
 */
function mayOverlap(a: CredentialNamespaceRule, b: CredentialNamespaceRule): boolean {
  if (a.scheme !== b.scheme || a.absolute !== b.absolute) return false;
  const left = walkUnits(a);
  const right = walkUnits(b);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const [x, y] = [left[i] as Unit, right[i] as Unit];
    if (typeof x === 'string' && typeof y === 'string') {
      if (x !== y) return false;
    } else if (typeof x === 'string' || typeof y === 'string' || x.placeholder !== y.placeholder) {
      return true;
    } else if (x.placeholder === 'tenant') {
      return false;
    }
  }
  return true;
}

/** Units to compare: env names per character, paths per segment. */
function walkUnits(rule: CredentialNamespaceRule): Unit[] {
  return rule.scheme === 'env'
    ? rule.units.flatMap((u): Unit[] => (typeof u === 'string' ? [...u] : [u]))
    : [...rule.units];
}
