import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import type { DescMessage, DescMethod, DescService, MessageInitShape } from '@bufbuild/protobuf';
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';

/** Marks a request that failed to decode, so the handler can answer INVALID_ARGUMENT. */
export class UndecodableRequest {
  constructor(readonly reason: string) {}
}

/** Method kinds the adapter carries; client-streaming and bidi methods are refused. */
export type SupportedMethodKind = 'unary' | 'server_streaming';

/** The gRPC path of a method, e.g. `/tollgate.registry.v1.RegistryService/Get`. */
export function methodPath(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`;
}

/** Throws when a service has a method kind the adapter does not carry. */
export function assertSupported(service: DescService): void {
  for (const method of service.methods) {
    if (method.methodKind !== 'unary' && method.methodKind !== 'server_streaming') {
      throw new Error(
        `${service.typeName}.${method.name}: ${method.methodKind} methods are not supported`,
      );
    }
  }
}

// Values are typed at the adapter's surface (server.ts, client.ts); here they are opaque.
function serializer(schema: DescMessage) {
  return (value: unknown): Buffer =>
    Buffer.from(toBinary(schema, create(schema, value as MessageInitShape<DescMessage>)));
}

/** The grpc-js definition of one method: binary protobuf both ways. */
export function methodDefinition(method: DescMethod): MethodDefinition<unknown, unknown> {
  return {
    path: methodPath(method),
    originalName: method.localName,
    requestStream: false,
    responseStream: method.methodKind === 'server_streaming',
    requestSerialize: serializer(method.input),
    requestDeserialize: (bytes: Buffer) => {
      try {
        return fromBinary(method.input, bytes);
      } catch (err) {
        return new UndecodableRequest(err instanceof Error ? err.message : 'malformed message');
      }
    },
    responseSerialize: serializer(method.output),
    responseDeserialize: (bytes: Buffer) => fromBinary(method.output, bytes),
  };
}

/** The grpc-js `ServiceDefinition` of a protobuf-es service descriptor, keyed by local name. */
export function serviceDefinition(service: DescService): ServiceDefinition {
  assertSupported(service);
  return Object.fromEntries(service.methods.map((m) => [m.localName, methodDefinition(m)]));
}
