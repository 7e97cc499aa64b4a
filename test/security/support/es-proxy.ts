import { createServer, request as forward } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the proxy saw. */
export interface SeenRequest {
  method: string;
  path: string;
  body: string;
  /** The `authorization` header sent (tests prove a credential was really used). */
  authorization: string;
}

/**
 * A local HTTP proxy in front of the real Elasticsearch: it records every request (method,
 * path, body) so a test can prove what reached Elasticsearch — or that nothing did — and can
 * delay answers to make Elasticsearch slow.
 */
export interface EsProxy {
  url: string;
  requests: SeenRequest[];
  /** Delay before forwarding a request, ms (changeable while running). */
  delay: (request: SeenRequest) => number;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 at `port` (0: any free port). */
export async function startEsProxy(target: string, port = 0): Promise<EsProxy> {
  const upstream = new URL(target);
  const proxy: EsProxy = {
    url: '',
    requests: [],
    delay: () => 0,
    close: async () => undefined,
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const seen: SeenRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        body: body.toString(),
        authorization: req.headers.authorization ?? '',
      };
      proxy.requests.push(seen);
      const timer = setTimeout(() => {
        const out = forward(
          {
            host: upstream.hostname,
            port: upstream.port,
            method: req.method,
            path: req.url,
            headers: req.headers,
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        out.on('error', () => res.destroy());
        out.end(body);
      }, proxy.delay(seen));
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
