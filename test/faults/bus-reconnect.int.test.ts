/**
 * An agent's connection rides out a NATS restart even while the auth callout is still away:
 * right after a restart the server refuses every token until the callout is back, and nats.js
 * by default gives up for good after the same auth error twice (the chaos campaign found
 * clients closed for the rest of the run). A token that has expired cannot come back, so that
 * connection closes, and its calls say so.
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TollgateClient, isRetryable } from '@tollgate/sdk';
import { ORDER_12345, ordersResource, ordersTool, seedOrders } from '../fixtures/orders.js';
import {
  ES_URL,
  ORDERS_INDEX,
  startHarness,
} from '../../services/executor/test/support/harness.js';
import type { Harness } from '../../services/executor/test/support/harness.js';
import { startAuthCallout } from '../support/bus.js';
import { eventually } from '../support/infra.js';

let h: Harness;
let issuers: string;
const search = ordersTool('search');
const byId = ORDER_12345;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  h = await startHarness({ noExecutor: true });
  await seedOrders(h.es, ORDERS_INDEX);
  const descriptor = ordersResource({ endpoint: ES_URL, index: ORDERS_INDEX });
  await h.publishResource(descriptor, 1);
  await h.publishBundle([{ descriptor, version: 1 }], 1);
  h.running = await h.startExecutor();
  issuers = join(tmpdir(), `bus-reconnect-issuer-${process.pid}.json`);
  await writeFile(issuers, JSON.stringify(h.keys), { mode: 0o600 });
}, 180_000);
afterAll(async () => {
  await h?.stop();
});

describe('faults - an agent connection across a NATS restart', () => {
  it('faults - refused while the auth callout is away, the agent connection comes back by itself once it returns', async () => {
    let callout = await startAuthCallout(h.nats.url, h.nats.credentialsDir, issuers);
    const client = await TollgateClient.connect({
      natsUrl: h.nats.url,
      token: await h.token('support_bot'),
      timeoutMs: 3_000,
    });
    try {
      expect((await client.call(search, byId)).status).toBe('ok');
      await callout.stop();
      await h.nats.stop(true);
      await h.nats.start();
      // Every reconnect now meets "authorization violation" (nobody answers the callout):
      // many times more than the two after which nats.js would give up by default.
      await sleep(4_000);
      const meanwhile = await client.call(search, byId).catch((e: unknown) => e);
      expect(isRetryable(meanwhile)).toBe(true);
      callout = await startAuthCallout(h.nats.url, h.nats.credentialsDir, issuers);
      await eventually(async () => {
        expect((await client.call(search, byId)).status).toBe('ok');
        return true;
      }, 30_000);
    } finally {
      await client.close();
      await callout.stop();
    }
  }, 90_000);

  it('faults - a connection whose token expired is closed at the next refusal, and its calls say to connect again', async () => {
    const callout = await startAuthCallout(h.nats.url, h.nats.credentialsDir, issuers);
    const client = await TollgateClient.connect({
      natsUrl: h.nats.url,
      token: await h.token('support_bot', { ttlSeconds: 3 }),
      timeoutMs: 3_000,
    });
    try {
      expect((await client.call(search, byId)).status).toBe('ok');
      await sleep(3_500);
      await h.nats.stop(true);
      await h.nats.start();
      await eventually(async () => {
        const err = await client.call(search, byId).catch((e: unknown) => e);
        expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
        expect((err as Error).message).toMatch(/closed, connect again/);
        return true;
      }, 30_000);
    } finally {
      await client.close().catch(() => undefined);
      await callout.stop();
    }
  }, 90_000);
});
