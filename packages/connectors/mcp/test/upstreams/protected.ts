/**
 * An MCP server over Streamable HTTP that is an OAuth resource server, as a company's internal
 * MCP server would be: every request needs a bearer JWT from the trusted authorization server
 * (signature by its JWKS, issuer, audience = this server's URL, the tools scope); anything else
 * is 401 with a `WWW-Authenticate` challenge. Its one tool, `whoami`, answers with the client
 * the token was issued to. It records what it was sent, so a test can prove which tokens came
 * and that no client secret ever did. In-process, on a loopback port.
 */
import { createServer } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, Server } from '@modelcontextprotocol/server';
import { createRemoteJWKSet, jwtVerify } from 'jose';

export interface ProtectedUpstream {
  url: string;
  /** Every Authorization header received, in order. */
  readonly authorizations: string[];
  /** The distinct access tokens accepted. */
  readonly accepted: Set<string>;
  /** Refuse the next request bearing a token accepted before (as after a key rotation). */
  revokeSeen(): void;
  close(): Promise<void>;
}

export async function startProtectedUpstream(options: {
  issuer: string;
  jwksUri: string;
  scope: string;
}): Promise<ProtectedUpstream> {
  const jwks = createRemoteJWKSet(new URL(options.jwksUri));
  const authorizations: string[] = [];
  const accepted = new Set<string>();
  const revoked = new Set<string>();
  const http = createServer();
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const handler = createMcpHandler(
    (ctx) => {
      const client = String(ctx.authInfo?.clientId ?? '');
      const server = new Server(
        { name: 'protected-upstream', version: '1.0.0' },
        { capabilities: { tools: {} } },
      );
      server.setRequestHandler('tools/list', async () => ({
        tools: [
          {
            name: 'whoami',
            description: 'Names the OAuth client this call was authorized for.',
            inputSchema: { type: 'object', properties: {}, additionalProperties: false },
            annotations: { readOnlyHint: true },
          },
        ],
      }));
      server.setRequestHandler('tools/call', async () => ({
        content: [{ type: 'text', text: `client ${client}` }],
      }));
      return server;
    },
    { legacy: 'stateless' },
  );

  http.on('request', (req, res) => {
    void (async () => {
      const authorization = req.headers.authorization ?? '';
      authorizations.push(authorization);
      const token = /^Bearer (\S+)$/.exec(authorization)?.[1];
      const claims = token === undefined || revoked.has(token) ? undefined : await verify(token);
      if (token === undefined || claims === undefined) {
        res.writeHead(401, {
          'www-authenticate': `Bearer error="invalid_token", scope="${options.scope}"`,
        });
        res.end();
        return;
      }
      accepted.add(token);
      const response = await handler.fetch(await webRequest(req, url), {
        authInfo: {
          token,
          clientId: String(claims.client_id ?? claims.sub ?? ''),
          scopes: String(claims.scope ?? '').split(' '),
        },
      });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      res.writeHead(response.status, headers);
      res.end(Buffer.from(await response.arrayBuffer()));
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  async function verify(token: string): Promise<Record<string, unknown> | undefined> {
    try {
      const { payload } = await jwtVerify(token, jwks, {
        issuer: options.issuer,
        audience: url,
      });
      const scopes = String(payload.scope ?? '').split(' ');
      return scopes.includes(options.scope) ? payload : undefined;
    } catch {
      return undefined;
    }
  }

  return {
    url,
    authorizations,
    accepted,
    revokeSeen: () => {
      for (const token of accepted) revoked.add(token);
    },
    async close() {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

async function webRequest(req: IncomingMessage, url: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  const method = req.method ?? 'GET';
  return new Request(url, {
    method,
    headers,
    ...(method === 'GET' || method === 'HEAD' ? {} : { body: Buffer.concat(chunks) }),
  });
}
