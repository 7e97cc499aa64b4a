import { createServer, request as forward } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the proxy misbehaves, per request (1-based). */
export interface ProxyBehaviour {
  /** Wait this long before forwarding, ms. */
  delayMs?: (n: number) => number;
  /** Answer this status instead of forwarding (with Elasticsearch's product header). */
  failWith?: (n: number) => number | undefined;
}

/** A local HTTP proxy in front of the real Elasticsearch that can delay or fail requests. */
export interface FaultProxy {
  url: string;
  /** Requests seen so far. */
  requests: Array<{ method: string; path: string }>;
  close(): Promise<void>;
}

export async function startFaultProxy(
  target: string,
  behaviour: ProxyBehaviour,
): Promise<FaultProxy> {
  const upstream = new URL(target);
  const requests: FaultProxy['requests'] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push({ method: req.method ?? 'GET', path: req.url ?? '/' });
    const n = requests.length;
    const status = behaviour.failWith?.(n);
    const delay = behaviour.delayMs?.(n) ?? 0;
    const timer = setTimeout(() => {
      if (status !== undefined) {
        req.resume();
        res.writeHead(status, {
          'content-type': 'application/json',
          'x-elastic-product': 'Elasticsearch',
        });
        res.end(
          JSON.stringify({ error: { type: 'proxy_injected_failure', reason: 'injected' }, status }),
        );
        return;
      }
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
      req.pipe(out);
    }, delay);
    res.on('close', () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
