/**
 * The synthesizer's two front doors. gRPC (operators, CLI, services): the caller from its bearer
 * token, optionally acting for another principal of its tenant. NATS (agents): the principal
 * from the `authorization` header only; failures answer an empty body and a `tollgate-error`
 * header. Both validate the request before anything else happens.
 */
import type { Server } from '@grpc/grpc-js';
import { fromBinary } from '@bufbuild/protobuf';
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { addService } from '@tollgate/contracts';
import {
  GetToolRequestSchema,
  ListToolsRequestSchema,
  SynthesizerService,
} from '@tollgate/contracts/synthesizer/v1';
import { TollgateError, isTollgateError } from '@tollgate/core';
import type { TokenVerifier } from '@tollgate/core';
import {
  ERROR_HEADER,
  authenticateRpc,
  serve,
  subjects,
  tollgateErrorToRpc,
  wireError,
} from '@tollgate/kit';
import type { Logger, ServeReply } from '@tollgate/kit';
import { checkReplySize, encodeTools } from './encoding.js';
import { actingPrincipal } from './identity.js';
import { listQuery, toolQuery } from './requests.js';
import type { Synthesizer } from './synthesizer.js';

export interface ApiDeps {
  synthesizer: Synthesizer;
  verifier: TokenVerifier;
  logger: Logger;
}

/** The largest reply gRPC clients accept by default (4 MiB); larger listings are refused. */
export const MAX_GRPC_REPLY_BYTES = 4 * 1024 * 1024;

export const listToolsSubject = subjects.listTools;
export const getToolSubject = subjects.getTool;

/** Registers SynthesizerService on a gRPC server. */
export function registerSynthesizerGrpc(server: Server, deps: ApiDeps): void {
  const { synthesizer, verifier, logger } = deps;
  addService(
    server,
    SynthesizerService,
    {
      async listTools(request, context) {
        const caller = await authenticateRpc(context, verifier);
        const query = listQuery(request, 'control');
        const acting = actingPrincipal(caller, query.principal, synthesizer.bundles);
        const token = context.bearerToken();
        const tools = await synthesizer.listTools({
          principal: acting.principal,
          task: query.task,
          format: query.format,
          topK: query.topK,
          sessionId: query.sessionId,
          ...(!acting.actingFor && token !== undefined ? { token } : {}),
          replyLimit: { bytes: MAX_GRPC_REPLY_BYTES, what: 'a gRPC reply' },
        });
        return { tools };
      },
      async getTool(request, context) {
        const caller = await authenticateRpc(context, verifier);
        const query = toolQuery(request, 'control');
        const { principal } = actingPrincipal(caller, query.principal, synthesizer.bundles);
        return { tool: synthesizer.getTool(principal, query.name, query.format) };
      },
    },
    {
      mapError: tollgateErrorToRpc,
      onUnexpectedError: (err, context) =>
        logger.error(
          {
            method: context.method,
            err: { name: (err as Error)?.name, message: (err as Error)?.message },
          },
          'synthesizer rpc failed',
        ),
    },
  );
}

/** Serves `list_tools` and `get_tool` to agents over NATS, in a queue group. */
export function serveSynthesizerBus(
  nc: NatsConnection,
  deps: ApiDeps & { queue: string },
): Subscription[] {
  const { synthesizer, verifier, logger, queue } = deps;
  const listTools = answer(nc, logger, async (msg) => {
    const token = bearerToken(msg);
    const principal = await verifier.verify(token);
    const query = listQuery(decode(ListToolsRequestSchema, msg.data), 'data');
    const limit = nc.info?.max_payload;
    const tools = await synthesizer.listTools({
      principal,
      task: query.task,
      format: query.format,
      topK: query.topK,
      sessionId: query.sessionId,
      ...(token !== undefined ? { token } : {}),
      ...(limit !== undefined ? { replyLimit: { bytes: limit, what: 'a NATS message' } } : {}),
    });
    return encodeTools(tools);
  });
  const getTool = answer(nc, logger, async (msg) => {
    const principal = await verifier.verify(bearerToken(msg));
    const query = toolQuery(decode(GetToolRequestSchema, msg.data), 'data');
    const tool = synthesizer.getTool(principal, query.name, query.format);
    return encodeTools([tool]);
  });
  return [
    serve(nc, listToolsSubject, listTools, { queue, logger }),
    serve(nc, getToolSubject, getTool, { queue, logger }),
  ];
}

/** Wraps a handler: replies too large for NATS and every failure become a `tollgate-error`. */
function answer(
  nc: NatsConnection,
  logger: Logger,
  handle: (msg: Msg) => Promise<Uint8Array>,
): (msg: Msg) => Promise<ServeReply> {
  return async (msg) => {
    try {
      const data = await handle(msg);
      const limit = nc.info?.max_payload;
      if (limit !== undefined)
        checkReplySize(data.length, { bytes: limit, what: 'a NATS message' });
      return { data };
    } catch (err) {
      if (!isTollgateError(err)) {
        logger.error(
          {
            subject: msg.subject,
            err: { name: (err as Error)?.name, message: (err as Error)?.message },
          },
          'synthesizer request failed',
        );
      }
      return { data: new Uint8Array(), headers: { [ERROR_HEADER]: headerJson(wireError(err)) } };
    }
  };
}

/** The token of an `authorization: Bearer <token>` header; undefined when there is none. */
function bearerToken(msg: Msg): string | undefined {
  const value = msg.headers?.get('authorization') ?? '';
  if (value === '') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
  if (match === null) {
    throw new TollgateError(
      'UNAUTHENTICATED',
      'Not authenticated: the authorization header must be "Bearer <token>".',
    );
  }
  return match[1];
}

function decode<S extends DescMessage>(schema: S, data: Uint8Array): MessageShape<S> {
  try {
    return fromBinary(schema, data);
  } catch {
    throw new TollgateError(
      'INVALID_ARGUMENT',
      `The request is not a valid ${schema.typeName} (protobuf binary).`,
      {
        details: [{ path: '', message: 'undecodable request', expected: schema.typeName }],
      },
    );
  }
}

/** JSON with every non-ASCII character escaped, safe as a header value. */
function headerJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
