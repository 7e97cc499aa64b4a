import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@elastic/elasticsearch';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { descriptorHash, generateIssuerKeys, issuePrincipalToken } from '@tollgate/core';
import type { IssuerKeys } from '@tollgate/core';
import { ERROR_HEADER, buckets, request, resourceKey, subjects } from '@tollgate/kit';
import { compileBundle } from '@tollgate/policy';
import {
  ordersAgents,
  ordersPolicy,
  ordersResource,
  seedOrders,
} from '../../../test/fixtures/orders.js';
import { eventually } from '../../../test/support/infra.js';
import { startService } from '../../../test/support/process.js';
import type { RunningService } from '../../../test/support/process.js';
import { ES_URL, ORDERS_INDEX, callRequestBytes, readReply } from './support/harness.js';
import type { Outcome } from './support/harness.js';
import { startNatsServer } from '../../../test/support/nats-server.js';
import type { NatsServer } from '../../../test/support/nats-server.js';
import { operationsOf } from '@tollgate/kinds';

let nats: NatsServer;
let nc: NatsConnection;
let keys: IssuerKeys;
let dir: string;
const executors: RunningService[] = [];
const LIMIT = 5;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await nats.connect('rate-limit-test');
  const es = new Client({ node: ES_URL });
  await seedOrders(es, ORDERS_INDEX);
  await es.close();
  keys = await generateIssuerKeys('tollgate-test');
  dir = await mkdtemp(join(tmpdir(), 'tollgate-rl-'));
  await writeFile(join(dir, 'issuer.json'), JSON.stringify(keys));
  const descriptor = ordersResource({ endpoint: ES_URL, index: ORDERS_INDEX });
  const kvm = new Kvm(nc);
  const resources = await kvm.create(buckets.resources);
  await resources.put(
    resourceKey('team-a', 'prod', 'es_orders'),
    JSON.stringify({
      tenant: 'team-a',
      environment: 'prod',
      name: 'es_orders',
      version: 1,
      hash: descriptorHash(descriptor),
      descriptor,
      publishedAt: new Date().toISOString(),
    }),
  );
  const bundle = compileBundle({
    tenant: 'team-a',
    version: 1,
    agents: ordersAgents(),
    policies: [ordersPolicy({ searchRateLimit: { requests: LIMIT, perSeconds: 3_600 } })],
    resources: [{ version: 1, descriptor, operations: operationsOf(descriptor) }],
  });
  if (!bundle.ok) throw new Error(JSON.stringify(bundle.problems));
  await (await kvm.create(buckets.policyBundles)).put('team-a', JSON.stringify(bundle.bundle));
  for (let i = 0; i < 2; i++) {
    executors.push(
      startService('executor', {
        ...nats.env,
        TOLLGATE_TRUSTED_ISSUERS_FILE: join(dir, 'issuer.json'),
        TOLLGATE_EXECUTOR_GRPC_ADDR: '127.0.0.1:0',
        TOLLGATE_CURSOR_KEY: 'shared-cursor-key',
        TOLLGATE_LOG_LEVEL: 'debug',
      }),
    );
  }
  await Promise.all(executors.map((e) => e.waitForLog((l) => l.msg === 'ready', 60_000)));
});
afterAll(async () => {
  for (const e of executors) {
    e.child.kill('SIGTERM');
    await e.exited;
  }
  await nc?.close();
  await nats?.dispose();
  await rm(dir, { recursive: true, force: true });
});

async function call(
  tool: string,
  args: Record<string, unknown>,
  agent = 'support_bot',
): Promise<Outcome> {
  const callId = crypto.randomUUID();
  const token = await issuePrincipalToken(keys, { tenant: 'team-a', agent, environment: 'prod' });
  const reply = await request(
    nc,
    subjects.call('elasticsearch', 'es_orders'),
    callRequestBytes({ callId, tool, arguments: args as never }),
    {
      timeoutMs: 60_000,
      headers: { authorization: `Bearer ${token}` },
    },
  );
  return readReply(reply.data, reply.headers?.get(ERROR_HEADER) ?? '', callId);
}

describe('rate limits - one limit shared by every executor instance', () => {
  it('rate limits - two executor processes admit exactly the limit between them', async () => {
    // Warm both instances' caches with calls the limit does not cover.
    await Promise.all(Array.from({ length: 6 }, () => call('es_orders_get', { id: '12345' })));
    const answers = await Promise.all(
      Array.from({ length: 24 }, () =>
        call('es_orders_search', { filters: [{ field: 'id', op: 'eq', value: '12345' }] }),
      ),
    );
    const outcomes = answers.map((a) => a.error?.code ?? a.status);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(LIMIT);
    expect(outcomes.filter((o) => o === 'RATE_LIMITED')).toHaveLength(24 - LIMIT);
    const limited = answers.find((a) => a.error?.code === 'RATE_LIMITED');
    expect(limited?.error).toMatchObject({ category: 'retryable' });
    expect(Number(limited?.error?.details[0]?.found)).toBeGreaterThan(0);
    // Both processes answered searches: the counter, not a process, held the line.
    const servedBy = () =>
      executors.map(
        (e) =>
          e.lines.filter((l) => l.msg === 'call answered' && l.tool === 'es_orders_search').length,
      );
    const served = await eventually(() => {
      const counts = servedBy();
      return counts[0]! + counts[1]! === 24 ? counts : undefined;
    });
    expect(served.every((n) => n > 0)).toBe(true);
    // Other principals are not limited by support_bot's counter.
    expect((await call('es_orders_search', { limit: 1 }, 'ops_bot')).status).toBe('ok');
  });

  it('rate limits - with leased slots two processes never admit more than the limit, writing the counter far less often', async () => {
    const kv = await new Kvm(nc).open(buckets.rateLimits);
    const keys: string[] = [];
    for await (const key of await kv.keys()) keys.push(key);
    const counterKey = keys.find((k) => k.includes('support_bot'))!;
    // A larger limit on the same counter: leases of 6 slots (96 / 16).
    const bigger = 96;
    const descriptor = ordersResource({ endpoint: ES_URL, index: ORDERS_INDEX });
    const bundle = compileBundle({
      tenant: 'team-a',
      version: 2,
      agents: ordersAgents(),
      policies: [ordersPolicy({ searchRateLimit: { requests: bigger, perSeconds: 3_600 } })],
      resources: [{ version: 1, descriptor, operations: operationsOf(descriptor) }],
    });
    if (!bundle.ok) throw new Error(JSON.stringify(bundle.problems));
    await (
      await new Kvm(nc).open(buckets.policyBundles)
    ).put('team-a', JSON.stringify(bundle.bundle));
    const search = () =>
      call('es_orders_search', { filters: [{ field: 'id', op: 'eq', value: '12345' }] });
    // Both processes follow the new bundle (each admits a call once it has it).
    let admittedBefore = 0;
    await eventually(async () => {
      const outcomes = await Promise.all([search(), search()]);
      admittedBefore += outcomes.filter((o) => o.status === 'ok').length;
      return outcomes.every((o) => o.status === 'ok') ? true : undefined;
    });
    const before = (await kv.get(counterKey))!;
    const answers = await Promise.all(Array.from({ length: 150 }, () => search()));
    const ok = answers.filter((a) => a.status === 'ok').length;
    const after = (await kv.get(counterKey))!;
    const counted = (JSON.parse(after.string()) as { count: number }).count;
    // Never more than the limit, counting every call admitted in this window.
    expect(LIMIT + admittedBefore + ok).toBeLessThanOrEqual(bigger);
    expect(counted).toBeLessThanOrEqual(bigger);
    // Unused leased slots are the only shortfall: at most 5 per process.
    expect(LIMIT + admittedBefore + ok).toBeGreaterThanOrEqual(bigger - 2 * 5);
    expect(answers.filter((a) => a.error?.code === 'RATE_LIMITED')).toHaveLength(150 - ok);
    // One counter write reserved several calls (the bucket holds no other key written here).
    expect(after.revision - before.revision).toBeLessThan(ok / 2);
  });
});
