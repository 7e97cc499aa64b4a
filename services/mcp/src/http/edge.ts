/**
 * The HTTP edge in front of the MCP handler: Host and Origin checks (DNS rebinding), CORS only
 * when configured, a body size limit, bearer authentication with RFC 9728 challenges, the
 * caller's address, per-principal rate limits and stateless sessions. Only then does a request
 * reach the SDK's Streamable HTTP handler.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import {
  bearerAuthChallengeResponse,
  validateHostHeader,
  validateOriginHeader,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import type { AuthInfo, McpHttpHandler, OAuthTokenVerifier } from '@modelcontextprotocol/server';
import type { Logger } from '@tollgate/kit';
import { callerOf } from '../identity/access-tokens.js';
import type { PrincipalRateLimiter } from './rate-limit.js';
import { tokenSession } from './sessions.js';
import type { SessionIds } from './sessions.js';

/** What the edge enforces. */
export interface EdgeSettings {
  /** This server's MCP URL (the OAuth resource). */
  resource: URL;
  /** Authorization servers' issuers, for the protected resource metadata. */
  authorizationServers: string[];
  scopes: string[];
  allowedHosts: string[];
  allowedOrigins: string[];
  /** Origins answered with CORS headers (exact `scheme://host[:port]`); empty: no CORS. */
  corsOrigins: string[];
  trustedProxies: string[];
  maxBodyBytes: number;
}

export interface EdgeDeps {
  settings: EdgeSettings;
  verifier: OAuthTokenVerifier;
  handler: McpHttpHandler;
  sessions: SessionIds;
  rateLimiter: PrincipalRateLimiter;
  logger: Logger;
}

/** Facts the edge established, passed to the MCP handler in `AuthInfo.extra`. */
export interface EdgeFacts {
  sourceIp: string | undefined;
  sessionId: string;
}

export function edgeFactsOf(auth: AuthInfo | undefined): EdgeFacts | undefined {
  return auth?.extra?.edge as EdgeFacts | undefined;
}

const MCP_PATH_HEADERS =
  'authorization, content-type, mcp-protocol-version, mcp-session-id, mcp-method, mcp-name, last-event-id';

export function metadataPath(resource: URL): string {
  return `/.well-known/oauth-protected-resource${resource.pathname === '/' ? '' : resource.pathname}`;
}

/** A Node `(req, res)` listener serving `/mcp` and the protected resource metadata. */
export function edgeListener(deps: EdgeDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    serveRequest(deps, req, res).catch((err: unknown) => {
      deps.logger.error({ err: { message: (err as Error).message } }, 'mcp request failed');
      if (!res.headersSent) sendJson(res, 500, { error: 'server_error' });
      else res.destroy();
    });
  };
}

async function serveRequest(
  deps: EdgeDeps,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const { settings } = deps;
  const host = validateHostHeader(req.headers.host, settings.allowedHosts);
  if (!host.ok) return sendRpcError(res, 403, `Host not allowed: ${host.message}`);
  const origin = header(req, 'origin');
  const originCheck = validateOriginHeader(origin, settings.allowedOrigins);
  if (!originCheck.ok) return sendRpcError(res, 403, 'Origin not allowed.');
  const cors = origin !== undefined && settings.corsOrigins.includes(origin) ? origin : undefined;
  if (cors) {
    res.setHeader('access-control-allow-origin', cors);
    res.setHeader('vary', 'origin');
    res.setHeader(
      'access-control-expose-headers',
      'mcp-session-id, mcp-protocol-version, www-authenticate',
    );
  }
  const url = new URL(req.url ?? '/', settings.resource);
  const metadata = metadataPath(settings.resource);
  if (req.method === 'OPTIONS') {
    if (!cors) return sendJson(res, 405, { error: 'method_not_allowed' });
    res.setHeader('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS');
    res.setHeader('access-control-allow-headers', MCP_PATH_HEADERS);
    res.setHeader('access-control-max-age', '600');
    res.writeHead(204).end();
    return;
  }
  if (url.pathname === metadata || url.pathname === '/.well-known/oauth-protected-resource') {
    if (req.method !== 'GET') return sendJson(res, 405, { error: 'method_not_allowed' });
    return sendJson(res, 200, protectedResourceMetadata(settings));
  }
  if (url.pathname !== settings.resource.pathname)
    return sendJson(res, 404, { error: 'not_found' });

  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > settings.maxBodyBytes) return tooLarge(res, settings.maxBodyBytes, req);
  const body = req.method === 'POST' ? await readBody(req, settings.maxBodyBytes) : undefined;
  if (body === 'too_large') return tooLarge(res, settings.maxBodyBytes, req);

  const resourceMetadataUrl = new URL(metadata, settings.resource).href;
  let auth: AuthInfo;
  const authorization = header(req, 'authorization');
  try {
    auth = await verifyBearerToken(authorization, {
      verifier: deps.verifier,
      requiredScopes: settings.scopes,
      resourceMetadataUrl,
      expectedResource: settings.resource,
    });
  } catch (err) {
    return sendWeb(
      res,
      bearerAuthChallengeResponse(err, { requiredScopes: settings.scopes, resourceMetadataUrl }),
    );
  }
  const caller = callerOf(auth)!;
  const { tenant, agent, environment, user } = caller.principal;
  const wait = deps.rateLimiter.admit(JSON.stringify([tenant, agent, environment, user ?? null]));
  if (wait > 0) {
    res.setHeader('retry-after', String(wait));
    return sendRpcError(res, 429, `Too many requests for this principal; retry in ${wait} s.`);
  }

  const parsed = body === undefined ? undefined : parseJson(body);
  const forbidden = forbiddenKeyIn(parsed);
  if (forbidden !== undefined)
    return sendRpcError(
      res,
      400,
      `The request holds a "${forbidden}" key; such keys are never accepted.`,
      -32602,
    );
  const initializing = isInitialize(parsed);
  const presented = header(req, 'mcp-session-id');
  let sessionId: string;
  if (initializing) {
    sessionId = deps.sessions.mint(caller.principal);
  } else if (presented !== undefined) {
    if (!deps.sessions.verify(caller.principal, presented))
      return sendRpcError(res, 404, 'Session not found; initialize again.');
    sessionId = presented;
  } else {
    sessionId = tokenSession(caller.principal, bearerOf(authorization));
  }
  const facts: EdgeFacts = { sourceIp: callerIp(req, settings.trustedProxies), sessionId };
  const request = new Request(url, {
    method: req.method ?? 'GET',
    headers: webHeaders(req),
    ...(body !== undefined ? { body: new Uint8Array(body) } : {}),
  });
  const response = await deps.handler.fetch(request, {
    authInfo: { ...auth, extra: { ...auth.extra, edge: facts } },
  });
  if (initializing && response.ok) res.setHeader('mcp-session-id', sessionId);
  await sendWeb(res, response);
}

/** The caller's address: the socket's, or — behind a trusted proxy — the forwarded one. */
export function callerIp(req: IncomingMessage, trustedProxies: string[]): string | undefined {
  const socket = normalizeIp(req.socket.remoteAddress);
  if (socket === undefined || !trustedProxies.includes(socket)) return socket;
  const forwarded = header(req, 'x-forwarded-for');
  if (forwarded === undefined) return socket;
  const hops = forwarded.split(',').map((h) => normalizeIp(h.trim()));
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i];
    if (hop === undefined) return socket;
    if (!trustedProxies.includes(hop)) return hop;
  }
  return socket;
}

function normalizeIp(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const ip = raw.startsWith('::ffff:') && isIP(raw.slice(7)) === 4 ? raw.slice(7) : raw;
  return isIP(ip) === 0 ? undefined : ip;
}

function protectedResourceMetadata(settings: EdgeSettings): Record<string, unknown> {
  return {
    resource: settings.resource.href,
    authorization_servers: settings.authorizationServers,
    ...(settings.scopes.length > 0 ? { scopes_supported: settings.scopes } : {}),
    bearer_methods_supported: ['header'],
    resource_name: 'Tollgate',
  };
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return 'too_large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function tooLarge(res: ServerResponse, limit: number, req: IncomingMessage): void {
  res.setHeader('connection', 'close');
  sendRpcError(res, 413, `The request body is larger than ${limit} bytes.`);
  req.resume();
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function isInitialize(message: unknown): boolean {
  const one = (m: unknown) =>
    typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize';
  return Array.isArray(message) ? message.some(one) : one(message);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function bearerOf(authorization: string | undefined): string {
  return /^Bearer\s+(\S+)/i.exec(authorization ?? '')?.[1] ?? '';
}

function webHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'authorization') continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function sendRpcError(res: ServerResponse, status: number, message: string, code = -32000): void {
  sendJson(res, status, { jsonrpc: '2.0', id: null, error: { code, message } });
}

/**
 * A prototype-polluting key anywhere in the message (the SDK's parser would drop it silently
 * and run the call without it; a call that asked for it is refused instead).
 */
function forbiddenKeyIn(value: unknown, depth = 0): string | undefined {
  if (typeof value !== 'object' || value === null || depth > 64) return undefined;
  for (const key of Object.keys(value)) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') return key;
    const found = forbiddenKeyIn((value as Record<string, unknown>)[key], depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

async function sendWeb(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', () => resolve()));
  }
  res.end();
}
