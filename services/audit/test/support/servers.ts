import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { startNatsServer } from '../../../../test/support/nats-server.js';
import type { NatsServer } from '../../../../test/support/nats-server.js';

/** A TCP port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Polls `check` until it returns a value or `timeoutMs` passes. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
  stepMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `condition not met within ${timeoutMs} ms${lastErr ? `: ${(lastErr as Error).message}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/** A real server process the test owns: it can be stopped and started again on the same data. */
export interface OwnedServer {
  url: string;
  start(): Promise<void>;
  /** SIGTERM (or SIGKILL) and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Stops it and removes its data. */
  dispose(): Promise<void>;
}

function ownedServer(
  url: string,
  dir: string,
  launch: () => ChildProcess,
  ready: () => Promise<unknown>,
): OwnedServer {
  let child: ChildProcess | undefined;
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill(signal);
    await exited;
  };
  return {
    url,
    async start() {
      child = launch();
      await eventually(ready, 60_000, 200);
    },
    stop,
    async dispose() {
      await stop('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The private nats-server of test/support (authenticated like every bus), as an OwnedServer. */
export type OwnedNatsServer = OwnedServer & Pick<NatsServer, 'env' | 'connect' | 'credentialsDir'>;

export async function ownNatsServer(): Promise<OwnedNatsServer> {
  const nats = await startNatsServer();
  return {
    url: nats.url,
    env: nats.env,
    credentialsDir: nats.credentialsDir,
    connect: nats.connect,
    start: nats.start,
    stop: (signal: NodeJS.Signals = 'SIGTERM') => nats.stop(signal === 'SIGKILL'),
    dispose: nats.dispose,
  };
}

const FERRETDB = join(homedir(), '.cache/tollgate/ferretdb/v1.24.2/bin/ferretdb');

/** A FerretDB (SQLite backend) on ports of its own, its data in a temporary folder. */
export async function ownFerretDb(): Promise<OwnedServer> {
  const port = await freePort();
  const debugPort = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'audit-ferretdb-'));
  const url = `mongodb://127.0.0.1:${port}/audit`;
  const server = ownedServer(
    url,
    dir,
    () =>
      spawn(
        process.env.TOLLGATE_FERRETDB_BIN ?? FERRETDB,
        [
          '--handler=sqlite',
          `--sqlite-url=file:${dir}/`,
          `--listen-addr=127.0.0.1:${port}`,
          `--debug-addr=127.0.0.1:${debugPort}`,
          `--state-dir=${dir}`,
          '--telemetry=disable',
          '--log-level=error',
        ],
        { stdio: 'ignore' },
      ),
    async () => {
      const client = new MongoClient(url, { serverSelectionTimeoutMS: 1_000 });
      try {
        await client.db().command({ ping: 1 });
        return true;
      } finally {
        await client.close();
      }
    },
  );
  await server.start();
  return server;
}
