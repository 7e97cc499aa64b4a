/**
 * The console's HTTP front door: sign-in and sign-out, the JSON API (every route's role
 * checked here, every mutation's CSRF token and origin too), the event stream and the app.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from '@tollgate/kit';
import { may, operatorFromClaims } from '../auth/operator.js';
import type { ClaimMapping, Operator } from '../auth/operator.js';
import { devLogin, safeReturnTo } from '../auth/sign-in.js';
import type { IdentityProvider } from '../auth/sign-in.js';
import type { Session, SessionStore } from '../auth/sessions.js';
import type { Backend } from '../backend/backend.js';
import { HttpProblem, problemOf } from './problem.js';
import { Router, STREAMED } from './route.js';
import type { Route } from './route.js';
import {
  LOGIN_COOKIE,
  SESSION_COOKIE,
  checkCsrf,
  clearCookie,
  cookie,
  isMutation,
  readCookie,
  readJsonBody,
  setSecurityHeaders,
} from './security.js';
import type { StaticFiles } from './static-files.js';
import { devSignIn } from './dev-sign-in.js';

export interface ConsoleServerDeps {
  publicUrl: string;
  sessions: SessionStore;
  /** Undefined: the dev sign-in. */
  provider: IdentityProvider | undefined;
  mapping: ClaimMapping;
  backend: Backend;
  routes: Route[];
  web: StaticFiles;
  logger: Logger;
  sessionTtlSeconds: number;
}

/** The HTTP server (not yet listening). */
export function createConsoleServer(deps: ConsoleServerDeps): Server {
  const router = new Router(deps.routes);
  const origin = new URL(deps.publicUrl).origin;
  return createServer((req, res) => {
    setSecurityHeaders(res);
    handle(req, res).catch((err: unknown) => {
      const problem = problemOf(err);
      if (problem === undefined) {
        deps.logger.error(
          { err: { name: (err as Error)?.name, message: (err as Error)?.message }, path: req.url },
          'console request failed',
        );
      }
      if (res.headersSent) {
        res.end();
        return;
      }
      sendJson(res, problem?.status ?? 500, (problem ?? internal()).toJSON());
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin);
    const path = url.pathname;
    if (path.startsWith('/auth/')) return auth(req, res, url);
    if (path.startsWith('/api/')) return api(req, res, url);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      throw new HttpProblem(405, 'METHOD_NOT_ALLOWED', 'Only GET serves the app.');
    }
    deps.web.serve(req, res, path);
  }

  function sessionOf(req: IncomingMessage): Session | undefined {
    return deps.sessions.get(readCookie(req, SESSION_COOKIE));
  }

  async function auth(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /auth/login') {
      const returnTo = safeReturnTo(url.searchParams.get('returnTo'));
      if (deps.provider === undefined) {
        redirect(res, `/signin?returnTo=${encodeURIComponent(returnTo)}`);
        return;
      }
      const { redirect: to, login } = await deps.provider.begin(returnTo);
      deps.sessions.begin(login);
      res.setHeader('set-cookie', cookie(LOGIN_COOKIE, login.state, 600));
      redirect(res, to.toString());
      return;
    }
    if (route === 'GET /auth/callback') {
      if (deps.provider === undefined)
        throw new HttpProblem(404, 'NOT_FOUND', 'No identity provider is configured.');
      const state = url.searchParams.get('state') ?? '';
      const bound = readCookie(req, LOGIN_COOKIE);
      const login = bound === state ? deps.sessions.finish(state) : undefined;
      if (login === undefined) {
        return signInFailed(
          res,
          'The sign-in expired or was started in another browser; try again.',
        );
      }
      if (url.searchParams.has('error')) {
        return signInFailed(
          res,
          `The identity provider refused: ${String(url.searchParams.get('error')).slice(0, 100)}.`,
        );
      }
      let claims: Record<string, unknown>;
      try {
        claims = await deps.provider.complete(url, login);
      } catch (err) {
        deps.logger.warn(
          { err: { name: (err as Error).name, message: (err as Error).message } },
          'sign-in failed',
        );
        return signInFailed(
          res,
          'The identity provider’s answer could not be verified; try again.',
        );
      }
      const mapped = operatorFromClaims(claims, deps.mapping);
      if (!mapped.ok) return signInFailed(res, `${mapped.reason}.`);
      startSession(res, mapped.operator, login.returnTo);
      return;
    }
    if (route === 'POST /auth/dev') {
      if (deps.provider !== undefined)
        throw new HttpProblem(404, 'NOT_FOUND', 'The dev sign-in is off.');
      if (req.headers.origin !== origin)
        throw new HttpProblem(403, 'CSRF_REFUSED', 'Sign in from the console page.');
      const operator = devSignIn(await readJsonBody(req), deps.mapping.defaultTenant);
      const returnTo = safeReturnTo(devLogin('/').returnTo);
      const session = deps.sessions.create(operator);
      res.setHeader('set-cookie', cookie(SESSION_COOKIE, session.id, deps.sessionTtlSeconds));
      sendJson(res, 200, { redirect: returnTo });
      return;
    }
    if (route === 'POST /auth/logout') {
      const session = sessionOf(req);
      if (session === undefined) throw new HttpProblem(401, 'UNAUTHENTICATED', 'Not signed in.');
      checkCsrf(req, session, origin);
      deps.sessions.end(session.id);
      res.setHeader('set-cookie', clearCookie(SESSION_COOKIE));
      sendJson(res, 200, { redirect: deps.provider?.signOutUrl() ?? '/signin' });
      return;
    }
    throw new HttpProblem(404, 'NOT_FOUND', `No such page: ${url.pathname}`);
  }

  function startSession(res: ServerResponse, operator: Operator, returnTo: string): void {
    const session = deps.sessions.create(operator);
    res.setHeader('set-cookie', [
      cookie(SESSION_COOKIE, session.id, deps.sessionTtlSeconds),
      clearCookie(LOGIN_COOKIE),
    ]);
    redirect(res, returnTo);
  }

  function signInFailed(res: ServerResponse, reason: string): void {
    res.setHeader('set-cookie', clearCookie(LOGIN_COOKIE));
    redirect(res, `/signin?error=${encodeURIComponent(reason)}`);
  }

  async function api(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const session = sessionOf(req);
    if (url.pathname === '/api/session' && req.method === 'GET') {
      sendJson(res, 200, describeSession(session, deps.provider === undefined));
      return;
    }
    if (session === undefined) throw new HttpProblem(401, 'UNAUTHENTICATED', 'Sign in first.');
    const matched = router.match(req.method ?? 'GET', url.pathname);
    if ('missing' in matched) {
      throw matched.missing === 'method'
        ? new HttpProblem(
            405,
            'METHOD_NOT_ALLOWED',
            `${req.method} is not allowed on ${url.pathname}.`,
          )
        : new HttpProblem(404, 'NOT_FOUND', `No API at ${url.pathname}.`);
    }
    const mutation = isMutation(req.method);
    if (mutation) checkCsrf(req, session, origin);
    if (!may(session.operator, matched.route.needs)) {
      throw new HttpProblem(
        403,
        'FORBIDDEN',
        `${session.operator.user} (${session.operator.roles.join(', ')}) may not do this: it needs the ${needsText(matched.route.needs)} role.`,
      );
    }
    const body = mutation ? await readJsonBody(req) : {};
    const result = await matched.route.handle({
      req,
      res,
      url,
      params: matched.params,
      session,
      body,
      backend: deps.backend,
    });
    if (result !== STREAMED) sendJson(res, 200, result);
  }
}

function needsText(capability: Route['needs']): string {
  return {
    read: 'viewer',
    manage: 'admin',
    decide: 'approver',
    review: 'admin or approver',
    explain: 'admin or approver',
  }[capability];
}

/** What the page learns about its session; the CSRF token only ever travels here. */
function describeSession(session: Session | undefined, dev: boolean): unknown {
  if (session === undefined) return { signedIn: false, signIn: dev ? 'dev' : 'oidc' };
  const { operator } = session;
  return {
    signedIn: true,
    csrf: session.csrf,
    user: operator.user,
    name: operator.name,
    roles: operator.roles,
    tenant: session.tenant,
    tenants: operator.tenants,
    can: {
      manage: may(operator, 'manage'),
      decide: may(operator, 'decide'),
      review: may(operator, 'review'),
      explain: may(operator, 'explain'),
    },
  };
}

function internal(): HttpProblem {
  return new HttpProblem(500, 'INTERNAL', 'The console failed to answer; the error was logged.');
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function redirect(res: ServerResponse, to: string): void {
  res.writeHead(303, { location: to, 'cache-control': 'no-store' }).end();
}
