/**
 * The official MCP SDK clients, connected to the front end with a bearer token: v2
 * (`@modelcontextprotocol/client`, either era) and v1 (`@modelcontextprotocol/sdk` 1.x).
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** What the tests do with any client. */
export interface McpClient {
  name: string;
  listTools(): Promise<
    Array<{
      name: string;
      inputSchema: Record<string, unknown>;
      annotations?: Record<string, unknown>;
      outputSchema?: unknown;
      description?: string;
    }>
  >;
  callTool(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{
    isError?: boolean;
    content: Array<{ type: string; text?: string }>;
    structuredContent?: Record<string, unknown>;
  }>;
  protocolVersion(): string | undefined;
  close(): Promise<void>;
}

export type ClientKind = 'v2-modern' | 'v2-legacy' | 'v1';

export const CLIENT_KINDS: ClientKind[] = ['v2-modern', 'v2-legacy', 'v1'];

export async function connectClient(kind: ClientKind, url: URL, token: string): Promise<McpClient> {
  const requestInit = { headers: { authorization: `Bearer ${token}` } };
  if (kind === 'v1') {
    const client = new ClientV1({ name: 'tollgate-test-v1', version: '1.0.0' });
    await client.connect(new TransportV1(url, { requestInit }));
    return {
      name: kind,
      listTools: async () => {
        const out = [];
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor ? { cursor } : {});
          out.push(...page.tools);
          cursor = page.nextCursor;
        } while (cursor);
        return out as never;
      },
      callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as never,
      protocolVersion: () =>
        client.getServerVersion() && (client.transport as TransportV1 | undefined)?.protocolVersion,
      close: () => client.close(),
    };
  }
  const client = new ClientV2(
    { name: `tollgate-test-${kind}`, version: '2.0.0' },
    kind === 'v2-modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new TransportV2(url, { requestInit }));
  return {
    name: kind,
    listTools: async () => {
      const out = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : {});
        out.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      return out as never;
    },
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as never,
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    close: () => client.close(),
  };
}
