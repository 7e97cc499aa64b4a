/**
 * A real OpenID Connect provider for the browser tests (`oidc-provider`, with its development
 * login and consent pages): accounts with console roles and tenants as claims.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import Provider from 'oidc-provider';

/** A person the provider knows: their login, roles and tenants. */
export interface TestAccount {
  login: string;
  email: string;
  name: string;
  roles: string[];
  tenants: string[];
}

export interface IdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

export async function startIdentityProvider(options: {
  port: number;
  redirectUri: string;
  postLogoutRedirectUri: string;
  accounts: TestAccount[];
}): Promise<IdentityProvider> {
  const issuer = `http://localhost:${options.port}`;
  const clientId = 'tollgate-console';
  const clientSecret = `secret-${crypto.randomUUID()}`;
  const accounts = new Map(options.accounts.map((a) => [a.login, a]));
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        post_logout_redirect_uris: [options.postLogoutRedirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: {
      openid: ['sub'],
      email: ['email'],
      profile: ['name'],
      tollgate: ['tollgate_roles', 'tollgate_tenants'],
    },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx: unknown, id: string) {
      const account = accounts.get(id);
      if (account === undefined) return undefined;
      return {
        accountId: id,
        async claims() {
          return {
            sub: id,
            email: account.email,
            name: account.name,
            tollgate_roles: account.roles,
            tollgate_tenants: account.tenants,
          };
        },
      };
    },
  });
  const server: Server = createServer(provider.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  return {
    issuer,
    clientId,
    clientSecret,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
