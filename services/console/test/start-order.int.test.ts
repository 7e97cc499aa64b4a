/**
 * The console started before any service that creates the events stream (a fresh bus: compose
 * or a cluster bringing pods up in any order) serves anyway, and its live pages start following
 * the stream once it appears — instead of the console exiting with "stream not found". Runs on
 * a private nats-server (the shared one already has the stream) with the real permissions: the
 * console itself may not create the stream.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { ResourceChange } from '@tollgate/contracts/events/v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EventPublisher,
  EventTypes,
  ensureEventStream,
  envelope,
  publishEnvelope,
} from '@tollgate/kit';
import { startNatsServer } from '../../../test/support/nats-server.js';
import type { NatsServer } from '../../../test/support/nats-server.js';
import { startConsole } from './support/console.js';
import type { RunningConsole } from './support/console.js';

const PORT = Number(process.env.TOLLGATE_CONSOLE_START_TEST_PORT ?? 22196);
const URL = `http://localhost:${PORT}`;
const TENANT = 'team-a';

let bus: NatsServer;
let admin: NatsConnection;
let home: string;
let app: RunningConsole;

beforeAll(async () => {
  bus = await startNatsServer();
  admin = await bus.connect('console-start-test');
  home = await mkdtemp(join(tmpdir(), 'tollgate-console-start-'));
  app = await startConsole(
    {
      ...process.env,
      ...bus.env,
      TOLLGATE_CONSOLE_ADDR: `127.0.0.1:${PORT}`,
      TOLLGATE_CONSOLE_GRPC_ADDR: `127.0.0.1:${PORT + 1}`,
      TOLLGATE_CONSOLE_PUBLIC_URL: URL,
      TOLLGATE_CONSOLE_OIDC_ISSUER: '',
      TOLLGATE_CONSOLE_TENANT: TENANT,
      TOLLGATE_CONSOLE_ISSUER_KEY_FILE: join(home, 'issuer.json'),
      TOLLGATE_LOG_LEVEL: 'info',
    },
    URL,
  );
}, 90_000);

afterAll(async () => {
  await app?.stop();
  await admin?.close();
  await bus?.dispose();
  if (home) await rm(home, { recursive: true, force: true });
});

/** Signs in through the dev sign-in and returns the session cookie. */
async function signedIn(): Promise<string> {
  const res = await fetch(`${URL}/auth/dev`, {
    method: 'POST',
    headers: { origin: URL, 'content-type': 'application/json' },
    body: JSON.stringify({ user: 'early', roles: ['viewer'], tenant: TENANT }),
  });
  expect(res.status).toBe(200);
  const cookie = res.headers.get('set-cookie') ?? '';
  return cookie.split(';')[0]!;
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline)
      throw new Error(`${what} within ${ms} ms:\n${app.logs().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('console - started before the events stream exists', () => {
  it('start order - it serves, says what it waits for, and follows the stream once it appears', async () => {
    const session = await (await fetch(`${URL}/api/session`)).json();
    expect(session).toBeDefined();
    expect(app.logs()).toContain('no events stream yet');

    const cookie = await signedIn();
    const stream = await fetch(`${URL}/api/events`, { headers: { cookie } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    let received = '';
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        received += new TextDecoder().decode(value);
      }
    })();

    // Another service creates the stream; the console finds it on its next look.
    await ensureEventStream(admin);
    await until(
      () => app.logs().includes('following the events stream'),
      15_000,
      'the console did not follow the stream',
    );
    await publishEnvelope(
      new EventPublisher(admin),
      envelope(EventTypes.resourceChanged, TENANT, {
        case: 'resourceChanged',
        value: {
          tenant: TENANT,
          environment: 'test',
          name: 'catalogue',
          version: 2,
          previousVersion: 1,
          change: ResourceChange.APPLIED,
          contentHash: 'h',
          changedBy: 'test',
        },
      }),
    );
    await until(
      () => received.includes(`event: ${EventTypes.resourceChanged}`),
      10_000,
      'the live page did not get the event',
    );
    expect(received).toContain('"name":"catalogue"');
    await reader.cancel();
    await reading.catch(() => undefined);
  });
});
