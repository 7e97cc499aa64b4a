import { TollgateError } from '@tollgate/core';
import type { Credential } from '@tollgate/core';

/** Where a SQL resource connects: declared in the descriptor, never holding a secret. */
export interface SqlConnection {
  host: string;
  port?: number;
  database: string;
  /** The user, when the credential is a bare password. */
  user?: string;
  credentialRef?: string;
  timeoutMs?: number;
  /** `disable` (default on loopback), `require` (TLS, any certificate) or `verify` (TLS, verified). */
  tls?: 'disable' | 'require' | 'verify';
  /** Most pooled connections per resource version (default 10). */
  maxConnections?: number;
}

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
 * a bare secret as the password of `connection.user`; or a DSN (`postgres://u:p@host/db`,
 * `mysql://…`) whose user and password are used — its host, port and database must match the
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
