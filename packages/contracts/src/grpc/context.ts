import type { Metadata, ServerUnaryCall, ServerWritableStream } from '@grpc/grpc-js';
import { readBearerToken, readTraceparent, readTracestate } from './metadata.js';

/** What a handler knows about the call besides its request. */
export interface RpcContext {
  /** Full method path, e.g. `/tollgate.registry.v1.RegistryService/Get`. */
  readonly method: string;
  /** Request metadata as received. */
  readonly metadata: Metadata;
  /** The client's deadline, or undefined when it set none. */
  readonly deadline: Date | undefined;
  /** Aborted when the client cancels, the deadline passes or the connection drops. */
  readonly signal: AbortSignal;
  /** Address of the caller, as grpc-js reports it. */
  readonly peer: string;
  /** The W3C `traceparent` header when present and well-formed. */
  traceparent(): string | undefined;
  /** The W3C `tracestate` header when present. */
  tracestate(): string | undefined;
  /** The principal token from `authorization: Bearer <token>`, when present. Not verified. */
  bearerToken(): string | undefined;
}

type ServerCall = ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>;

/** Builds the handler context of one call; the signal follows grpc-js's `cancelled` event. */
export function createContext(call: ServerCall, method: string): RpcContext {
  const controller = new AbortController();
  if (call.cancelled) controller.abort();
  else call.once('cancelled', () => controller.abort());
  const raw = call.getDeadline();
  const deadline = raw instanceof Date ? raw : Number.isFinite(raw) ? new Date(raw) : undefined;
  const metadata = call.metadata;
  return {
    method,
    metadata,
    deadline,
    signal: controller.signal,
    peer: call.getPeer(),
    traceparent: () => readTraceparent(metadata),
    tracestate: () => readTracestate(metadata),
    bearerToken: () => readBearerToken(metadata),
  };
}
