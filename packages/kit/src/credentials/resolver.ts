import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { TollgateError, parseCredentialSecret } from '@tollgate/core';
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
 * just in time, with a short cache. Errors say which reference kind failed and why, never
 * the secret.
 */
export function createCredentialResolver(
  options: CredentialResolverOptions = {},
): CredentialResolver {
  const env = options.env ?? process.env;
  const ttl = options.cacheTtlMs ?? 30_000;
  const cache = new Map<string, { value: Credential; expires: number }>();
  const doFetch = options.fetch ?? fetch;

  async function readSecret(ref: string): Promise<string> {
    const match = /^(env|file|vault):\/\/(.+)$/.exec(ref);
    if (!match)
      throw new TollgateError(
        'CREDENTIAL_UNAVAILABLE',
        'Credential reference has an unknown scheme (expected env://, file:// or vault://).',
      );
    const [, scheme, rest] = match as unknown as [string, string, string];
    if (scheme === 'env') {
      const value = env[rest];
      if (value === undefined || value === '')
        throw unavailable(ref, `environment variable ${rest} is not set`);
      return value;
    }
    if (scheme === 'file') {
      const path = isAbsolute(rest) ? rest : resolve(options.baseDir ?? process.cwd(), rest);
      try {
        return await readFile(path, 'utf8');
      } catch (err) {
        throw unavailable(
          ref,
          `file cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
        );
      }
    }
    return readVault(rest);
  }

  async function readVault(rest: string): Promise<string> {
    const address = options.vault?.address ?? env.VAULT_ADDR;
    const token = options.vault?.token ?? env.VAULT_TOKEN;
    if (!address || !token) throw unavailable('vault://', 'VAULT_ADDR and VAULT_TOKEN must be set');
    const [path = '', key] = rest.split('#');
    const slash = path.indexOf('/');
    if (slash <= 0 || slash === path.length - 1)
      throw unavailable('vault://', 'expected vault://<mount>/<path>[#key]');
    const mount = path.slice(0, slash);
    const secretPath = path.slice(slash + 1);
    const url = `${address.replace(/\/$/, '')}/v1/${encodeURIComponent(mount)}/data/${secretPath.split('/').map(encodeURIComponent).join('/')}`;
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
