/** One service of the local stack: started detached, restarted on changed settings, awaited. */
import { join } from 'node:path';
import { checkHealth } from '@tollgate/contracts';
import { CliError } from '../errors.js';
import type { StackHome } from './home.js';
import {
  changedSettings,
  forgetRecord,
  isRunning,
  logTail,
  processFiles,
  readRecord,
  settingsOf,
  sleep,
  startDetached,
  stopProcess,
  writeRecord,
} from './processes.js';
import { SERVICE_NAMES, addressVariable, serviceAddress } from './services.js';
import type { ServiceInstance, ServiceName } from './services.js';
import type { ServiceStatus, StackProgress } from './status.js';

/** How a service is brought up. */
export interface ServiceUpOptions {
  env: NodeJS.ProcessEnv;
  /** How long each service may take to serve, ms. */
  timeoutMs: number;
  progress: StackProgress;
}

/**
 * Brings an instance of a service up: left alone when it already runs with these settings,
 * restarted when they changed, adopted as `external` when something else serves its address,
 * else started and awaited until it serves gRPC health.
 */
export async function serviceUp(
  home: StackHome,
  checkout: string,
  instance: ServiceInstance,
  options: ServiceUpOptions,
  trust: Record<string, string>,
  builtAt: number,
): Promise<ServiceStatus> {
  const { service: name, id, address } = instance;
  const entry = serviceEntry(checkout, name);
  const log = processFiles(home.run, id).log;
  const env: NodeJS.ProcessEnv = {
    ...options.env,
    // Every service learns where the others are (e.g. the synthesizer asks memory for ranking).
    ...Object.fromEntries(
      SERVICE_NAMES.map((s) => [addressVariable(s), serviceAddress(s, options.env)]),
    ),
    TOLLGATE_TRUSTED_ISSUERS_FILE: home.trustedIssuersFile,
    // The console mints the principal tokens it calls the others with, from the dev issuer.
    ...(name === 'console' ? { TOLLGATE_CONSOLE_ISSUER_KEY_FILE: home.issuerKeyFile } : {}),
    // So does the MCP front end, for the principals its clients' tokens map to.
    ...(name === 'mcp' ? { TOLLGATE_MCP_ISSUER_KEY_FILE: home.issuerKeyFile } : {}),
    TOLLGATE_LOG_LEVEL: options.env.TOLLGATE_LOG_LEVEL || 'info',
    ...instance.env,
  };
  const settings = { ...settingsOf(env), ...trust };
  const record = await readRecord(home.run, id);
  let action: ServiceStatus['action'] = 'started';
  let restart: Pick<ServiceStatus, 'reason' | 'changed'> = {};
  if (record && isRunning(record.pid, record.entry)) {
    const changed = changedSettings(record.settings, settings);
    const rebuilt = Date.parse(record.startedAt) < builtAt;
    if (record.address === address && record.entry === entry && changed.length === 0 && !rebuilt) {
      await waitServing(
        id,
        address,
        options.timeoutMs,
        () => isRunning(record.pid, record.entry),
        log,
      );
      return statusOf(instance, log, record.pid, record.startedAt, 'already_running');
    }
    restart =
      changed.length > 0
        ? { reason: 'settings', changed }
        : { reason: rebuilt ? 'rebuilt' : 'address' };
    const why =
      changed.length > 0
        ? `started with other settings (${changed.join(', ')})`
        : rebuilt
          ? 'rebuilt since it started'
          : `it listens on ${record.address}, not ${address}`;
    options.progress.warn(`${id}: restarting, ${why}`);
    await stopProcess(record.pid, record.entry, 15_000);
    await forgetRecord(home.run, id);
    action = 'restarted';
  } else if (await isServing(address)) {
    return { name, instance: id, address, state: 'external', log, action: 'external' };
  }
  const child = startDetached(entry, { cwd: checkout, env, log });
  if (child.pid === undefined) {
    throw new CliError('START_FAILED', `${id}: could not start ${entry}`);
  }
  const pid = child.pid;
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  const startedAt = new Date().toISOString();
  await writeRecord(home.run, id, { pid, address, entry, startedAt, settings });
  await waitServing(
    id,
    address,
    options.timeoutMs,
    () => exited === undefined && isRunning(pid, entry),
    log,
  );
  return { ...statusOf(instance, log, pid, startedAt, action), ...restart };
}

function statusOf(
  instance: ServiceInstance,
  log: string,
  pid: number,
  startedAt: string,
  action: ServiceStatus['action'],
): ServiceStatus {
  return {
    name: instance.service,
    instance: instance.id,
    address: instance.address,
    state: 'running',
    pid,
    startedAt,
    log,
    ...(action ? { action } : {}),
  };
}

/** Polls gRPC health until SERVING; fails fast (with the log's tail) when the process dies. */
async function waitServing(
  name: string,
  address: string,
  timeoutMs: number,
  alive: () => boolean,
  log: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await isServing(address)) return;
    if (!alive()) {
      const tail = await logTail(log, 5);
      throw new CliError(
        'START_FAILED',
        `${name} exited during startup (log: ${log})${tail ? `: ${lastMessage(tail)}` : ''}`,
      );
    }
    if (Date.now() > deadline) {
      throw new CliError(
        'START_TIMEOUT',
        `${name} did not serve gRPC health at ${address} within ${Math.round(timeoutMs / 1000)}s (log: ${log})`,
      );
    }
    await sleep(250);
  }
}

/** The most telling line of a JSON log tail: the last fatal/error message, else the last line. */
function lastMessage(tail: string): string {
  const lines = tail.split('\n');
  for (const line of [...lines].reverse()) {
    try {
      const parsed = JSON.parse(line) as {
        level?: unknown;
        msg?: unknown;
        err?: { message?: unknown };
      };
      if (
        parsed.level === 'fatal' ||
        parsed.level === 'error' ||
        parsed.level === 50 ||
        parsed.level === 60
      ) {
        const detail = typeof parsed.err?.message === 'string' ? ` (${parsed.err.message})` : '';
        return `${String(parsed.msg)}${detail}`;
      }
    } catch {
      // not JSON
    }
  }
  return (lines[lines.length - 1] ?? '').slice(0, 300);
}

export async function isServing(address: string): Promise<boolean> {
  try {
    return (await checkHealth(address, '', { deadlineMs: 1_000 })) === 1;
  } catch {
    return false;
  }
}

/** `services/<name>/dist/main.js` of the checkout. */
export function serviceEntry(checkout: string, name: ServiceName): string {
  return join(checkout, 'services', name, 'dist', 'main.js');
}
