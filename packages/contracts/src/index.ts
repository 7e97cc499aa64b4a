// The grpc-js adapter. Generated messages and services live in per-package entry points:
// `@tollgate/contracts/<area>/v1` (common, call, tools, registry, synthesizer, policy, memory,
// audit, events) and `@tollgate/contracts/grpc/health/v1`.
export { status as RpcStatus } from '@grpc/grpc-js';
export { createClient } from './grpc/client.js';
export type { CallOptions, ClientOptions, RpcClient } from './grpc/client.js';
export type { RpcContext } from './grpc/context.js';
export { methodPath, serviceDefinition } from './grpc/definition.js';
export { ERROR_CODE_KEY, ERROR_DETAILS_KEY, RpcError, isRpcError } from './grpc/errors.js';
export type { RpcErrorDetail, RpcErrorOptions } from './grpc/errors.js';
export { checkHealth, serveHealth } from './grpc/health.js';
export type { CheckHealthOptions, HealthReporter } from './grpc/health.js';
export { readBearerToken, readTraceparent, readTracestate, toMetadata } from './grpc/metadata.js';
export type { MetadataInit } from './grpc/metadata.js';
export { addService } from './grpc/server.js';
export type {
  AddServiceOptions,
  ServerStreamingHandler,
  ServiceImpl,
  UnaryHandler,
} from './grpc/server.js';
