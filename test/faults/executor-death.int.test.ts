import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallStatus } from '@tollgate/contracts/call/v1';
import { RetryableError, TollgateClient } from '@tollgate/sdk';
import { ORDER_12345, ordersResource, ordersTool, seedOrders } from '../fixtures/orders.js';
import { startService } from '../support/process.js';
import type { RunningService } from '../support/process.js';
import { startAuthCallout } from '../support/bus.js';
import { eventually } from '../support/infra.js';
import {
  ES_URL,
  ORDERS_INDEX,
  startHarness,
} from '../../services/executor/test/support/harness.js';
import type { Harness } from '../../services/executor/test/support/harness.js';
import { startEsProxy } from '../security/support/es-proxy.js';
import type { EsProxy } from '../security/support/es-proxy.js';

// The executor runs as a real process (ports 31000-31099 of this suite), so it can be SIGKILLed.
const EXECUTOR_GRPC = '127.0.0.1:31011';

let h: Harness;
let proxy: EsProxy;
let issuersFile: string;
let callout: Awaited<ReturnType<typeof startAuthCallout>>;
let client: TollgateClient;

const search = ordersTool('search');
const byId = ORDER_12345;

function startExecutorProcess(env: Record<string, string> = {}): RunningService {
  return startService('executor', {
    ...h.nats.env,
    TOLLGATE_TRUSTED_ISSUERS_FILE: issuersFile,
    TOLLGATE_EXECUTOR_GRPC_ADDR: EXECUTOR_GRPC,
    TOLLGATE_CREDENTIAL_NAMESPACES: 'unrestricted',
    TOLLGATE_CURSOR_KEY: 'executor-death-test',
    TOLLGATE_EXECUTOR_ACCEPT_AFTER_MS: '0',
    ...env,
  });
}

async function killed(service: RunningService): Promise<void> {
  service.child.kill('SIGKILL');
  await service.exited;
}

beforeAll(async () => {
  h = await startHarness({ noExecutor: true });
  await seedOrders(h.es, ORDERS_INDEX);
  proxy = await startEsProxy(ES_URL);
  const orders = {
    descriptor: ordersResource({ endpoint: proxy.url, index: ORDERS_INDEX, timeoutMs: 20_000 }),
    version: 1,
  };
  await h.publishResource(orders.descriptor, orders.version);
  await h.publishBundle([orders], 1);
  issuersFile = join(tmpdir(), `executor-death-issuer-${process.pid}.json`);
  await writeFile(issuersFile, JSON.stringify(h.keys), { mode: 0o600 });
  callout = await startAuthCallout(h.nats.url, h.nats.credentialsDir, issuersFile);
  client = await TollgateClient.connect({
    natsUrl: h.nats.url,
    token: await h.token('support_bot'),
    timeoutMs: 10_000,
  });
});
afterAll(async () => {
  await client?.close();
  await callout?.stop();
  await h?.stop();
  await proxy?.close();
});

describe('faults - the executor dies', () => {
  it('faults - a call in flight when the executor is SIGKILLed answers SERVICE_UNAVAILABLE within its timeoutMs', async () => {
    const executor = startExecutorProcess();
    try {
      await executor.waitForLog((line) => line['msg'] === 'ready', 30_000);
      const warm = await client.call(search, byId, { timeoutMs: 8_000 });
      expect(warm.status).toBe('ok');

      proxy.delay = () => 30_000;
      const budget = 4_000;
      const started = Date.now();
      const inFlight = client.call(search, byId, { timeoutMs: budget }).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 500));
      await killed(executor);
      const err = await inFlight;
      const elapsed = Date.now() - started;
      expect(err).toBeInstanceOf(RetryableError);
      expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE', category: 'retryable' });
      expect((err as Error).message).toContain('executor did not answer');
      // Within the budget the caller gave (plus scheduling slack), not budget + a grace period.
      expect(elapsed).toBeLessThan(budget + 400);
    } finally {
      proxy.delay = () => 0;
      if (executor.child.exitCode === null && executor.child.signalCode === null)
        await killed(executor);
    }
  });

  it('faults - an accepted call whose executor is SIGKILLed is settled by the next poll once past its deadline: outcome unknown, audited, not accepted for 24 h', async () => {
    const settings = {
      TOLLGATE_EXECUTOR_ACCEPT_AFTER_MS: '300',
      TOLLGATE_EXECUTOR_STALE_MARGIN_MS: '1000',
    };
    let executor = startExecutorProcess(settings);
    try {
      await executor.waitForLog((line) => line['msg'] === 'ready', 30_000);
      proxy.delay = () => 30_000;
      const budget = 2_000;
      const started = Date.now();
      const answer = await client.call(search, byId, { timeoutMs: budget });
      expect(answer.status).toBe('accepted');
      await killed(executor);
      proxy.delay = () => 0;
      executor = startExecutorProcess(settings);
      await executor.waitForLog((line) => line['msg'] === 'ready', 30_000);
      // Before its deadline and the margin the call may still be running somewhere: accepted.
      if (Date.now() - started < budget)
        expect((await client.fetchResult(answer.callId)).status).toBe('accepted');
      await new Promise((r) => setTimeout(r, Math.max(0, started + budget + 1_500 - Date.now())));
      const settled = await client.fetchResult(answer.callId);
      expect(settled).toMatchObject({ status: 'error', error: { code: 'INTERNAL' } });
      expect((settled as { error: Error }).error.message).toContain('stopped before it finished');
      // Stored: the next poll answers the same.
      expect(await client.fetchResult(answer.callId)).toMatchObject({ status: 'error' });
      // And the audit trail gets the outcome.
      const completed = await eventually(
        () =>
          h.events.find(
            (e) =>
              e.payload.case === 'callCompleted' &&
              e.payload.value.callId === answer.callId &&
              e.payload.value.status === CallStatus.ERROR,
          ),
        10_000,
      );
      expect(completed?.type).toBe('call.completed');
    } finally {
      proxy.delay = () => 0;
      if (executor.child.exitCode === null && executor.child.signalCode === null)
        await killed(executor);
    }
  });

  it('faults - with no executor running a call fails at once with SERVICE_UNAVAILABLE naming the executor, and the upstream is untouched', async () => {
    const before = proxy.requests.length;
    const started = Date.now();
    const err = await client.call(search, byId, { timeoutMs: 8_000 }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(err).toBeInstanceOf(RetryableError);
    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect((err as Error).message).toMatch(
      /^no Tollgate executor is running for tollgate\.v1\.call\.elasticsearch\.es_orders/,
    );
    expect(proxy.requests.length).toBe(before);
  });

  it('faults - a restarted executor serves the same caller again', async () => {
    const executor = startExecutorProcess();
    try {
      await executor.waitForLog((line) => line['msg'] === 'ready', 30_000);
      const answer = await client.call(search, byId, { timeoutMs: 8_000 });
      expect(answer.status).toBe('ok');
    } finally {
      await killed(executor);
    }
  });
});
