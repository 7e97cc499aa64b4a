import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { busEnv, connectTestBus } from './bus.js';
import type { NatsServer } from './nats-server.js';
import { repoRoot } from './process.js';

const run = promisify(execFile);

/**
 * A 3-node NATS cluster started by deploy/local's cluster mode (`TOLLGATE_CLUSTER=3 up.sh nats`)
 * in a state folder of its own: the same binary, accounts and permissions as every Tollgate bus,
 * JetStream on every node. Its `url` names all three nodes and `env` asks services for 3
 * replicas of each stream and bucket. Ports: `base` (default `TOLLGATE_CLUSTER_TEST_NATS_PORT`,
 * else 30200) for node 1's clients, +1 monitoring, +2 routes; node i adds 10*(i-1).
 */
export interface NatsCluster extends NatsServer {
  readonly nodes: 3;
  /** Node i's (1-based) monitoring endpoint, e.g. `${monitorUrl(2)}/jsz`. */
  monitorUrl(node: number): string;
  /** SIGKILLs node i. */
  killNode(node: number): Promise<void>;
  /** Sends node i a signal (SIGSTOP freezes it: peers and clients lose it; SIGCONT thaws it). */
  signalNode(node: number, signal: NodeJS.Signals): Promise<void>;
  /** Starts whichever nodes are not running (up.sh is idempotent per node). */
  startNodes(): Promise<void>;
}

const nodeName = (node: number) => (node === 1 ? 'nats' : `nats${node}`);

export async function startNatsCluster(
  base = Number(process.env['TOLLGATE_CLUSTER_TEST_NATS_PORT'] ?? 30200),
): Promise<NatsCluster> {
  const stateDir = await mkdtemp(join(tmpdir(), 'tollgate-nats-cluster-'));
  const scriptEnv: NodeJS.ProcessEnv = {
    ...process.env,
    TOLLGATE_STATE_DIR: stateDir,
    TOLLGATE_CLUSTER: '3',
    TOLLGATE_NATS_PORT: String(base),
    TOLLGATE_NATS_MONITOR_PORT: String(base + 1),
    TOLLGATE_NATS_CLUSTER_PORT: String(base + 2),
    TOLLGATE_NATS_TLS: '0',
  };
  const script = (name: string, ...args: string[]) =>
    run('bash', [join(repoRoot, 'deploy/local', name), ...args], { env: scriptEnv }).catch(
      (err: Error & { stdout?: string; stderr?: string }) => {
        throw new Error(`${name} ${args.join(' ')} failed: ${err.stdout ?? ''}${err.stderr ?? ''}`);
      },
    );
  const up = async () => void (await script('up.sh', 'nats'));
  try {
    await up();
  } catch (err) {
    // Nodes that did start are not left behind.
    await script('down.sh', 'nats').catch(() => undefined);
    await rm(stateDir, { recursive: true, force: true });
    throw err;
  }
  const pidOf = async (node: number) =>
    Number(await readFile(join(stateDir, nodeName(node), 'server.pid'), 'utf8'));
  const url = [1, 2, 3].map((i) => `nats://127.0.0.1:${base + 10 * (i - 1)}`).join(',');
  const credentialsDir = join(stateDir, 'nats', 'credentials');
  return {
    nodes: 3,
    url,
    port: base,
    storeDir: join(stateDir, 'nats', 'cluster-data'),
    credentialsDir,
    env: { ...busEnv(url, credentialsDir), TOLLGATE_NATS_REPLICAS: '3' },
    connect: (name, role = 'admin') => connectTestBus({ url, name, role, credentialsDir }),
    monitorUrl: (node) => `http://127.0.0.1:${base + 1 + 10 * (node - 1)}`,
    async signalNode(node, signal) {
      process.kill(await pidOf(node), signal);
    },
    async killNode(node) {
      const pid = await pidOf(node);
      process.kill(pid, 'SIGCONT');
      process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 100; i++) {
        try {
          process.kill(pid, 0);
        } catch {
          return;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`node ${node} (pid ${pid}) did not die`);
    },
    startNodes: up,
    async stop() {
      await script('down.sh', 'nats');
    },
    start: up,
    async dispose() {
      await script('down.sh', 'nats').catch(() => undefined);
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}
