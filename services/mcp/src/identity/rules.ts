/**
 * Who an OAuth access token stands for: the operator's declared rules read a verified token's
 * claims and name a Tollgate principal (tenant, agent, environment, user). Pure.
 */
import type { Principal } from '@tollgate/core';

/** One authorization server whose tokens this gateway accepts. */
export interface AuthorizationServer {
  /** The `iss` its tokens carry (and its RFC 8414 metadata is under). */
  issuer: string;
  /** Where its signing keys are (JWKS). */
  jwksUri: string;
  /** Signature algorithms accepted (default: RS256, PS256, ES256, EdDSA). */
  algorithms: string[];
}

/**
 * A claim rule: when every `when` entry holds for the token, it stands for `principal`. A
 * `when` value matches a string claim equal to it, an array claim holding it, or — for `scope`
 * and `scp` — a space-separated list holding it. Principal values may use `{claim}` to copy a
 * string claim (e.g. `"user": "{sub}"`); the result must still be a valid name.
 */
export interface ClaimRule {
  when: Record<string, string>;
  principal: { tenant: string; agent: string; environment: string; user?: string };
}

/** What `TOLLGATE_MCP_IDENTITY_FILE` declares. */
export interface IdentitySettings {
  authorizationServers: AuthorizationServer[];
  /** Scopes every request needs (and `scopes_supported` advertises). */
  scopes: string[];
  rules: ClaimRule[];
}

export const NO_OAUTH: IdentitySettings = { authorizationServers: [], scopes: [], rules: [] };

const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const USER = /^[\x21-\x7e][\x20-\x7e]{0,199}$/;
const DEFAULT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];

/** Parses the identity file's JSON, listing every problem at once with its path. */
export function parseIdentitySettings(value: unknown): IdentitySettings {
  const problems: string[] = [];
  const at = (path: string, message: string) => problems.push(`${path}: ${message}`);
  if (!isObject(value)) throw new Error('identity settings: expected a JSON object');
  unknownKeys(value, ['authorizationServers', 'scopes', 'rules'], '', at);
  const servers: AuthorizationServer[] = [];
  listOf(value.authorizationServers, 'authorizationServers', at).forEach((raw, i) => {
    const path = `authorizationServers[${i}]`;
    if (!isObject(raw)) return at(path, 'expected an object');
    unknownKeys(raw, ['issuer', 'jwksUri', 'algorithms'], path, at);
    const issuer = urlOf(raw.issuer, `${path}.issuer`, at);
    const jwksUri = urlOf(raw.jwksUri, `${path}.jwksUri`, at);
    const algorithms =
      raw.algorithms === undefined
        ? DEFAULT_ALGORITHMS
        : stringsOf(raw.algorithms, `${path}.algorithms`, at);
    if (algorithms.some((a) => a === 'none' || a.startsWith('HS')))
      at(`${path}.algorithms`, 'only asymmetric algorithms are accepted');
    if (issuer && jwksUri) servers.push({ issuer, jwksUri, algorithms });
  });
  const scopes = value.scopes === undefined ? [] : stringsOf(value.scopes, 'scopes', at);
  const rules: ClaimRule[] = [];
  listOf(value.rules, 'rules', at).forEach((raw, i) => {
    const path = `rules[${i}]`;
    if (!isObject(raw)) return at(path, 'expected an object');
    unknownKeys(raw, ['when', 'principal'], path, at);
    if (!isObject(raw.when) || Object.keys(raw.when).length === 0)
      return at(`${path}.when`, 'expected an object of claim → value with at least one entry');
    const when: Record<string, string> = {};
    for (const [claim, expected] of Object.entries(raw.when)) {
      if (typeof expected !== 'string' || expected === '')
        at(`${path}.when.${claim}`, 'expected a non-empty string');
      else when[claim] = expected;
    }
    if (!('iss' in when) && servers.length > 1)
      at(
        `${path}.when`,
        'name the issuer ("iss") when more than one authorization server is declared',
      );
    const p = raw.principal;
    if (!isObject(p))
      return at(`${path}.principal`, 'expected { tenant, agent, environment, user? }');
    unknownKeys(p, ['tenant', 'agent', 'environment', 'user'], `${path}.principal`, at);
    for (const key of ['tenant', 'agent', 'environment'] as const) {
      if (typeof p[key] !== 'string' || p[key] === '')
        at(`${path}.principal.${key}`, 'expected a name or a {claim} template');
    }
    if (p.user !== undefined && typeof p.user !== 'string')
      at(`${path}.principal.user`, 'expected a string');
    rules.push({ when, principal: p as ClaimRule['principal'] });
  });
  if (servers.length > 0 && rules.length === 0)
    at('rules', 'at least one rule is needed to map tokens to principals');
  if (problems.length > 0)
    throw new Error(`identity settings are invalid:\n  - ${problems.join('\n  - ')}`);
  return { authorizationServers: servers, scopes, rules };
}

/**
 * The principal the first matching rule names for `claims`; undefined when no rule matches or
 * the matching rule's templates do not give valid names (a token is never half mapped).
 */
export function principalFromClaims(
  rules: readonly ClaimRule[],
  claims: Record<string, unknown>,
): Principal | undefined {
  const rule = rules.find((r) =>
    Object.entries(r.when).every(([k, v]) => claimHolds(claims[k], k, v)),
  );
  if (rule === undefined) return undefined;
  const fill = (template: string) =>
    template.replace(/\{([A-Za-z0-9_.:-]+)\}/g, (_, name: string) => {
      const value = claims[name];
      return typeof value === 'string' ? value : '\u0000';
    });
  const tenant = fill(rule.principal.tenant);
  const agent = fill(rule.principal.agent);
  const environment = fill(rule.principal.environment);
  const user = rule.principal.user === undefined ? undefined : fill(rule.principal.user);
  if (![tenant, agent, environment].every((n) => NAME.test(n))) return undefined;
  if (user !== undefined && !USER.test(user)) return undefined;
  return { tenant, agent, environment, ...(user !== undefined ? { user } : {}) };
}

function claimHolds(value: unknown, claim: string, expected: string): boolean {
  if (typeof value === 'string') {
    if (claim === 'scope' || claim === 'scp') return value.split(' ').includes(expected);
    return value === expected;
  }
  if (Array.isArray(value)) return value.includes(expected);
  return false;
}

/** The scopes a token grants (`scope` space-separated, or `scp` as a list or a string). */
export function scopesOf(claims: Record<string, unknown>): string[] {
  const raw = claims.scope ?? claims.scp;
  if (typeof raw === 'string') return raw.split(' ').filter(Boolean);
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string');
  return [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unknownKeys(
  value: Record<string, unknown>,
  known: string[],
  path: string,
  at: (path: string, message: string) => void,
): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key))
      at(path ? `${path}.${key}` : key, `unknown key (expected ${known.join(', ')})`);
  }
}

function listOf(value: unknown, path: string, at: (p: string, m: string) => void): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    at(path, 'expected an array');
    return [];
  }
  return value;
}

function stringsOf(value: unknown, path: string, at: (p: string, m: string) => void): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v !== '')) {
    at(path, 'expected an array of non-empty strings');
    return [];
  }
  return value as string[];
}

function urlOf(
  value: unknown,
  path: string,
  at: (p: string, m: string) => void,
): string | undefined {
  if (typeof value !== 'string') {
    at(path, 'expected a URL');
    return undefined;
  }
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('scheme');
    return value;
  } catch {
    at(path, `expected an http(s) URL, found ${JSON.stringify(value.slice(0, 100))}`);
    return undefined;
  }
}
