import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Session } from '../src/auth/sessions.js';
import { HttpProblem } from '../src/http/problem.js';
import { Router } from '../src/http/route.js';
import type { Route } from '../src/http/route.js';
import {
  CONTENT_SECURITY_POLICY,
  MAX_BODY_BYTES,
  checkCsrf,
  cookie,
  readCookie,
  readJsonBody,
} from '../src/http/security.js';

const ORIGIN = 'http://localhost:7080';
const session = { csrf: 'the-token' } as Session;

function request(headers: Record<string, string>, body = ''): IncomingMessage {
  return Object.assign(Readable.from(body === '' ? [] : [Buffer.from(body)]), {
    headers,
  }) as unknown as IncomingMessage;
}

function refusal(fn: () => void): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof HttpProblem ? `${err.status} ${err.code}` : String(err);
  }
}

describe('http - CSRF, cookies, bodies, CSP', () => {
  it('http - a mutation needs the session’s token, from this origin', () => {
    expect(
      refusal(() =>
        checkCsrf(
          request({
            'x-tollgate-csrf': 'the-token',
            origin: ORIGIN,
            'sec-fetch-site': 'same-origin',
          }),
          session,
          ORIGIN,
        ),
      ),
    ).toBeUndefined();
    expect(
      refusal(() => checkCsrf(request({ 'x-tollgate-csrf': 'the-token' }), session, ORIGIN)),
    ).toBeUndefined();
    expect(refusal(() => checkCsrf(request({}), session, ORIGIN))).toBe('403 CSRF_REFUSED');
    expect(
      refusal(() => checkCsrf(request({ 'x-tollgate-csrf': 'the-tokem' }), session, ORIGIN)),
    ).toBe('403 CSRF_REFUSED');
    expect(
      refusal(() =>
        checkCsrf(
          request({ 'x-tollgate-csrf': 'the-token', origin: 'http://evil.example' }),
          session,
          ORIGIN,
        ),
      ),
    ).toBe('403 CSRF_REFUSED');
    expect(
      refusal(() =>
        checkCsrf(
          request({ 'x-tollgate-csrf': 'the-token', 'sec-fetch-site': 'cross-site' }),
          session,
          ORIGIN,
        ),
      ),
    ).toBe('403 CSRF_REFUSED');
  });

  it('http - cookies are HTTP-only, secure, SameSite=Lax, host-only; and read back by name', () => {
    expect(cookie('__Host-x', 'v', 60)).toBe(
      '__Host-x=v; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=60',
    );
    expect(readCookie(request({ cookie: 'a=1; __Host-x=v2; b=3' }), '__Host-x')).toBe('v2');
    expect(readCookie(request({ cookie: 'x__Host-x=v' }), '__Host-x')).toBeUndefined();
  });

  it('http - bodies are JSON objects of bounded size, nothing else', async () => {
    await expect(
      readJsonBody(request({ 'content-type': 'application/json; charset=utf-8' }, '{"a":1}')),
    ).resolves.toEqual({ a: 1 });
    const cases: Array<[Record<string, string>, string, number]> = [
      [{ 'content-type': 'text/plain' }, '{"a":1}', 415],
      [{}, '{"a":1}', 415],
      [{ 'content-type': 'application/json' }, '[1]', 400],
      [{ 'content-type': 'application/json' }, '{nope', 400],
      [{ 'content-type': 'application/json' }, `{"a":"${'x'.repeat(MAX_BODY_BYTES)}"}`, 413],
    ];
    for (const [headers, body, status] of cases) {
      await expect(readJsonBody(request(headers, body))).rejects.toMatchObject({ status });
    }
  });

  it('http - the CSP allows only the console’s own scripts and styles, no framing', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe');
  });

  it('http - routes match whole segments; a known path with another method is told apart', () => {
    const route = (method: Route['method'], path: string): Route => ({
      method,
      path,
      needs: 'read',
      handle: async () => ({}),
    });
    const router = new Router([
      route('GET', '/api/resources/:name'),
      route('POST', '/api/resources/:name/rollback'),
    ]);
    expect(router.match('GET', '/api/resources/es%5Forders')).toMatchObject({
      params: { name: 'es_orders' },
    });
    expect(router.match('DELETE', '/api/resources/x')).toEqual({ missing: 'method' });
    expect(router.match('GET', '/api/resources/x/y')).toEqual({ missing: 'path' });
    expect(router.match('GET', '/api/resourcesX')).toEqual({ missing: 'path' });
  });
});
