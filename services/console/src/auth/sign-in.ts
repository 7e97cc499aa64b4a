/**
 * Signing people in: OpenID Connect authorization code flow with PKCE (S256), state and nonce
 * against the operators' identity provider — or, on a loopback-only console without one, the
 * local dev sign-in where a person names themselves and their roles.
 */
import * as oidc from 'openid-client';
import { randomToken } from './sessions.js';
import type { PendingLogin } from './sessions.js';

/** The identity provider as the console uses it. */
export interface IdentityProvider {
  /** Where to send the browser, and what the callback must see again. */
  begin(returnTo: string): Promise<{ redirect: URL; login: Omit<PendingLogin, 'createdAt'> }>;
  /** Exchanges the callback's code (checking state, nonce and PKCE); the ID token's claims. */
  complete(callback: URL, login: PendingLogin): Promise<Record<string, unknown>>;
  /** Where to send the browser after signing out of the console (the provider's end-session page). */
  signOutUrl(): string | undefined;
}

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  redirectUri: string;
  postLogoutRedirectUri: string;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Discovers the provider (its metadata and keys) and returns the client side of the flow. */
export async function openIdProvider(settings: OidcSettings): Promise<IdentityProvider> {
  const issuer = new URL(settings.issuer);
  if (issuer.protocol !== 'https:' && !LOOPBACK.has(issuer.hostname)) {
    throw new Error(
      `TOLLGATE_CONSOLE_OIDC_ISSUER must be https (plain http only on loopback): ${issuer.origin}`,
    );
  }
  const config = await oidc.discovery(
    issuer,
    settings.clientId,
    settings.clientSecret === '' ? undefined : settings.clientSecret,
    settings.clientSecret === '' ? oidc.None() : oidc.ClientSecretBasic(settings.clientSecret),
    issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : undefined,
  );
  return {
    async begin(returnTo) {
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const redirect = oidc.buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUri,
        scope: settings.scopes,
        response_type: 'code',
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { redirect, login: { state, nonce, codeVerifier, returnTo } };
    },
    async complete(callback, login) {
      const tokens = await oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: login.codeVerifier,
        expectedState: login.state,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (claims === undefined) throw new Error('the identity provider returned no ID token');
      // Providers put custom claims (roles, tenants) in the ID token or only at userinfo.
      const userinfo =
        config.serverMetadata().userinfo_endpoint !== undefined
          ? await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)
          : {};
      return { ...userinfo, ...claims } as Record<string, unknown>;
    },
    signOutUrl() {
      if (config.serverMetadata().end_session_endpoint === undefined) return undefined;
      return oidc
        .buildEndSessionUrl(config, {
          client_id: settings.clientId,
          post_logout_redirect_uri: settings.postLogoutRedirectUri,
        })
        .toString();
    },
  };
}

/** A dev sign-in's state token (the same shape as an OIDC login, so the callback is shared). */
export function devLogin(returnTo: string): Omit<PendingLogin, 'createdAt'> {
  return { state: randomToken(), nonce: '', codeVerifier: '', returnTo };
}

/** A return path that stays on the console: an absolute path, never `//host` or a URL. */
export function safeReturnTo(value: string | null | undefined): string {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//')) return '/';
  const control = [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
  if (value.includes('\\') || control || value.length > 512) return '/';
  return value;
}
