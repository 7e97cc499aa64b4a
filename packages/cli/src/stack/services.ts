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

/** Instances of every service in cluster mode (`tollgate up --cluster`). */
export const CLUSTER_INSTANCES = 2;
/** NATS nodes in cluster mode (deploy/local's `TOLLGATE_CLUSTER=3`). */
export const CLUSTER_NODES = 3;

/** One running copy of a service: `executor`, `executor-2`, … */
export interface ServiceInstance {
  service: ServiceName;
  /** `<service>` for the first, `<service>-<n>` for the others: its record and log names. */
  id: string;
  /** 1-based. */
  index: number;
  /** Its gRPC address. */
  address: string;
  /** What this instance is started with on top of the stack's environment. */
  env: Record<string, string>;
}

/** `host:port` with the port moved by `by`. */
function shifted(address: string, by: number): string {
  const at = address.lastIndexOf(':');
  const port = Number(address.slice(at + 1));
  if (at < 0 || !Number.isInteger(port)) return address;
  return `${address.slice(0, at)}:${port + by}`;
}

/**
 * Instance `index` of `name`: the first listens where the service's own settings say; instance
 * n on the same hosts with every port moved by 100·(n-1) (gRPC, and the console's and the MCP
 * front end's HTTP, with the public URLs that follow them unless they were set).
 */
export function serviceInstance(
  name: ServiceName,
  index: number,
  env: NodeJS.ProcessEnv,
): ServiceInstance {
  const id = index === 1 ? name : `${name}-${index}`;
  const by = 100 * (index - 1);
  const address = shifted(serviceAddress(name, env), by);
  if (index === 1) return { service: name, id, index, address, env: {} };
  const own: Record<string, string> = { [addressVariable(name)]: address };
  if (name === 'console') {
    const http = shifted(env.TOLLGATE_CONSOLE_ADDR?.trim() || '127.0.0.1:7080', by);
    own.TOLLGATE_CONSOLE_ADDR = http;
    if (!env.TOLLGATE_CONSOLE_PUBLIC_URL?.trim())
      own.TOLLGATE_CONSOLE_PUBLIC_URL = `http://localhost:${http.slice(http.lastIndexOf(':') + 1)}`;
  }
  if (name === 'mcp') {
    own.TOLLGATE_MCP_HTTP_ADDR = shifted(
      env.TOLLGATE_MCP_HTTP_ADDR?.trim() || '127.0.0.1:7068',
      by,
    );
  }
  return { service: name, id, index, address, env: own };
}

/** Every instance of the stack: one of each service, or `CLUSTER_INSTANCES` in cluster mode. */
export function stackInstances(env: NodeJS.ProcessEnv, instances: number): ServiceInstance[] {
  return SERVICE_NAMES.flatMap((name) =>
    Array.from({ length: instances }, (_, i) => serviceInstance(name, i + 1, env)),
  );
}

/**
 * What cluster mode adds to the services' environment, unless set: every NATS node in
 * `TOLLGATE_NATS_URL` (deploy/local's nodes sit 10 ports apart) and 3 replicas of each stream
 * and bucket.
 */
export function clusterEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const base = Number(env.TOLLGATE_NATS_PORT?.trim() || '4222');
  const nodes = Number(env.TOLLGATE_CLUSTER?.trim() || CLUSTER_NODES);
  return {
    TOLLGATE_CLUSTER: String(nodes),
    TOLLGATE_NATS_URL:
      env.TOLLGATE_NATS_URL?.trim() ||
      Array.from({ length: nodes }, (_, i) => `nats://127.0.0.1:${base + 10 * i}`).join(','),
    TOLLGATE_NATS_REPLICAS: env.TOLLGATE_NATS_REPLICAS?.trim() || String(Math.min(nodes, 3)),
  };
}
