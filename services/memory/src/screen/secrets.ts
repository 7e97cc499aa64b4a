/**
 * Secret screening for memory: core's credential detection plus connection-string forms that
 * turn up in conversations (`Server=…;Password=…`, `AccountKey=…`, bearer tokens). Findings and
 * redactions name the place (a JSON Pointer) and the kind of secret, never the value.
 */
import { isCredentialReference, isSecretKey, looksLikeSecret } from '@tollgate/core';

/** Connection-string forms core's token patterns do not cover. */
const CONNECTION_PATTERNS: ReadonlyArray<{ reason: string; pattern: RegExp }> = [
  {
    reason: 'connection string with password',
    pattern: /(?:^|;)\s*(?:password|pwd)\s*=\s*[^;\s]/i,
  },
  { reason: 'storage account key', pattern: /\b(?:AccountKey|SharedAccessKey)\s*=\s*[^;\s]{8,}/i },
  { reason: 'bearer token', pattern: /\bbearer\s+[A-Za-z0-9._~+/-]{20,}/i },
];

/** Why a piece of text looks like a credential, or undefined. */
export function secretReason(text: string): string | undefined {
  const reason = looksLikeSecret(text);
  if (reason !== undefined) return reason;
  return CONNECTION_PATTERNS.find(({ pattern }) => pattern.test(text))?.reason;
}

/** One secret-looking value: where (JSON Pointer) and what kind. */
export interface SecretHit {
  path: string;
  reason: string;
}

/** Appends one key or index to a JSON Pointer. */
export function pointerJoin(base: string, key: string | number): string {
  return `${base}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** Every secret-looking value or key in a JSON value, with its JSON Pointer under `base`. */
export function findSecretValues(value: unknown, base = ''): SecretHit[] {
  const hits: SecretHit[] = [];
  walk(value, base, false, (path, reason) => {
    hits.push({ path, reason });
    return undefined;
  });
  return hits;
}

/**
 * A copy of `value` with every secret-looking string (and every literal under a secret-named
 * key) replaced by `[redacted]`, and secret-looking keys renamed; plus the pointers replaced.
 */
export function redactSecrets<T>(value: T): { value: T; paths: string[] } {
  const paths: string[] = [];
  const redacted = walk(value, '', false, (path) => {
    paths.push(path);
    return REDACTED;
  });
  return { value: redacted as T, paths };
}

export const REDACTED = '[redacted]';

type OnSecret = (path: string, reason: string) => unknown;

function walk(value: unknown, path: string, underSecretKey: boolean, onSecret: OnSecret): unknown {
  if (typeof value === 'string') {
    const reason = secretReason(value);
    if (reason !== undefined) return onSecret(path, reason) ?? value;
    if (underSecretKey && value !== '' && value !== REDACTED && !isCredentialReference(value)) {
      return onSecret(path, 'literal value under a secret-named key') ?? value;
    }
    return value;
  }
  if (typeof value === 'number' && underSecretKey) {
    return onSecret(path, 'literal value under a secret-named key') ?? value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    return value.map((item, index) =>
      walk(item, pointerJoin(path, index), underSecretKey, onSecret),
    );
  }
  const out: Record<string, unknown> = {};
  let renamed = 0;
  for (const [key, child] of Object.entries(value)) {
    const childPath = pointerJoin(path, key);
    let outKey = key;
    const keyReason = secretReason(key);
    if (keyReason !== undefined && onSecret(childPath, `key: ${keyReason}`) !== undefined) {
      outKey = `${REDACTED}#${++renamed}`;
    }
    out[outKey] = walk(child, childPath, isSecretKey(key), onSecret);
  }
  return out;
}
