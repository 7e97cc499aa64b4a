/**
 * `tollgate doctor`: the prerequisites of the README, the build, the ports and the running stack,
 * each checked with a fix for what is wrong. Read-only: it starts, stops and installs nothing.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statfsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { StackHome } from './home.js';
import { SERVICE_NAMES, serviceAddress } from './services.js';
import type { StackStatus } from './stack.js';

/** `fail`: something the demo or the tests need is missing; `warn`: only some uses need it. */
export type CheckState = 'ok' | 'warn' | 'fail';

export interface Check {
  area: 'prerequisites' | 'checkout' | 'ports' | 'stack';
  name: string;
  state: CheckState;
  /** What was found. */
  found: string;
  /** What to do about it, when it is not ok. */
  fix?: string;
}

const MIN_NODE = [20, 19] as const;

/** One tool deploy/local needs (deploy/local/prerequisites.json). */
interface Prerequisite {
  name: string;
  args: string[];
  why: string;
  fix: string;
  /** Cache folder whose presence means it was already used to provision. */
  cached?: string;
}

interface Prerequisites {
  minFreeGb: number;
  tools: Prerequisite[];
}

export async function prerequisiteChecks(
  env: NodeJS.ProcessEnv,
  checkout: string | undefined,
): Promise<Check[]> {
  const cache = env.TOLLGATE_CACHE_DIR ?? join(env.HOME ?? homedir(), '.cache', 'tollgate');
  const needs: Prerequisites =
    checkout === undefined
      ? { minFreeGb: 8, tools: [] }
      : (JSON.parse(
          readFileSync(join(checkout, 'deploy', 'local', 'prerequisites.json'), 'utf8'),
        ) as Prerequisites);
  const checks: Check[] = [nodeCheck(), headersCheck()];
  for (const tool of needs.tools) checks.push(await toolCheck(tool, cache, env));
  const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  checks.push(
    chromium
      ? { area: 'prerequisites', name: 'chromium', state: 'ok', found: chromium }
      : {
          area: 'prerequisites',
          name: 'chromium',
          state: 'warn',
          found: 'not found (only the console browser tests need it)',
          fix: 'apt-get install -y chromium',
        },
    diskCheck(cache, needs.minFreeGb),
  );
  return checks;
}

export function checkoutChecks(home: StackHome): Check[] {
  const checkout = home.checkout;
  if (checkout === undefined) {
    return [
      {
        area: 'checkout',
        name: 'checkout',
        state: 'fail',
        found: 'not run from a Tollgate checkout',
        fix: 'cd into the repository (or use its bin/tollgate)',
      },
    ];
  }
  const pinned = (
    JSON.parse(readFileSync(join(checkout, 'package.json'), 'utf8')) as { packageManager?: string }
  ).packageManager;
  const installed = existsSync(join(checkout, 'node_modules', '.pnpm'));
  const built = existsSync(join(checkout, 'packages', 'cli', 'dist', 'main.js'));
  const web = existsSync(join(checkout, 'services', 'console', 'dist', 'web', 'index.html'));
  const setup = 'npm test, npm run demo, or bash scripts/setup.sh (all set it up)';
  return [
    {
      area: 'checkout',
      name: 'dependencies',
      state: installed ? 'ok' : 'fail',
      found: installed ? `installed (${pinned ?? 'pnpm'})` : 'node_modules missing',
      ...(installed ? {} : { fix: setup }),
    },
    {
      area: 'checkout',
      name: 'build',
      state: built && web ? 'ok' : 'fail',
      found: built && web ? 'built' : `not built (${built ? 'console web missing' : 'no dist'})`,
      ...(built && web ? {} : { fix: setup }),
    },
  ];
}

/**
 * Each service's port: ok when free or when our service serves it; a port held by something
 * else fails with the variable that moves it.
 */
export async function portChecks(env: NodeJS.ProcessEnv, status: StackStatus): Promise<Check[]> {
  const checks: Check[] = [];
  for (const name of SERVICE_NAMES) {
    const address = serviceAddress(name, env);
    const service = status.services.find((s) => s.name === name);
    const ours = service !== undefined && service.state !== 'stopped';
    const taken = ours ? true : await listening(address);
    const variable = `TOLLGATE_${name.toUpperCase().replace(/-/g, '_')}_GRPC_ADDR`;
    checks.push(
      !taken || ours
        ? {
            area: 'ports',
            name,
            state: 'ok',
            found: `${address} ${ours ? `(${name}, ${service?.state})` : 'free'}`,
          }
        : {
            area: 'ports',
            name,
            state: 'fail',
            found: `${address} is taken by another process`,
            fix: `stop what listens there, or set ${variable} to a free host:port`,
          },
    );
  }
  return checks;
}

export function stackChecks(status: StackStatus): Check[] {
  const checks: Check[] = status.infra.map((s) =>
    s.healthy
      ? { area: 'stack', name: s.name, state: 'ok', found: `healthy on ${s.address}` }
      : {
          area: 'stack',
          name: s.name,
          state: 'warn',
          found: s.state === 'running' ? `running but unhealthy (${s.address})` : 'stopped',
          fix: `tollgate up (log: .tollgate/local/${s.name}/server.log)`,
        },
  );
  for (const s of status.services) {
    const ok = s.state === 'running' || s.state === 'external';
    checks.push(
      ok
        ? { area: 'stack', name: s.name, state: 'ok', found: `${s.state} on ${s.address}` }
        : {
            area: 'stack',
            name: s.name,
            state: 'warn',
            found: s.state,
            fix: s.state === 'starting' ? `wait, or read ${s.log}` : 'tollgate up',
          },
    );
  }
  return checks;
}

function nodeCheck(): Check {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  return {
    area: 'prerequisites',
    name: 'node',
    state: ok ? 'ok' : 'fail',
    found: `v${process.versions.node}`,
    ...(ok ? {} : { fix: `install Node.js ≥ ${MIN_NODE.join('.')}` }),
  };
}

/** Directus's native modules build against the headers that come with the installed Node. */
function headersCheck(): Check {
  const prefix = dirname(dirname(process.execPath));
  const header = join(prefix, 'include', 'node', 'node.h');
  return existsSync(header)
    ? { area: 'prerequisites', name: 'node headers', state: 'ok', found: dirname(header) }
    : {
        area: 'prerequisites',
        name: 'node headers',
        state: 'fail',
        found: `${header} missing`,
        fix: 'install Node.js from a distribution that ships include/node (nodejs.org tarballs do)',
      };
}

async function toolCheck(
  tool: Prerequisite,
  cache: string,
  env: NodeJS.ProcessEnv,
): Promise<Check> {
  const version = await run(tool.name, tool.args, env);
  if (version !== undefined)
    return { area: 'prerequisites', name: tool.name, state: 'ok', found: version.split('\n')[0]! };
  // Once deploy/local built or downloaded what it needs, the tool is only needed to rebuild.
  const cached = tool.cached !== undefined && existsSync(join(cache, tool.cached));
  return {
    area: 'prerequisites',
    name: tool.name,
    state: cached ? 'warn' : 'fail',
    found: `not found (${tool.why}${cached ? '; already provisioned in the cache, so only a rebuild needs it' : ''})`,
    fix: tool.fix,
  };
}

function diskCheck(cache: string, minFreeGb: number): Check {
  let dir = cache;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  const stats = statfsSync(dir);
  const freeGb = (stats.bavail * stats.bsize) / 1024 ** 3;
  const ok = freeGb >= minFreeGb;
  return {
    area: 'prerequisites',
    name: 'disk',
    state: ok ? 'ok' : 'warn',
    found: `${freeGb.toFixed(1)} GB free under ${dir}`,
    ...(ok ? {} : { fix: `free at least ${minFreeGb} GB for the first provisioning` }),
  };
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(command, args, { env, timeout: 10_000 }, (err, stdout, stderr) => {
      if (err) resolve(undefined);
      else resolve((stdout || stderr).trim() || command);
    });
  });
}

function listening(address: string): Promise<boolean> {
  const at = address.lastIndexOf(':');
  const host = address.slice(0, at);
  const port = Number(address.slice(at + 1));
  return new Promise((resolve) => {
    const socket = createConnection({ host, port, timeout: 1000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
