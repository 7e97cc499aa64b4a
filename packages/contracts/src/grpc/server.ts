import { once } from 'node:events';
import { create } from '@bufbuild/protobuf';
import type {
  DescMessage,
  DescMethod,
  DescService,
  MessageInitShape,
  MessageShape,
} from '@bufbuild/protobuf';
import { status } from '@grpc/grpc-js';
import type {
  Server,
  ServerUnaryCall,
  ServerWritableStream,
  UntypedHandleCall,
  sendUnaryData,
} from '@grpc/grpc-js';
import { createContext } from './context.js';
import type { RpcContext } from './context.js';
import { UndecodableRequest, methodPath, serviceDefinition } from './definition.js';
import { RpcError, isRpcError, toStatus } from './errors.js';

/** A unary method: one request in, one response (a message or its init shape) out. */
export type UnaryHandler<I extends DescMessage, O extends DescMessage> = (
  request: MessageShape<I>,
  context: RpcContext,
) => Promise<MessageInitShape<O>> | MessageInitShape<O>;

/** A server-streaming method: one request in, responses yielded until done or cancelled. */
export type ServerStreamingHandler<I extends DescMessage, O extends DescMessage> = (
  request: MessageShape<I>,
  context: RpcContext,
) => AsyncIterable<MessageInitShape<O>>;

/**
 * Handlers for every method of a generated service, keyed by the method's local name:
 * `const impl: ServiceImpl<typeof RegistryService> = { get: async (req, ctx) => ({ ... }), ... }`.
 */
export type ServiceImpl<Svc extends DescService> = {
  [K in keyof Svc['method']]: Svc['method'][K] extends {
    methodKind: 'unary';
    input: infer I extends DescMessage;
    output: infer O extends DescMessage;
  }
    ? UnaryHandler<I, O>
    : Svc['method'][K] extends {
          methodKind: 'server_streaming';
          input: infer I extends DescMessage;
          output: infer O extends DescMessage;
        }
      ? ServerStreamingHandler<I, O>
      : never;
};

/** How `addService` turns thrown errors into statuses. */
export interface AddServiceOptions {
  /**
   * Maps a thrown error (e.g. a domain error) to the `RpcError` to send. Consulted first;
   * returning undefined falls back to the error itself when it is an `RpcError`, and to
   * INTERNAL with a generic message otherwise.
   */
  mapError?: (err: unknown) => RpcError | undefined;
  /** Told about every error that ends up as a generic INTERNAL (to log it); never sent. */
  onUnexpectedError?: (err: unknown, context: RpcContext) => void;
}

const GENERIC_INTERNAL = 'internal error';

/**
 * Registers `impl` for `service` on a grpc-js server. Requests and responses travel as binary
 * protobuf; thrown errors become statuses (see `AddServiceOptions`).
 */
export function addService<Svc extends DescService>(
  server: Server,
  service: Svc,
  impl: ServiceImpl<Svc>,
  options: AddServiceOptions = {},
): void {
  const definition = serviceDefinition(service);
  const handlers: Record<string, UntypedHandleCall> = {};
  for (const method of service.methods) {
    const handler: unknown = (impl as Record<string, unknown>)[method.localName];
    if (typeof handler !== 'function') {
      throw new Error(`${service.typeName}: no handler for method ${method.localName}`);
    }
    handlers[method.localName] =
      method.methodKind === 'unary'
        ? unaryCall(method, handler as UnaryHandler<DescMessage, DescMessage>, options)
        : serverStreamingCall(
            method,
            handler as ServerStreamingHandler<DescMessage, DescMessage>,
            options,
          );
  }
  server.addService(definition, handlers);
}

function unaryCall(
  method: DescMethod,
  handler: UnaryHandler<DescMessage, DescMessage>,
  options: AddServiceOptions,
): UntypedHandleCall {
  return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
    const context = createContext(call, methodPath(method));
    const run = async (): Promise<void> => {
      try {
        const response = await handler(decoded(method, call.request), context);
        callback(null, create(method.output, response));
      } catch (err) {
        callback(toStatus(toRpcError(err, context, options)));
      }
    };
    void run();
  };
}

function serverStreamingCall(
  method: DescMethod,
  handler: ServerStreamingHandler<DescMessage, DescMessage>,
  options: AddServiceOptions,
): UntypedHandleCall {
  return (call: ServerWritableStream<unknown, unknown>) => {
    const context = createContext(call, methodPath(method));
    const run = async (): Promise<void> => {
      try {
        for await (const item of handler(decoded(method, call.request), context)) {
          if (context.signal.aborted) return;
          if (!call.write(create(method.output, item))) {
            await once(call, 'drain', { signal: context.signal });
          }
        }
        call.end();
      } catch (err) {
        if (context.signal.aborted) return;
        const { code, details, metadata } = toStatus(toRpcError(err, context, options));
        call.emit('error', { code, details, metadata, message: details });
      }
    };
    void run();
  };
}

function decoded(method: DescMethod, request: unknown): MessageShape<DescMessage> {
  if (request instanceof UndecodableRequest) {
    throw new RpcError(
      status.INVALID_ARGUMENT,
      `request is not a valid ${method.input.typeName}: ${request.reason}`,
    );
  }
  return request as MessageShape<DescMessage>;
}

function toRpcError(err: unknown, context: RpcContext, options: AddServiceOptions): RpcError {
  try {
    const mapped = options.mapError?.(err);
    if (mapped !== undefined) return mapped;
  } catch (mapErr) {
    report(mapErr, context, options);
  }
  if (isRpcError(err)) return err;
  report(err, context, options);
  return new RpcError(status.INTERNAL, GENERIC_INTERNAL);
}

function report(err: unknown, context: RpcContext, options: AddServiceOptions): void {
  try {
    options.onUnexpectedError?.(err, context);
  } catch {
    // A failing reporter must not change what the caller is told.
  }
}
