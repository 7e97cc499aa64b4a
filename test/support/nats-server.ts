import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { NatsConnection } from '@nats-io/transport-node';
import { busEnv, connectTestBus, natsBinaries } from './bus.js';
import type { BusRole } from './bus.js';
import { repoRoot } from './process.js';

/**
 * A private nats-server (the version deploy/local builds; JetStream on, file store) for one
 * test file, with the same authentication and permissions as every other Tollgate bus
 * (deploy/nats/tollgate.conf, fresh NKeys): its subjects, queue groups and buckets are seen by
 * nobody else — not the services other suites start on the shared server — so tests use the
 * real names, and it can be restarted on the same port and store.
 */
export interface NatsServer {
  url: string;
  port: number;
  storeDir: string;
  /** This server's seeds: `<role>.nk`, and `callout-issuer.nk` for services/auth-callout. */
  credentialsDir: string;
  /** Environment for a service started as a child process against this server. */
  env: Record<string, string>;
  /** Connects as `role` (default admin). */
  connect(name: string, role?: BusRole): Promise<NatsConnection>;
  /** Kills the server (SIGKILL when `hard`). */
  stop(hard?: boolean): Promise<void>;
  /** Starts it again on the same port and store. */
  start(): Promise<void>;
  /** Stops for good and removes the store. */
  dispose(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startNatsServer(): Promise<NatsServer> {
  const { server: binary, nk } = natsBinaries();
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-nats-'));
  const storeDir = join(dir, 'data');
  await promisify(execFile)('sh', [join(repoRoot, 'deploy/nats/keys.sh'), dir, nk]);
  await copyFile(join(repoRoot, 'deploy/nats/tollgate.conf'), join(dir, 'tollgate.conf'));
  await writeFile(
    join(dir, 'nats.conf'),
    [
      `listen: 127.0.0.1:${port}`,
      `jetstream { store_dir: "${storeDir}" }`,
      'include ./tollgate.conf',
      '',
    ].join('\n'),
  );
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    // TOLLGATE_TEST_NATS_LOG=<dir>: each server's debug log goes there (diagnosing a test).
    const log = process.env['TOLLGATE_TEST_NATS_LOG'];
    const proc = spawn(binary, ['-c', join(dir, 'nats.conf'), ...(log ? ['-DV'] : [])], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (log) proc.stderr?.pipe(createWriteStream(join(log, `nats-${port}.log`), { flags: 'a' }));
    child = proc;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`nats-server not ready: ${output}`)), 20_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Server is ready')) {
          clearTimeout(timer);
          resolve();
        }
      };
      proc.stdout?.on('data', onData);
      proc.stderr?.on('data', onData);
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`nats-server exited (${code}): ${output}`));
      });
    });
  };
  const stop = async (hard = false): Promise<void> => {
    const proc = child;
    child = undefined;
    if (proc === undefined || proc.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill(hard ? 'SIGKILL' : 'SIGTERM');
    await exited;
  };
  await start();
  const url = `nats://127.0.0.1:${port}`;
  const credentialsDir = join(dir, 'credentials');
  return {
    url,
    port,
    storeDir,
    credentialsDir,
    env: busEnv(url, credentialsDir),
    connect: (name, role = 'admin') => connectTestBus({ url, name, role, credentialsDir }),
    stop,
    start,
    async dispose() {
      await stop(true);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
