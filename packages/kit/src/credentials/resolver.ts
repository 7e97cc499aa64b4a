import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { TollgateError, parseCredentialRef, parseCredentialSecret } from '@tollgate/core';
import type { Credential, CredentialResolver } from '@tollgate/core';

export interface CredentialResolverOptions {
  /** How long a resolved credential is reused (default 30 s). 0 disables the cache. */
  cacheTtlMs?: number;
  env?: Record<string, string | undefined>;
  /** Base folder for relative `file://` references. */
  baseDir?: string;
  /** Vault address and token; default from VAULT_ADDR / VAULT_TOKEN. */
  vault?: { address?: string; token?: string; timeoutMs?: number };
  fetch?: typeof fetch;
}

const unavailable = (ref: string, why: string) =>
  new TollgateError(
    'CREDENTIAL_UNAVAILABLE',
    `Credential ${describeRef(ref)} is unavailable: ${why}.`,
  );

/** The reference without anything after `#` (a key name is harmless, but keep messages short). */
function describeRef(ref: string): string {
  const scheme = ref.split('://')[0] ?? 'unknown';
  return `${scheme}:// reference`;
}

/**
 * Resolves `env://VAR`, `file://path` and `vault://mount/path#key` (HashiCorp Vault KV v2)
 * just in time, with a short cache. It reads exactly what core's `parseCredentialRef` parsed —
 * the parse credential namespaces are checked on — and refuses what that parse refuses (`..`,
 * percent-encoding, …). Errors say which reference kind failed and why, never the secret.
 */
export function createCredentialResolver(
  options: CredentialResolverOptions = {},
): CredentialResolver {
  const env = options.env ?? process.env;
  const ttl = options.cacheTtlMs ?? 30_000;
  const cache = new Map<string, { value: Credential; expires: number }>();
  const doFetch = options.fetch ?? fetch;

  async function readSecret(ref: string): Promise<string> {
    const parsed = parseCredentialRef(ref);
    if (!parsed.ok && parsed.scheme === undefined)
      throw new TollgateError(
        'CREDENTIAL_UNAVAILABLE',
        'Credential reference has an unknown scheme (expected env://, file:// or vault://).',
      );
    if (!parsed.ok) throw unavailable(ref, `the reference is malformed (${parsed.problem})`);
    const parts = parsed.parts;
    if (parts.scheme === 'env') {
      const value = env[parts.name];
      if (value === undefined || value === '')
        throw unavailable(ref, `environment variable ${parts.name} is not set`);
      return value;
    }
    if (parts.scheme === 'file') {
      const relative = parts.segments.join('/');
      const path = parts.absolute
        ? `/${relative}`
        : resolve(options.baseDir ?? process.cwd(), relative);
      try {
        return await readFile(path, 'utf8');
      } catch (err) {
        throw unavailable(
          ref,
          `file cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
        );
      }
    }
    return readVault(parts.segments, parts.key);
  }

  async function readVault(segments: string[], key: string | undefined): Promise<string> {
    const address = options.vault?.address ?? env.VAULT_ADDR;
    const token = options.vault?.token ?? env.VAULT_TOKEN;
    if (!address || !token) throw unavailable('vault://', 'VAULT_ADDR and VAULT_TOKEN must be set');
    const [mount = '', ...secretPath] = segments;
    const url = `${address.replace(/\/$/, '')}/v1/${encodeURIComponent(mount)}/data/${secretPath.map(encodeURIComponent).join('/')}`;
    let res: Response;
    try {
      res = await doFetch(url, {
        headers: { 'X-Vault-Token': token },
        signal: AbortSignal.timeout(options.vault?.timeoutMs ?? 3_000),
      });
    } catch {
      throw unavailable('vault://', 'Vault is unreachable');
    }
    if (res.status === 404) throw unavailable('vault://', 'no such secret in Vault');
    if (!res.ok) throw unavailable('vault://', `Vault answered HTTP ${res.status}`);
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      throw unavailable('vault://', 'Vault answered with something other than JSON');
    }
    const data = (body as { data?: { data?: unknown } })?.data?.data;
    if (typeof data !== 'object' || data === null)
      throw unavailable('vault://', 'Vault answer has no data.data object');
    if (key) {
      const value = (data as Record<string, unknown>)[key];
      if (typeof value !== 'string')
        throw unavailable('vault://', `the secret has no string field "${key}"`);
      return value;
    }
    return JSON.stringify(data);
  }

  return async (ref: string) => {
    const now = Date.now();
    const hit = cache.get(ref);
    if (hit && hit.expires > now) return hit.value;
    const value = parseCredentialSecret(await readSecret(ref));
    if (ttl > 0) cache.set(ref, { value, expires: now + ttl });
    return value;
  };
}
