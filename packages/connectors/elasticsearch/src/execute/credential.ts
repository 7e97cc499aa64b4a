import { TollgateError } from '@tollgate/core';
import type { Credential, CredentialResolver } from '@tollgate/core';

/**
 * Resolves the connection's credential just in time. Failures name the reference scheme only;
 * neither the secret nor the resolver's error text (which might quote it) is passed on.
 */
export async function resolveCredential(
  credentialRef: string | undefined,
  credentials: CredentialResolver,
  resource: string,
): Promise<Credential> {
  if (credentialRef === undefined) return { kind: 'none' };
  const scheme = /^([a-z]+):\/\//.exec(credentialRef)?.[1] ?? 'unknown';
  let credential: unknown;
  try {
    credential = await credentials(credentialRef);
  } catch {
    throw new TollgateError(
      'CREDENTIAL_UNAVAILABLE',
      `The credential for ${resource} (${scheme}://…) could not be resolved.`,
    );
  }
  if (!isCredential(credential)) {
    throw new TollgateError(
      'CREDENTIAL_UNAVAILABLE',
      `The credential for ${resource} (${scheme}://…) has an unknown shape.`,
    );
  }
  return credential;
}

function isCredential(value: unknown): value is Credential {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  const text = (key: string): boolean =>
    typeof record[key] === 'string' && (record[key] as string).length > 0;
  switch (record['kind']) {
    case 'basic':
      return text('username') && text('password');
    case 'apiKey':
      return text('apiKey');
    case 'bearer':
      return text('token');
    case 'none':
      return true;
    default:
      return false;
  }
}
