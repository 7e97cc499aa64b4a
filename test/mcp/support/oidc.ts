/**
 * A real OAuth 2.1 authorization server for the MCP tests: `oidc-provider` on a loopback port,
 * issuing JWT access tokens for the MCP resource (RFC 8707 resource indicators) by the
 * client-credentials and the authorization-code (PKCE) flows.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

export const TOOLS_SCOPE = 'tollgate:tools';

/** A client of the authorization server and what it may do. */
export interface OidcClient {
  clientId: string;
  secret: string;
}

export interface AuthorizationServer {
  issuer: string;
  jwksUri: string;
  /** A client-credentials token for `client` (audience `resource`, scope `scope`). */
  clientToken(client: OidcClient, resource: string, scope?: string): Promise<string>;
  /** An authorization-code (PKCE) token: `user` signs in and consents as a person would. */
  userToken(client: OidcClient, user: string, resource: string): Promise<string>;
  close(): Promise<void>;
}

export const CLIENTS = {
  support: { clientId: 'support-agent', secret: 'support-secret-0123456789' },
  clerk: { clientId: 'clerk-agent', secret: 'clerk-secret-0123456789' },
  otherTenant: { clientId: 'team-b-agent', secret: 'team-b-secret-0123456789' },
  unmapped: { clientId: 'unmapped-agent', secret: 'unmapped-secret-0123456789' },
  desktop: { clientId: 'desktop-app', secret: 'desktop-secret-0123456789' },
  /** Authenticates at the token endpoint by HTTP Basic (the others post their secret). */
  basic: { clientId: 'gateway-client', secret: 'gateway-secret-0123456789' },
} satisfies Record<string, OidcClient>;

const REDIRECT = 'http://127.0.0.1/callback';

/** Starts the authorization server on `port` (0: any free one). */
export async function startAuthorizationServer(port = 0): Promise<AuthorizationServer> {
  const http: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', () => resolve());
  });
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const signing = { ...(await exportJWK(privateKey)), kid: 'as-key-1', alg: 'ES256', use: 'sig' };
  const clients = Object.values(CLIENTS).map((c) => ({
    client_id: c.clientId,
    client_secret: c.secret,
    grant_types: c === CLIENTS.desktop ? ['authorization_code'] : ['client_credentials'],
    response_types: c === CLIENTS.desktop ? ['code'] : [],
    redirect_uris: c === CLIENTS.desktop ? [REDIRECT] : [],
    token_endpoint_auth_method: c === CLIENTS.basic ? 'client_secret_basic' : 'client_secret_post',
    id_token_signed_response_alg: 'ES256',
    scope: `openid ${TOOLS_SCOPE} other:scope`,
  }));
  const provider = new Provider(issuer, {
    clients,
    jwks: { keys: [signing] },
    scopes: ['openid', TOOLS_SCOPE, 'other:scope'],
    pkce: { required: () => true },
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    features: {
      clientCredentials: { enabled: true },
      devInteractions: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string | string[]) => oneOf,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: `${TOOLS_SCOPE} other:scope`,
          audience: resource,
          accessTokenTTL: 300,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
  } as never);
  provider.proxy = false;
  http.on('request', provider.callback());

  const token = async (body: Record<string, string>) => {
    const res = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body),
    });
    const json = (await res.json()) as {
      access_token?: string;
      error?: string;
      error_description?: string;
    };
    if (!json.access_token)
      throw new Error(`token endpoint: ${json.error}: ${json.error_description}`);
    return json.access_token;
  };

  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    clientToken: (client, resource, scope = TOOLS_SCOPE) =>
      token({
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.secret,
        scope,
        resource,
      }),
    async userToken(client, user, resource) {
      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const jar = new CookieJar();
      const start = new URL(`${issuer}/auth`);
      for (const [k, v] of Object.entries({
        client_id: client.clientId,
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: `openid ${TOOLS_SCOPE}`,
        resource,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'state-1',
      }))
        start.searchParams.set(k, v);
      // Follow the redirects by hand; sign in on the interaction page like a browser would.
      let next: string = start.href;
      let method = 'GET';
      let form: URLSearchParams | undefined;
      for (let hop = 0; hop < 20; hop++) {
        const res = await fetch(next, {
          method,
          redirect: 'manual',
          headers: {
            cookie: jar.header(next),
            ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          },
          ...(form ? { body: form } : {}),
        });
        jar.store(next, res.headers.getSetCookie());
        form = undefined;
        method = 'GET';
        const location = res.headers.get('location');
        if (location !== null) {
          const target = new URL(location, next);
          if (target.href.startsWith(REDIRECT)) {
            const code = target.searchParams.get('code');
            if (code === null) throw new Error(`authorization failed: ${target.search}`);
            return token({
              grant_type: 'authorization_code',
              client_id: client.clientId,
              client_secret: client.secret,
              code,
              redirect_uri: REDIRECT,
              code_verifier: verifier,
              resource,
            });
          }
          next = target.href;
          continue;
        }
        const html = await res.text();
        const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
        if (action === undefined) throw new Error(`unexpected page at ${next}: ${res.status}`);
        next = new URL(action, next).href;
        method = 'POST';
        form = new URLSearchParams(
          html.includes('name="login"')
            ? { prompt: 'login', login: user, password: 'any' }
            : { prompt: 'consent' },
        );
      }
      throw new Error('authorization did not finish');
    },
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** Just enough of a cookie jar for one host. */
class CookieJar {
  readonly #cookies = new Map<string, string>();
  store(_url: string, setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.#cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
  }
  header(_url: string): string {
    return [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}
