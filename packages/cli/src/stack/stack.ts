import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../errors.js';
import type { StackHome } from './home.js';
import { infraMessage, parseInfraStatus, runInfraScript } from './infra.js';
import type { InfraServer } from './infra.js';
import { ensureIssuer } from './issuer.js';
import { forgetRecord, isRunning, processFiles, readRecord, stopProcess } from './processes.js';
import {
  CLUSTER_INSTANCES,
  SERVICE_NAMES,
  clusterEnv,
  consoleUrl,
  mcpUrl,
  natsUrl,
  serviceInstance,
  stackInstances,
} from './services.js';
import { serviceBuilds } from './builds.js';
import { isServing, serviceEntry, serviceUp } from './service-up.js';
import type { ServiceUpOptions } from './service-up.js';
import type { ServiceInstance, ServiceName } from './services.js';
import type { ServiceStatus, StackProgress } from './status.js';

/** The whole local stack. */
export interface StackStatus {
  home: string;
  nats: string;
  /** Where people open the web console. */
  console: string;
  /** Where MCP clients connect (Streamable HTTP). */
  mcp: string;
  trustedIssuersFile: string;
  infra: InfraServer[];
  services: ServiceStatus[];
  /** Every infrastructure server healthy and every service serving. */
  healthy: boolean;
  /** Cluster mode: a NATS cluster and `CLUSTER_INSTANCES` of every service. */
  cluster: boolean;
}

export interface UpOptions extends ServiceUpOptions {
  /** Skip `deploy/local/up.sh` (the infrastructure is managed elsewhere). */
  skipInfra?: boolean;
  /**
   * Cluster mode: deploy/local's NATS cluster (`TOLLGATE_CLUSTER`, default 3 nodes), streams and
   * buckets at 3 replicas, and `CLUSTER_INSTANCES` of every service, each on its own ports.
   */
  cluster?: boolean;
}

/**
 * Brings the local stack up: the dev issuer, the infrastructure (`deploy/local/up.sh`), then
 * the services (and the console) as detached background processes, waiting until each serves gRPC health.
 * Idempotent: a service already running with the same settings is left alone; one started
 * with different `TOLLGATE_*` settings is restarted so the stack matches this environment.
 */
export async function stackUp(home: StackHome, given: UpOptions): Promise<StackStatus> {
  const checkout = requireCheckout(home);
  const options = given.cluster
    ? { ...given, env: { ...given.env, ...clusterEnv(given.env) } }
    : given;
  const instances = stackInstances(options.env, options.cluster ? CLUSTER_INSTANCES : 1);
  await mkdir(home.run, { recursive: true });
  const keys = await ensureIssuer(home);
  // New issuer keys at the same path must restart the services that trust the old ones.
  const trust = {
    'trusted issuer key': createHash('sha256')
      .update(keys.kid + JSON.stringify(keys.publicJwk))
      .digest('hex')
      .slice(0, 16),
  };
  if (!options.skipInfra) {
    const step = options.progress.step('infrastructure (deploy/local)');
    const run = await runInfraScript(checkout, 'up.sh', {
      env: options.env,
      log: join(home.run, 'infra.log'),
      onLine: (line) => step.update(infraMessage(line)),
    });
    if (run.code !== 0) {
      step.fail();
      throw new CliError(
        'INFRA_FAILED',
        `the infrastructure did not come up: ${run.lines.map(infraMessage).filter(Boolean).slice(-5).join(' | ')} (log: ${join(home.run, 'infra.log')})`,
      );
    }
    step.done();
  }
  for (const name of SERVICE_NAMES) {
    const entry = serviceEntry(checkout, name);
    if (!existsSync(entry)) {
      throw new CliError('NOT_BUILT', `${entry} does not exist; run \`pnpm build\` first`);
    }
  }
  const builds = await serviceBuilds(checkout, SERVICE_NAMES);
  const env = {
    ...options.env,
    TOLLGATE_EGRESS_RULES:
      options.env.TOLLGATE_EGRESS_RULES?.trim() ||
      localEgressRules(await infraStatus(home, options.env)),
  };
  const step = options.progress.step('services');
  const pending = new Set<string>(instances.map((i) => i.id));
  step.update(`waiting for ${[...pending].join(', ')}`);
  // Instances beyond what this run asks for (a cluster brought down to one) are stopped.
  await stopInstances(home, extraInstances(options.cluster ? CLUSTER_INSTANCES : 1), 15_000);
  const start = async (instance: ServiceInstance) => {
    const status = await serviceUp(
      home,
      checkout,
      instance,
      { ...options, env },
      trust,
      builds[instance.service],
    );
    pending.delete(instance.id);
    if (pending.size > 0) step.update(`waiting for ${[...pending].join(', ')}`);
    return status;
  };
  // In waves by instance: the first of each service creates the streams and buckets (at 3
  // replicas, on a cluster just formed) before the second ones start; all eighteen at once
  // on a small machine made JetStream requests time out.
  const results: Array<PromiseSettledResult<ServiceStatus>> = new Array(instances.length);
  const waves = [...new Set(instances.map((i) => i.index))].sort((a, b) => a - b);
  for (const wave of waves) {
    const members = instances.flatMap((instance, at) => (instance.index === wave ? [at] : []));
    const settled = await Promise.allSettled(members.map((at) => start(instances[at]!)));
    members.forEach((at, k) => (results[at] = settled[k]!));
    if (settled.some((r) => r.status === 'rejected')) break;
  }
  const failures = results.flatMap((r) => (r?.status === 'rejected' ? [r.reason as unknown] : []));
  if (failures.length > 0) {
    step.fail();
    const first = failures[0];
    if (first instanceof CliError && failures.length === 1) throw first;
    throw new CliError(
      'SERVICES_FAILED',
      failures.map((f) => (f instanceof Error ? f.message : String(f))).join('; '),
    );
  }
  step.done();
  const services = results.map((r) => (r as PromiseFulfilledResult<ServiceStatus>).value);
  for (const s of services) {
    if (s.action === 'external') {
      options.progress.warn(
        `${s.instance}: something not started by \`tollgate up\` already serves ${s.address}; left as is`,
      );
    }
  }
  const infra = options.skipInfra ? [] : await infraStatus(home, options.env);
  return summary(home, options.env, infra, services, options.cluster === true);
}

/** Instances `index` > `keep` of every service (what a smaller stack must not leave running). */
function extraInstances(keep: number): ServiceInstance[] {
  return SERVICE_NAMES.flatMap((name) =>
    Array.from({ length: CLUSTER_INSTANCES - keep }, (_, i) =>
      serviceInstance(name, keep + i + 1, {}),
    ),
  );
}

/** Stops the instances `up` started among `instances`; how each ended. */
async function stopInstances(
  home: StackHome,
  instances: readonly ServiceInstance[],
  graceMs: number,
): Promise<
  Array<{ name: ServiceName; instance: string; result: 'stopped' | 'killed' | 'not_running' }>
> {
  return Promise.all(
    instances.map(async ({ service, id }) => {
      const record = await readRecord(home.run, id);
      const result = record
        ? await stopProcess(record.pid, record.entry, graceMs)
        : ('not_running' as const);
      await forgetRecord(home.run, id);
      return { name: service, instance: id, result };
    }),
  );
}

export interface DownOptions {
  env: NodeJS.ProcessEnv;
  keepInfra?: boolean;
  graceMs: number;
  progress: StackProgress;
}

/** What `down` stopped. */
export interface DownResult {
  services: Array<{
    name: ServiceName;
    instance: string;
    result: 'stopped' | 'killed' | 'not_running';
  }>;
  infra: 'stopped' | 'kept';
}

/** Stops the services `up` started (SIGTERM, SIGKILL after the grace), then the infrastructure. */
export async function stackDown(home: StackHome, options: DownOptions): Promise<DownResult> {
  const step = options.progress.step('stopping services');
  const all = stackInstances({}, CLUSTER_INSTANCES);
  const services = (await stopInstances(home, all, options.graceMs)).filter(
    (s) => s.instance === s.name || s.result !== 'not_running',
  );
  step.done();
  for (const s of services) {
    if (s.result === 'killed')
      options.progress.warn(`${s.instance} did not stop in time and was killed`);
  }
  if (options.keepInfra) return { services, infra: 'kept' };
  const infraStep = options.progress.step('stopping the infrastructure');
  const run = await runInfraScript(requireCheckout(home), 'down.sh', {
    env: options.env,
    log: join(home.run, 'infra.log'),
    onLine: (line) => infraStep.update(infraMessage(line)),
  });
  if (run.code !== 0) {
    infraStep.fail();
    throw new CliError(
      'INFRA_FAILED',
      `deploy/local/down.sh failed (log: ${join(home.run, 'infra.log')})`,
    );
  }
  infraStep.done();
  return { services, infra: 'stopped' };
}

/** Where everything is and whether it is healthy. */
export async function stackStatus(home: StackHome, env: NodeJS.ProcessEnv): Promise<StackStatus> {
  // Cluster mode when `up --cluster` left a second instance of anything.
  const seconds = extraInstances(1);
  const cluster = (await Promise.all(seconds.map((i) => readRecord(home.run, i.id)))).some(
    (r) => r !== undefined,
  );
  const shown = cluster ? { ...env, ...clusterEnv(env) } : env;
  const [infra, services] = await Promise.all([
    // deploy/local knows the shape of the NATS it runs: asked as is.
    home.checkout ? infraStatus(home, env) : Promise.resolve([]),
    Promise.all(
      stackInstances(shown, cluster ? CLUSTER_INSTANCES : 1).map((i) => serviceStatus(home, i)),
    ),
  ]);
  return summary(home, shown, infra, services, cluster);
}

async function serviceStatus(home: StackHome, instance: ServiceInstance): Promise<ServiceStatus> {
  const { service: name, id, address } = instance;
  const log = processFiles(home.run, id).log;
  const record = await readRecord(home.run, id);
  const serving = await isServing(record?.address ?? address);
  if (record && isRunning(record.pid, record.entry)) {
    return {
      name,
      instance: id,
      address: record.address,
      state: serving ? 'running' : 'starting',
      pid: record.pid,
      startedAt: record.startedAt,
      log,
    };
  }
  return { name, instance: id, address, state: serving ? 'external' : 'stopped', log };
}

/** Infrastructure the services themselves use: no resource may point at it. */
const STACK_OWN = new Set(['nats', 'ferretdb', 'jaeger']);

/**
 * The egress rules of a local stack when `TOLLGATE_EGRESS_RULES` is unset: public addresses,
 * plus exactly the host and port of each data server `deploy/local` runs (all on loopback, which
 * the default rules refuse), and nothing else of this machine.
 */
export function localEgressRules(infra: readonly InfraServer[]): string {
  const servers = infra.flatMap((server) => {
    if (STACK_OWN.has(server.name)) return [];
    try {
      const url = new URL(server.address);
      return url.port === '' ? [] : [`${url.hostname}:${url.port}`];
    } catch {
      return [];
    }
  });
  return `*/*=${['public', ...servers].join(',')}`;
}

async function infraStatus(home: StackHome, env: NodeJS.ProcessEnv): Promise<InfraServer[]> {
  const run = await runInfraScript(home.checkout, 'status.sh', { env });
  return parseInfraStatus(run.lines);
}

function summary(
  home: StackHome,
  env: NodeJS.ProcessEnv,
  infra: InfraServer[],
  services: ServiceStatus[],
  cluster: boolean,
): StackStatus {
  return {
    cluster,
    home: home.root,
    nats: natsUrl(env),
    console: consoleUrl(env),
    mcp: mcpUrl(env),
    trustedIssuersFile: home.trustedIssuersFile,
    infra,
    services,
    healthy:
      infra.every((s) => s.healthy) &&
      services.every((s) => s.state === 'running' || s.state === 'external'),
  };
}

function requireCheckout(home: StackHome): string {
  if (home.checkout === undefined) {
    throw new CliError(
      'NO_CHECKOUT',
      'the local stack runs from a Tollgate checkout (deploy/local and services/); none was found',
    );
  }
  return home.checkout;
}
