/**
 * The services of the local stack — the control and data planes, `auth-callout` (lets agents
 * onto the bus with their tokens), the web console and the MCP front end — and where they
 * listen for gRPC (the same variables and defaults as the services' own `serviceEndpoints`;
 * the callout, the console and MCP serve only health there), plus the NATS URL agents use,
 * the console's URL and the MCP endpoint.
 */
export const SERVICE_NAMES = [
  'auth-callout',
  'registry',
  'synthesizer',
  'policy',
  'executor',
  'memory',
  'audit',
  'console',
  'mcp',
] as const;

export type ServiceName = (typeof SERVICE_NAMES)[number];

const DEFAULT_PORTS: Record<ServiceName, number> = {
  'auth-callout': 7070,
  registry: 7061,
  synthesizer: 7062,
  policy: 7063,
  executor: 7064,
  memory: 7065,
  audit: 7066,
  console: 7069,
  mcp: 7067,
};

/** `TOLLGATE_<NAME>_GRPC_ADDR`, the variable that moves a service's gRPC address. */
export function addressVariable(name: ServiceName): string {
  return `TOLLGATE_${name.toUpperCase().replace(/-/g, '_')}_GRPC_ADDR`;
}

/** Where `name` listens for gRPC: its variable, else `127.0.0.1:<default port>`. */
export function serviceAddress(name: ServiceName, env: NodeJS.ProcessEnv): string {
  return env[addressVariable(name)]?.trim() || `127.0.0.1:${DEFAULT_PORTS[name]}`;
}

/** NATS, where agents call tools: `TOLLGATE_NATS_URL`, else `nats://127.0.0.1:4222`. */
export function natsUrl(env: NodeJS.ProcessEnv): string {
  return (
    env.TOLLGATE_NATS_URL?.trim() || `nats://127.0.0.1:${env.TOLLGATE_NATS_PORT?.trim() || '4222'}`
  );
}

export function isServiceName(value: string): value is ServiceName {
  return (SERVICE_NAMES as readonly string[]).includes(value);
}

/** Where people open the web console: `TOLLGATE_CONSOLE_PUBLIC_URL`, else `http://localhost:7080`. */
export function consoleUrl(env: NodeJS.ProcessEnv): string {
  return env.TOLLGATE_CONSOLE_PUBLIC_URL?.trim() || 'http://localhost:7080';
}

/**
 * Where MCP clients connect over Streamable HTTP: `TOLLGATE_MCP_RESOURCE_URL`, else
 * `http://<TOLLGATE_MCP_HTTP_ADDR>/mcp` (the service's own defaults).
 */
export function mcpUrl(env: NodeJS.ProcessEnv): string {
  return (
    env.TOLLGATE_MCP_RESOURCE_URL?.trim() ||
    `http://${env.TOLLGATE_MCP_HTTP_ADDR?.trim() || '127.0.0.1:7068'}/mcp`
  );
}
