/**
 * One MCP server instance for one caller, on the SDK's low-level `Server` so the synthesized
 * JSON Schemas go out exactly as the synthesizer made them. The SDK answers `initialize`,
 * `server/discover`, `ping` and version negotiation; this file answers `tools/list` and
 * `tools/call` through the gateway.
 */
import { ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { isTollgateError } from '@tollgate/core';
import type { McpGateway, CallContext } from '../gateway/gateway.js';
import { InvalidCursorError } from '../gateway/gateway.js';

/** The protocol revisions served (the SDK negotiates among them). */
export const PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18'];

export const SERVER_INFO = { name: 'tollgate', title: 'Tollgate', version: '0.1.0' };

const INSTRUCTIONS =
  'Tollgate tools act on real data systems under policy. Each tool says what its resource ' +
  'holds; arguments are checked against its schema, so fill in only what it offers. An error ' +
  'result says what to do next. A call that needs approval answers with a call_id: poll it ' +
  'with tollgate_call_status.';

export interface ServerSettings {
  /** How long clients may cache `tools/list` (2026-07-28 `ttlMs`). */
  listTtlMs: number;
}

/** A server for `ctx` (who, from where, which session). */
export function buildServer(
  gateway: McpGateway,
  ctx: CallContext,
  settings: ServerSettings,
): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: true } },
    instructions: INSTRUCTIONS,
    supportedProtocolVersions: PROTOCOL_VERSIONS,
    cacheHints: {
      'tools/list': { ttlMs: settings.listTtlMs, cacheScope: 'private' },
      'server/discover': { ttlMs: 3_600_000, cacheScope: 'public' },
    },
  });
  server.setRequestHandler('tools/list', async (request) => {
    try {
      return await gateway.listTools(ctx, request.params?.cursor);
    } catch (err) {
      if (err instanceof InvalidCursorError)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `cursor: ${err.message}`);
      // Tollgate's own refusals say what happened; anything else is not for the client to read.
      throw isTollgateError(err)
        ? new ProtocolError(ProtocolErrorCode.InternalError, err.message, {
            code: err.code,
            category: err.category,
          })
        : new ProtocolError(
            ProtocolErrorCode.InternalError,
            'Tollgate could not list your tools; try again shortly.',
          );
    }
  });
  server.setRequestHandler('tools/call', async (request) => {
    const { name, arguments: args } = request.params;
    return gateway.callTool(ctx, name, args);
  });
  return server;
}
