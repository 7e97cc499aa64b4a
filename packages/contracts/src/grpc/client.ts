import { Client, credentials as grpcCredentials } from '@grpc/grpc-js';
import type {
  CallOptions as GrpcCallOptions,
  Channel,
  ChannelCredentials,
  ChannelOptions,
  ClientReadableStream,
  ServiceError,
} from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';
import type {
  DescMessage,
  DescMethod,
  DescService,
  MessageInitShape,
  MessageShape,
} from '@bufbuild/protobuf';
import { assertSupported, methodDefinition } from './definition.js';
import { RpcError, fromServiceError, isRpcError } from './errors.js';
import { toMetadata } from './metadata.js';
import type { MetadataInit } from './metadata.js';

/** Per-call options. */
export interface CallOptions {
  /** Time budget of the call in milliseconds; becomes the gRPC deadline the server sees. */
  deadlineMs?: number;
  /** Sent with the call, over the client's default metadata. */
  metadata?: MetadataInit;
  /** Aborting cancels the call (the promise rejects with CANCELLED). */
  signal?: AbortSignal;
}

/** How a client connects and what it sends by default. */
export interface ClientOptions {
  /** Default: insecure (plaintext), for loopback and in-cluster traffic behind mTLS sidecars. */
  credentials?: ChannelCredentials;
  channelOptions?: ChannelOptions;
  /** Sent with every call (e.g. `authorization`); per-call metadata wins on the same key. */
  metadata?: MetadataInit;
  /** Deadline for calls that set none, in milliseconds. Default: none. */
  defaultDeadlineMs?: number;
}

type UnaryMethod<I extends DescMessage, O extends DescMessage> = (
  request: MessageInitShape<I>,
  options?: CallOptions,
) => Promise<MessageShape<O>>;

type ServerStreamingMethod<I extends DescMessage, O extends DescMessage> = (
  request: MessageInitShape<I>,
  options?: CallOptions,
) => AsyncIterable<MessageShape<O>>;

/**
 * A promise-based client of one service: one function per method, keyed by local name.
 * Failures reject (or throw from iteration) with `RpcError`.
 */
export type RpcClient<Svc extends DescService> = {
  [K in keyof Svc['method']]: Svc['method'][K] extends {
    methodKind: 'unary';
    input: infer I extends DescMessage;
    output: infer O extends DescMessage;
  }
    ? UnaryMethod<I, O>
    : Svc['method'][K] extends {
          methodKind: 'server_streaming';
          input: infer I extends DescMessage;
          output: infer O extends DescMessage;
        }
      ? ServerStreamingMethod<I, O>
      : never;
} & {
  /** Closes the channel the client created; a no-op when the caller passed a channel. */
  close(): void;
};

/**
 * Creates a typed client of `service` at `target`: an address such as `localhost:50051`, or
 * an existing grpc-js channel (shared; the caller closes it).
 */
export function createClient<Svc extends DescService>(
  service: Svc,
  target: string | Channel,
  options: ClientOptions = {},
): RpcClient<Svc> {
  assertSupported(service);
  const credentials = options.credentials ?? grpcCredentials.createInsecure();
  const ownsChannel = typeof target === 'string';
  const client =
    typeof target === 'string'
      ? new Client(target, credentials, options.channelOptions)
      : new Client('', credentials, { ...options.channelOptions, channelOverride: target });
  const methods: Record<string, unknown> = {};
  for (const method of service.methods) {
    if (method.localName === 'close') {
      throw new Error(`${service.typeName}: a method named "close" clashes with RpcClient.close`);
    }
    methods[method.localName] =
      method.methodKind === 'unary'
        ? unaryMethod(client, method, options)
        : serverStreamingMethod(client, method, options);
  }
  const close = (): void => {
    if (ownsChannel) client.close();
  };
  return { ...methods, close } as RpcClient<Svc>;
}

function callOptions(options: CallOptions, defaults: ClientOptions): GrpcCallOptions {
  const deadlineMs = options.deadlineMs ?? defaults.defaultDeadlineMs;
  return deadlineMs === undefined ? {} : { deadline: Date.now() + deadlineMs };
}

function aborted(): RpcError {
  return new RpcError(status.CANCELLED, 'call cancelled by the caller');
}

function unaryMethod(client: Client, method: DescMethod, defaults: ClientOptions) {
  const definition = methodDefinition(method);
  return (request: MessageInitShape<DescMessage>, options: CallOptions = {}): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const { signal } = options;
      if (signal?.aborted) {
        reject(aborted());
        return;
      }
      const call = client.makeUnaryRequest(
        definition.path,
        definition.requestSerialize,
        definition.responseDeserialize,
        request,
        toMetadata(defaults.metadata, options.metadata),
        callOptions(options, defaults),
        (err: ServiceError | null, response?: unknown) => {
          signal?.removeEventListener('abort', onAbort);
          if (err) reject(fromServiceError(err));
          else resolve(response);
        },
      );
      function onAbort(): void {
        call.cancel();
      }
      signal?.addEventListener('abort', onAbort, { once: true });
    });
}

function serverStreamingMethod(client: Client, method: DescMethod, defaults: ClientOptions) {
  const definition = methodDefinition(method);
  return async function* stream(
    request: MessageInitShape<DescMessage>,
    options: CallOptions = {},
  ): AsyncGenerator<unknown> {
    const { signal } = options;
    if (signal?.aborted) throw aborted();
    const call: ClientReadableStream<unknown> = client.makeServerStreamRequest(
      definition.path,
      definition.requestSerialize,
      definition.responseDeserialize,
      request,
      toMetadata(defaults.metadata, options.metadata),
      callOptions(options, defaults),
    );
    const onAbort = (): void => call.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const message of call) yield message;
    } catch (err) {
      throw isServiceError(err) ? fromServiceError(err) : err;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      call.cancel();
    }
  };
}

function isServiceError(err: unknown): err is ServiceError {
  return (
    err instanceof Error &&
    typeof (err as Partial<ServiceError>).code === 'number' &&
    !isRpcError(err)
  );
}
