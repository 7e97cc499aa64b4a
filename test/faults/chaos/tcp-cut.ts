import { connect, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';

/**
 * A TCP forwarder in front of a shared server (FerretDB): the campaign cuts it to take the
 * database away from the services behind it — open connections reset, new ones refused —
 * without stopping a server other suites use, and heals it again.
 */
export interface TcpCut {
  port: number;
  cut(): void;
  heal(): void;
  close(): Promise<void>;
}

export async function startTcpCut(
  target: { host: string; port: number },
  port: number,
): Promise<TcpCut> {
  const open = new Set<Socket>();
  let down = false;
  const server: Server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    open.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    cut() {
      down = true;
      for (const socket of open) socket.resetAndDestroy();
      open.clear();
    },
    heal() {
      down = false;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
