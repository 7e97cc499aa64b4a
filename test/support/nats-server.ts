import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A private nats-server (the binary deploy/local installs; JetStream on, file store) for one
 * test file: its subjects, queue groups and buckets are seen by nobody else — not the services
 * other suites start on the shared server — so tests use the real names, and it can be
 * restarted on the same port and store.
 */
export interface NatsServer {
  url: string;
  port: number;
  storeDir: string;
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
  const port = await freePort();
  const storeDir = await mkdtemp(join(tmpdir(), 'tollgate-nats-'));
  const binary = process.env['TOLLGATE_NATS_SERVER_BIN'] ?? 'nats-server';
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    const proc = spawn(binary, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    stop,
    start,
    async dispose() {
      await stop(true);
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}
