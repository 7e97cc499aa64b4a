import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@tollgate/contracts/common/v1';
import { parseEgressRules } from '@tollgate/core';
import { EventTypes } from '@tollgate/kit';
import { ordersResource, seedOrders } from '../../../test/fixtures/orders.js';
import { startEsProxy } from '../../../test/security/support/es-proxy.js';
import type { EsProxy } from '../../../test/security/support/es-proxy.js';
import { ES_URL, ORDERS_INDEX, startHarness } from './support/harness.js';
import type { Harness, Outcome } from './support/harness.js';

/**
 * Egress rules at the executor, the second check: resource entries that reach the KV bucket
 * without the registry's (rules changed since apply, a name now resolving elsewhere, an entry
 * written by something else) point at destinations team-a/prod may not reach. The egress
 * stage refuses them before the credential is resolved: nothing is read, nothing is sent.
 */
const PORT = Number(process.env.TG_EGRESS_TEST_PORT ?? 29120);
const SECRET = `CANARY-${randomBytes(8).toString('hex')}`;
const VAR = 'TOLLGATE_TEAM_A__PROD__ES';

const reads: string[] = [];
let h: Harness;
/** The listed destination, and a server on another loopback port that must see nothing. */
let listed: EsProxy;
let unlisted: EsProxy;

beforeAll(async () => {
  listed = await startEsProxy(ES_URL, PORT);
  unlisted = await startEsProxy(ES_URL, PORT + 1);
  const env = new Proxy<Record<string, string>>(
    { [VAR]: SECRET },
    {
      get(target, key) {
        if (typeof key === 'string') reads.push(key);
        return Reflect.get(target, key) as unknown;
      },
    },
  );
  h = await startHarness({
    noExecutor: true,
    credentials: { env, cacheTtlMs: 0 },
    egressRules: parseEgressRules(`team-a/prod=public,127.0.0.1:${PORT};team-b/prod=public`),
  });
  await seedOrders(h.es, ORDERS_INDEX);
  const other = new URL(unlisted.url).port;
  const endpoints: Record<string, string> = {
    orders_listed: listed.url,
    orders_other_port: unlisted.url,
    orders_metadata: 'http://169.254.169.254:80',
    orders_mapped: `http://[::ffff:7f00:1]:${other}`,
    orders_localhost: `http://localhost:${other}`,
    orders_private: 'http://10.0.0.5:9200',
  };
  const resources = Object.entries(endpoints).map(([name, endpoint]) => ({
    descriptor: ordersResource({
      name,
      endpoint,
      index: ORDERS_INDEX,
      credentialRef: `env://${VAR}`,
    }),
    version: 1,
  }));
  for (const r of resources) await h.publishResource(r.descriptor, r.version);
  await h.publishBundle(resources, 1);
  h.running = await h.startExecutor();
});
afterAll(async () => {
  await h?.stop();
  await listed?.close();
  await unlisted?.close();
});

const byId = { filters: [{ field: 'id', op: 'eq', value: '12345' }] };
const EXPECTED = `a destination among public or 127.0.0.1:${PORT}`;

async function expectRefused(answer: Outcome, resource: string, problem: string): Promise<void> {
  const message = `${problem}, so nothing was sent; an operator must change the resource or the egress rules`;
  expect(answer.status).toBe('error');
  expect(answer.error).toEqual({
    code: 'POLICY_DENIED',
    category: 'denied',
    message: `The destination of ${resource} (spec.connection.endpoint) is refused: ${message}.`,
    details: [{ path: 'spec.connection.endpoint', message, expected: EXPECTED, found: '' }],
  });
  const event = await h.eventOf(answer.callId, EventTypes.callCompleted, 'ERROR');
  if (event.payload.case !== 'callCompleted') throw new Error('not call.completed');
  expect(event.payload.value.error?.code).toBe(ErrorCode.POLICY_DENIED);
}

describe('egress - executor', () => {
  it('egress - the listed destination is reached with its credential', async () => {
    const answer = await h.call('orders_listed_search', byId);
    expect(answer.status).toBe('ok');
    expect(listed.requests.map((r) => r.authorization)).toContain(`ApiKey ${SECRET}`);
  });

  it.each([
    [
      'another loopback port',
      'orders_other_port',
      'it is a loopback address, which the egress rules of team-a/prod do not list',
    ],
    [
      'cloud metadata',
      'orders_metadata',
      'it is a link-local address, which the egress rules of team-a/prod do not list',
    ],
    [
      'loopback as IPv4-mapped IPv6',
      'orders_mapped',
      'it is a loopback address, which the egress rules of team-a/prod do not list',
    ],
    [
      'a name resolving to loopback',
      'orders_localhost',
      'its host does not resolve to addresses the egress rules of team-a/prod allow',
    ],
    [
      'a private address',
      'orders_private',
      'it is a private address, which the egress rules of team-a/prod do not list',
    ],
  ])(
    'egress - %s is refused before the credential is read; nothing is sent',
    async (_what, name, problem) => {
      reads.length = 0;
      await expectRefused(await h.call(`${name}_search`, byId), name, problem);
      expect(reads).not.toContain(VAR);
      expect(unlisted.requests).toEqual([]);
    },
  );
});
