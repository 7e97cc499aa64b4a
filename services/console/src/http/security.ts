/**
 * What every response carries and what every request must show: a strict Content-Security-
 * Policy and friends, HTTP-only secure cookies, and the CSRF check of mutations.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpProblem } from './problem.js';
import { sameToken } from '../auth/sessions.js';
import type { Session } from '../auth/sessions.js';

/** Only the console's own scripts, styles and API; no inline code, no framing, no plugins. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
}

/** The session cookie: `__Host-` (Secure, Path=/, no Domain), HTTP-only, SameSite=Lax. */
export const SESSION_COOKIE = '__Host-tollgate_session';
/** Binds a sign-in's callback to the browser that started it. */
export const LOGIN_COOKIE = '__Host-tollgate_login';

export function cookie(name: string, value: string, maxAgeSeconds: number): string {
  return `${name}=${value}; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=${maxAgeSeconds}`;
}

export function clearCookie(name: string): string {
  return `${name}=; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=0`;
}

export function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The header a page sends its CSRF token in. */
export const CSRF_HEADER = 'x-tollgate-csrf';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isMutation(method: string | undefined): boolean {
  return !SAFE_METHODS.has(method ?? 'GET');
}

/**
 * Refuses a mutation that does not come from this console's own page: it must carry the
 * session's CSRF token, and when the browser says where it comes from (`Origin`,
 * `Sec-Fetch-Site`) that must be this origin.
 */
export function checkCsrf(req: IncomingMessage, session: Session, origin: string): void {
  const sent = req.headers.origin;
  if (sent !== undefined && sent !== origin) {
    throw new HttpProblem(403, 'CSRF_REFUSED', `Requests from ${sent.slice(0, 100)} are refused.`);
  }
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') {
    throw new HttpProblem(403, 'CSRF_REFUSED', 'Cross-site requests are refused.');
  }
  const token = req.headers[CSRF_HEADER];
  if (typeof token !== 'string' || !sameToken(token, session.csrf)) {
    throw new HttpProblem(
      403,
      'CSRF_REFUSED',
      'The request has no valid CSRF token; reload the page and try again.',
    );
  }
}

/** Largest JSON body accepted. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Reads a JSON object body (content type application/json, at most MAX_BODY_BYTES). */
export async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new HttpProblem(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'Send the request body as application/json.',
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      throw new HttpProblem(413, 'PAYLOAD_TOO_LARGE', `The body exceeds ${MAX_BODY_BYTES} bytes.`);
    }
    chunks.push(chunk as Buffer);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } catch {
    throw new HttpProblem(400, 'INVALID_ARGUMENT', 'The body is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new HttpProblem(400, 'INVALID_ARGUMENT', 'The body must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}
