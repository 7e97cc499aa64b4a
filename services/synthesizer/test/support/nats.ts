/**
 * A nats-server with JetStream of the test file's own: its subjects (the synthesizer's request
 * subjects, events) and KV buckets are seen by nobody else, so tests use the real names.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { eventually } from '../../../../test/support/infra.js';

export interface OwnedNats {
  url: string;
  dispose(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function ownNatsServer(): Promise<OwnedNats> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'synthesizer-nats-'));
  const url = `nats://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    'nats-server',
    ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir],
    { stdio: 'ignore' },
  );
  const dispose = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await eventually(
      async () => {
        const nc = await connect({ servers: url, timeout: 1_000, reconnect: false });
        await nc.close();
        return true;
      },
      60_000,
      200,
    );
  } catch (err) {
    await dispose();
    throw err;
  }
  return { url, dispose };
}
