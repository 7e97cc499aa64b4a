/** Where each service listens for gRPC by default, and the variable that moves it. */
export const serviceEndpoints = {
  registry: { env: 'TOLLGATE_REGISTRY_GRPC_ADDR', default: '127.0.0.1:7061' },
  synthesizer: { env: 'TOLLGATE_SYNTHESIZER_GRPC_ADDR', default: '127.0.0.1:7062' },
  policy: { env: 'TOLLGATE_POLICY_GRPC_ADDR', default: '127.0.0.1:7063' },
  executor: { env: 'TOLLGATE_EXECUTOR_GRPC_ADDR', default: '127.0.0.1:7064' },
  memory: { env: 'TOLLGATE_MEMORY_GRPC_ADDR', default: '127.0.0.1:7065' },
  audit: { env: 'TOLLGATE_AUDIT_GRPC_ADDR', default: '127.0.0.1:7066' },
  /** Health only; the MCP endpoint itself is HTTP (`TOLLGATE_MCP_HTTP_ADDR`, 7068). */
  mcp: { env: 'TOLLGATE_MCP_GRPC_ADDR', default: '127.0.0.1:7067' },
  /** Health only; the page and its API are HTTP (`TOLLGATE_CONSOLE_ADDR`, 7080). */
  console: { env: 'TOLLGATE_CONSOLE_GRPC_ADDR', default: '127.0.0.1:7069' },
  /** NATS auth callout; gRPC serves only health. */
  'auth-callout': { env: 'TOLLGATE_AUTH_CALLOUT_GRPC_ADDR', default: '127.0.0.1:7070' },
} as const;

export type ServiceName = keyof typeof serviceEndpoints;
