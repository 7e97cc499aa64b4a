import { headers as natsHeaders } from '@nats-io/transport-node';
import type { Msg, MsgHdrs, NatsConnection, Subscription } from '@nats-io/transport-node';
import { ERROR_HEADER } from '@tollgate/contracts/bus';
import { isTollgateError } from '@tollgate/core';
import type { Logger } from '../log/logger.js';
import { extractTrace, inSpan, injectTrace, SpanKind } from './trace.js';

export interface RequestOptions {
  timeoutMs: number;
  headers?: Record<string, string>;
}

export interface BusReply {
  data: Uint8Array;
  headers: MsgHdrs | undefined;
}

/** A NATS request carrying the current trace context and the given headers. */
export async function request(
  nc: NatsConnection,
  subject: string,
  data: Uint8Array,
  options: RequestOptions,
): Promise<BusReply> {
  return inSpan(
    `nats request ${subject}`,
    async () => {
      const hdrs = natsHeaders();
      for (const [k, v] of Object.entries(options.headers ?? {})) hdrs.set(k, v);
      injectTrace(hdrs);
      const reply = await nc.request(subject, data, { timeout: options.timeoutMs, headers: hdrs });
      return { data: reply.data, headers: reply.headers };
    },
    {
      kind: SpanKind.CLIENT,
      attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject },
    },
  );
}

export interface ServeOptions {
  queue?: string;
  logger: Logger;
  /** Span name; defaults to `nats serve <subject>`. */
  spanName?: string;
}

/** What a request handler answers: a payload and optional headers. */
export interface ServeReply {
  data: Uint8Array;
  headers?: Record<string, string>;
}

/**
 * Serves requests on `subject`: each message runs in a server span that continues the
 * caller's trace. A handler that throws is answered with an empty body and a `tollgate-error`
 * header holding `{ code, category, message, details }` — the error itself for a
 * `TollgateError`, a generic INTERNAL otherwise (logged, never sent) — never left hanging.
 */
export function serve(
  nc: NatsConnection,
  subject: string,
  handler: (msg: Msg) => Promise<ServeReply>,
  options: ServeOptions,
): Subscription {
  const sub = nc.subscribe(subject, options.queue ? { queue: options.queue } : {});
  void (async () => {
    for await (const msg of sub) {
      void handleOne(msg, subject, handler, options);
    }
  })();
  return sub;
}

async function handleOne(
  msg: Msg,
  subject: string,
  handler: (msg: Msg) => Promise<ServeReply>,
  options: ServeOptions,
): Promise<void> {
  try {
    const reply = await inSpan(options.spanName ?? `nats serve ${subject}`, () => handler(msg), {
      kind: SpanKind.SERVER,
      parent: extractTrace(msg.headers),
      attributes: { 'messaging.system': 'nats', 'messaging.destination.name': msg.subject },
    });
    if (!msg.reply) return;
    const hdrs = natsHeaders();
    for (const [k, v] of Object.entries(reply.headers ?? {})) hdrs.set(k, v);
    msg.respond(reply.data, { headers: hdrs });
  } catch (err) {
    if (!isTollgateError(err)) {
      options.logger.error(
        { err: { name: (err as Error).name, message: (err as Error).message } },
        'request handler failed',
      );
    }
    if (msg.reply) {
      const hdrs = natsHeaders();
      hdrs.set(ERROR_HEADER, JSON.stringify(wireError(err)));
      msg.respond(new Uint8Array(), { headers: hdrs });
    }
  }
}

/** The error a NATS reply carries: the TollgateError as is, anything else as a generic INTERNAL. */
export function wireError(err: unknown): {
  code: string;
  category: string;
  message: string;
  details: unknown[];
} {
  if (isTollgateError(err)) {
    return { code: err.code, category: err.category, message: err.message, details: err.details };
  }
  return { code: 'INTERNAL', category: 'internal', message: 'internal error', details: [] };
}
