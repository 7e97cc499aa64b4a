/**
 * One HTTP exchange with the declared host: the connection goes to the address pinned for this
 * request (the `Host` header and TLS name stay the base URL's), redirects are followed only on
 * the same origin, and the body is read up to a byte cap and a deadline, never further.
 */
import { request as httpRequest } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { TollgateError, UpstreamError } from '@tollgate/core';
import { pinAddress } from './address.js';
import type { PinnedAddress } from './address.js';

/** A request the kind built: method, absolute URL on the declared origin, headers, body bytes. */
export interface OutgoingRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: Buffer;
}

/** What came back: status, the content type, the body bytes (within the cap). */
export interface IncomingAnswer {
  status: number;
  contentType: string;
  body: Buffer;
  /** Response headers needed for paging (`link`). */
  link?: string;
}

/** Limits of one exchange. */
export interface SendLimits {
  resource: string;
  /** The origin every request and redirect must stay on. */
  origin: string;
  timeoutMs: number;
  maxBytes: number;
  signal?: AbortSignal;
  /** Resolved once per call; reused for redirects and token requests of the same call. */
  pinned?: PinnedAddress;
}

const MAX_REDIRECTS = 3;

/** Sends within the limits; a failure is an `UpstreamError`, or `SendFailure` with its phase. */
export async function send(outgoing: OutgoingRequest, limits: SendLimits): Promise<IncomingAnswer> {
  const pinned = limits.pinned ?? (await pinAddress(new URL(limits.origin), limits.resource));
  let current = outgoing;
  for (let hop = 0; ; hop++) {
    const answer = await exchange(current, pinned, limits);
    if (answer.status < 300 || answer.status >= 400 || answer.location === undefined) return answer;
    const next = safeRedirect(answer.location, current.url, limits);
    if (hop >= MAX_REDIRECTS) throw badResponse(limits.resource, 'too many redirects');
    // 307/308 keep method and body; the others become a GET without a body.
    current =
      answer.status === 307 || answer.status === 308
        ? { ...current, url: next }
        : { method: 'GET', url: next, headers: withoutBody(current.headers) };
  }
}

function withoutBody(headers: Record<string, string>): Record<string, string> {
  const { 'content-type': _type, 'content-length': _length, ...rest } = headers;
  return rest;
}

function safeRedirect(location: string, from: URL, limits: SendLimits): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw badResponse(limits.resource, 'a redirect to an unreadable location');
  }
  if (next.origin !== limits.origin)
    throw badResponse(limits.resource, 'a redirect off the declared host');
  return next;
}

/** A failure while the request was on the wire: `sent` when bytes of it may have arrived. */
export class SendFailure extends Error {
  constructor(
    readonly reason: 'timeout' | 'connection' | 'cancelled',
    readonly sent: boolean,
    readonly errno: string,
  ) {
    super(`send failed: ${reason}`);
    this.name = 'SendFailure';
  }
}

function exchange(
  outgoing: OutgoingRequest,
  pinned: PinnedAddress,
  limits: SendLimits,
): Promise<IncomingAnswer & { location?: string }> {
  const { url } = outgoing;
  const secure = url.protocol === 'https:';
  const headers: OutgoingHttpHeaders = {
    ...outgoing.headers,
    host: url.host,
    'accept-encoding': 'identity',
    ...(outgoing.body === undefined ? {} : { 'content-length': String(outgoing.body.length) }),
  };
  const options = {
    method: outgoing.method,
    host: pinned.address,
    family: pinned.family,
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers,
    ...(secure ? { servername: url.hostname } : {}),
    agent: false as const,
  };
  return new Promise((resolve, reject) => {
    let sent = false;
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const req = (secure ? httpsRequest : httpRequest)(options, (res: IncomingMessage) => {
      // Settled synchronously when the cap is passed: destroying the socket queues its own error.
      const onTooLarge = (): void => {
        finish(() => reject(tooLarge()));
        req.destroy();
      };
      readBody(res, limits.maxBytes, onTooLarge).then(
        (body) =>
          finish(() =>
            resolve({
              status: res.statusCode ?? 0,
              contentType: String(res.headers['content-type'] ?? ''),
              body,
              ...(typeof res.headers.location === 'string'
                ? { location: res.headers.location }
                : {}),
              ...(typeof res.headers.link === 'string' ? { link: res.headers.link } : {}),
            }),
          ),
        (err: unknown) => {
          req.destroy();
          finish(() =>
            reject(
              err instanceof TollgateError ? err : new SendFailure('connection', true, 'body'),
            ),
          );
        },
      );
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish(() => reject(new SendFailure('timeout', sent, 'ETIMEDOUT')));
    }, limits.timeoutMs);
    const onAbort = (): void => {
      req.destroy();
      finish(() => reject(new SendFailure('cancelled', sent, 'ABORT')));
    };
    limits.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('socket', (socket) => socket.once('connect', () => (sent = true)));
    req.on('error', (err: NodeJS.ErrnoException) =>
      finish(() => reject(new SendFailure('connection', sent, err.code ?? 'error'))),
    );
    req.end(outgoing.body);
  });
}

/** Reads the body, refusing it as soon as it passes `maxBytes` (an endless body stops there). */
function readBody(res: IncomingMessage, maxBytes: number, onTooLarge: () => void): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      onTooLarge();
      res.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        onTooLarge();
        res.destroy();
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
    res.on('aborted', () => reject(new Error('aborted')));
  });
}

function tooLarge(): TollgateError {
  return new TollgateError(
    'UPSTREAM_BAD_RESPONSE',
    'The API sent a response larger than this resource accepts.',
  );
}

export function badResponse(resource: string, what: string): UpstreamError {
  return new UpstreamError(
    'UPSTREAM_BAD_RESPONSE',
    `Unexpected answer from the API of ${resource}: ${what}.`,
    {
      attempts: 1,
    },
  );
}
