import { TollgateError } from '@tollgate/core';
import type { Credential, CredentialResolver } from '@tollgate/core';

import type { SqlConnection } from '../kind/spec.js';

/** What a driver logs in with, resolved for one pool. */
export interface SqlLogin {
  host: string;
  port: number;
  database: string;
  user: string;
  password?: string;
}

/**
 * The login from the declared connection and the resolved credential: `{username, password}`;
 * a bare secret as the password of `connection.user`; or a DSN (`<scheme>://u:p@host/db`)
 * whose user and password are used — its host, port and database must match the
 * declaration, so a secret can never point a resource at another server. Errors never quote
 * the secret.
 */
export function sqlLogin(
  connection: SqlConnection,
  credential: Credential,
  schemes: readonly string[],
  defaultPort: number,
): SqlLogin {
  const base = {
    host: connection.host,
    port: connection.port ?? defaultPort,
    database: connection.database,
  };
  switch (credential.kind) {
    case 'basic':
      return { ...base, user: credential.username, password: credential.password };
    case 'none':
      return { ...base, user: requireUser(connection) };
    case 'bearer':
      throw new TollgateError(
        'CREDENTIAL_UNAVAILABLE',
        'A database credential must be a username and password, a password, or a DSN; a bearer token was given.',
      );
    case 'apiKey': {
      const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(credential.apiKey)?.[1]?.toLowerCase();
      if (scheme === undefined)
        return { ...base, user: requireUser(connection), password: credential.apiKey };
      if (!schemes.includes(scheme)) {
        throw new TollgateError(
          'CREDENTIAL_UNAVAILABLE',
          `The credential is a DSN with scheme "${scheme}"; expected ${schemes.join(' or ')}.`,
        );
      }
      return fromDsn(credential.apiKey, base);
    }
  }
}

function requireUser(connection: SqlConnection): string {
  if (connection.user === undefined) {
    throw new TollgateError(
      'CREDENTIAL_UNAVAILABLE',
      'The credential is a bare password but the connection declares no user.',
    );
  }
  return connection.user;
}

function fromDsn(dsn: string, base: Omit<SqlLogin, 'user'>): SqlLogin {
  let url: URL;
  try {
    url = new URL(dsn);
  } catch {
    throw new TollgateError(
      'CREDENTIAL_UNAVAILABLE',
      'The credential looks like a DSN but is not a valid URL.',
    );
  }
  const port = url.port === '' ? base.port : Number(url.port);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (
    url.hostname !== base.host ||
    port !== base.port ||
    (database !== '' && database !== base.database)
  ) {
    throw new TollgateError(
      'CREDENTIAL_UNAVAILABLE',
      'The DSN in the credential points at a different server or database than the resource declares.',
    );
  }
  if (url.username === '')
    throw new TollgateError('CREDENTIAL_UNAVAILABLE', 'The DSN in the credential names no user.');
  return {
    ...base,
    user: decodeURIComponent(url.username),
    ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
  };
}

/** Resolves the credential just in time; an unreadable one is `CREDENTIAL_UNAVAILABLE` without its content. */
export async function resolveSqlCredential(
  connection: SqlConnection,
  credentials: CredentialResolver,
  resource: string,
): Promise<Credential> {
  if (connection.credentialRef === undefined) return { kind: 'none' };
  try {
    return await credentials(connection.credentialRef);
  } catch (err) {
    if (err instanceof TollgateError) throw err;
    throw new TollgateError(
      'CREDENTIAL_UNAVAILABLE',
      `The credential of ${resource} could not be resolved.`,
    );
  }
}
