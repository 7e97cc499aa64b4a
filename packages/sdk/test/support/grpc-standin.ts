/**
 * STAND-IN gRPC servers for our own services (registry, memory) — test doubles used by the
 * SDK's tests only until the real services exist. Real grpc-js on a loopback port, through the
 * contracts adapter; methods a test does not provide answer UNIMPLEMENTED.
 */
import type { DescService } from '@bufbuild/protobuf';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { RpcError, RpcStatus, addService } from '@tollgate/contracts';
import type { ServiceImpl } from '@tollgate/contracts';

export interface StandInServer {
  address: string;
  close(): Promise<void>;
}

export async function startStandIn<Svc extends DescService>(
  service: Svc,
  impl: Partial<ServiceImpl<Svc>>,
): Promise<StandInServer> {
  const full: Record<string, unknown> = {};
  for (const method of service.methods) {
    full[method.localName] =
      (impl as Record<string, unknown>)[method.localName] ??
      (() => {
        throw new RpcError(RpcStatus.UNIMPLEMENTED, `${method.name} is not part of the stand-in`);
      });
  }
  const server = new Server();
  addService(server, service, full as ServiceImpl<Svc>);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );
  return {
    address: `127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
