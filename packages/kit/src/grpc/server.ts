import type { Server } from '@grpc/grpc-js';
import { ServerCredentials } from '@grpc/grpc-js';

/** A gRPC server bound to an address, with a clear error when the port is taken. */
export interface GrpcServerHandle {
  readonly server: Server;
  /** The bound port (useful with port 0). */
  readonly port: number;
  stop(): Promise<void>;
}

export class ListenError extends Error {
  constructor(address: string, hint: string, cause: unknown) {
    const reason = /No address added|EADDRINUSE|address already in use/i.test(
      String((cause as Error)?.message),
    )
      ? 'address already in use'
      : String((cause as Error)?.message ?? cause);
    super(`cannot listen on ${address}: ${reason} (${hint})`, { cause });
    this.name = 'ListenError';
  }
}

export async function listenGrpc(
  server: Server,
  address: string,
  hint: string,
): Promise<GrpcServerHandle> {
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(address, ServerCredentials.createInsecure(), (err, bound) => {
      if (err) reject(new ListenError(address, hint, err));
      else resolve(bound);
    });
  });
  return {
    server,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 5_000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
