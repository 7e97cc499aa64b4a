/**
 * The bus is not trusted (docs/bus.md): every attack that worked against an open NATS, repeated
 * against the real authenticated server (deploy/nats/tollgate.conf), the real auth callout and
 * a real executor — and each must fail. An attacker here is an agent with a valid token of its
 * own, or a client with none.
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { SignJWT, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS_TOKEN_AUDIENCE, agentInboxPrefix, issuePrincipalToken } from '@tollgate/core';
import { EVENTS_STREAM, buckets, resourceKey } from '@tollgate/kit';
import { CompletionSubscriber, TollgateClient } from '@tollgate/sdk';
import type { CompletionEvent } from '@tollgate/sdk';
import { ORDER_12345, ordersResource, ordersTool, seedOrders } from '../fixtures/orders.js';
import {
  ES_URL,
  ORDERS_INDEX,
  startHarness,
} from '../../services/executor/test/support/harness.js';
import type { Harness } from '../../services/executor/test/support/harness.js';
import { startAuthCallout } from '../support/bus.js';
import { eventually } from '../support/infra.js';
import type { BusRole } from '../support/bus.js';

let h: Harness;
let callout: Awaited<ReturnType<typeof startAuthCallout>>;
const victim = { tenant: 'team-a', agent: 'support_bot', environment: 'prod' };
const attacker = { tenant: 'team-a', agent: 'order_ops', environment: 'prod' };
const byId = ORDER_12345;
const callSubject = 'tollgate.v1.call.elasticsearch.es_orders';
const tool = ordersTool('search');

beforeAll(async () => {
  h = await startHarness({ noExecutor: true });
  await seedOrders(h.es, ORDERS_INDEX);
  const descriptor = ordersResource({ endpoint: ES_URL, index: ORDERS_INDEX });
  await h.publishResource(descriptor, 1);
  await h.publishBundle([{ descriptor, version: 1 }], 1);
  h.running = await h.startExecutor();
  const issuers = join(tmpdir(), `bus-security-issuer-${process.pid}.json`);
  await writeFile(issuers, JSON.stringify(h.keys), { mode: 0o600 });
  callout = await startAuthCallout(h.nats.url, h.nats.credentialsDir, issuers);
}, 180_000);
afterAll(async () => {
  await callout?.stop();
  await h?.stop();
});

const tokenOf = (p: typeof victim, ttlSeconds = 600) =>
  issuePrincipalToken(h.keys, p, { ttlSeconds });

/** An agent's raw connection: its token at CONNECT, any inbox prefix it likes. */
async function agentConnection(
  principal: typeof victim,
  inboxPrefix = agentInboxPrefix(principal),
): Promise<Watched> {
  return watched(
    await connect({ servers: h.nats.url, token: await tokenOf(principal), inboxPrefix }),
  );
}

/** A connection whose server errors (permission violations) are collected. */
interface Watched {
  nc: NatsConnection;
  errors: string[];
}

function watched(nc: NatsConnection): Watched {
  const errors: string[] = [];
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'error') errors.push(String((s as { error?: Error }).error?.message));
    }
  })();
  return { nc, errors };
}

/** Waits for the server to say "Permissions Violation" about `subject` on this connection. */
async function refused(conn: Watched, subject: string): Promise<string> {
  await conn.nc.flush().catch(() => undefined);
  const deadline = Date.now() + 5_000;
  for (;;) {
    const hit = conn.errors.find((e) => e.includes('Permissions Violation') && e.includes(subject));
    if (hit) return hit;
    if (Date.now() > deadline)
      throw new Error(`no permission violation for ${subject}; saw ${JSON.stringify(conn.errors)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Subscribes and counts what arrives (nothing should). */
function listen(conn: Watched, subject: string): { got: string[] } {
  const got: string[] = [];
  const sub = conn.nc.subscribe(subject);
  void (async () => {
    for await (const m of sub) got.push(m.subject);
  })().catch(() => undefined);
  return { got };
}

async function victimCalls(times = 2): Promise<void> {
  const client = await TollgateClient.connect({
    natsUrl: h.nats.url,
    token: await tokenOf(victim),
  });
  try {
    for (let i = 0; i < times; i++) {
      const outcome = await client.call(tool, byId);
      expect(outcome.status).toBe('ok');
    }
  } finally {
    await client.close();
  }
}

describe('bus - connecting', () => {
  it('bus attack - no token: the connection is refused', async () => {
    await expect(connect({ servers: h.nats.url, timeout: 5_000 })).rejects.toThrow(
      /Authorization Violation/,
    );
  });

  it('bus attack - a token signed by a key nobody trusts is refused', async () => {
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const forged = await new SignJWT({ tenant: 'team-a', env: 'prod' })
      .setProtectedHeader({ alg: 'EdDSA', kid: 'attacker-key' })
      .setIssuer(h.keys.issuer)
      .setAudience('tollgate')
      .setSubject('support_bot')
      .setExpirationTime('10m')
      .sign(privateKey);
    await expect(connect({ servers: h.nats.url, token: forged, timeout: 10_000 })).rejects.toThrow(
      /Authorization Violation/,
    );
  });

  it('bus attack - a token claiming the trusted key id with the wrong signature is refused', async () => {
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const forged = await new SignJWT({ tenant: 'team-a', env: 'prod' })
      .setProtectedHeader({ alg: 'EdDSA', kid: h.keys.kid })
      .setIssuer(h.keys.issuer)
      .setAudience('tollgate')
      .setSubject('support_bot')
      .setExpirationTime('10m')
      .sign(privateKey);
    await expect(connect({ servers: h.nats.url, token: forged, timeout: 5_000 })).rejects.toThrow(
      /Authorization Violation/,
    );
    await callout.service.waitForLog(
      (l) => l['msg'] === 'connection refused' && String(l['reason']).includes('signature'),
      5_000,
    );
    // The log says why, never the token.
    expect(callout.service.lines.some((l) => JSON.stringify(l).includes(forged))).toBe(false);
  });

  it('bus attack - an expired token is refused', async () => {
    const expired = await issuePrincipalToken(h.keys, victim, { ttlSeconds: -60 });
    await expect(connect({ servers: h.nats.url, token: expired, timeout: 5_000 })).rejects.toThrow(
      /Authorization Violation/,
    );
    // Through the SDK it is a typed UNAUTHENTICATED error.
    await expect(
      TollgateClient.connect({ natsUrl: h.nats.url, token: expired }),
    ).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('bus attack - a connection does not outlive its token', async () => {
    const conn = await connect({
      servers: h.nats.url,
      token: await tokenOf(victim, 3),
      inboxPrefix: agentInboxPrefix(victim),
      maxReconnectAttempts: 0,
    });
    const closed = await Promise.race([
      conn.closed().then(() => 'closed'),
      new Promise((r) => setTimeout(() => r('still open'), 15_000)),
    ]);
    expect(closed).toBe('closed');
  });
});

describe('bus - calls and replies', () => {
  it('bus attack - stealing tokens: an agent cannot subscribe to call subjects', async () => {
    const thief = await agentConnection(attacker);
    try {
      const calls = listen(thief, 'tollgate.v1.call.>');
      const all = listen(thief, '>');
      await refused(thief, 'tollgate.v1.call.>');
      await refused(thief, 'Subscription to ">"');
      await victimCalls();
      await thief.nc.flush();
      expect(calls.got).toEqual([]);
      expect(all.got).toEqual([]);
    } finally {
      await thief.nc.close();
    }
  });

  it('bus attack - answering a call: an agent cannot join the executors or reply into an inbox', async () => {
    const forger = await agentConnection(attacker);
    try {
      forger.nc.subscribe(callSubject, { queue: 'executor-elasticsearch' });
      await refused(forger, callSubject);
      // Replying needs a reply subject; an agent may not publish into anyone's inbox.
      const victimInbox = `${agentInboxPrefix(victim)}.fake.1`;
      forger.nc.publish(victimInbox, new TextEncoder().encode('forged reply'));
      await refused(forger, victimInbox);
      forger.nc.publish('_INBOX.anything', new TextEncoder().encode('forged reply'));
      await refused(forger, '_INBOX.anything');
      // The victim still gets the executor's real answer.
      await victimCalls(1);
    } finally {
      await forger.nc.close();
    }
  });

  it('bus attack - another agent’s inbox: not readable, whatever prefix the attacker claims', async () => {
    const victimPrefix = agentInboxPrefix(victim);
    const spy = await agentConnection(attacker);
    try {
      const replies = listen(spy, `${victimPrefix}.>`);
      await refused(spy, `${victimPrefix}.>`);
      await victimCalls();
      expect(replies.got).toEqual([]);
    } finally {
      await spy.nc.close();
    }
    // Posing as the victim by choosing its prefix gets no replies at all: the request fails.
    const impostor = await agentConnection(attacker, victimPrefix);
    try {
      await expect(
        impostor.nc.request(callSubject, new Uint8Array(), { timeout: 3_000 }),
      ).rejects.toThrow();
      await refused(impostor, victimPrefix);
    } finally {
      await impostor.nc.close();
    }
  });

  it('bus attack - an agent’s completion notices reach only that agent', async () => {
    const victimClient = await TollgateClient.connect({
      natsUrl: h.nats.url,
      token: await tokenOf(victim),
    });
    const attackerClient = await TollgateClient.connect({
      natsUrl: h.nats.url,
      token: await tokenOf(attacker),
    });
    const mine: CompletionEvent[] = [];
    const theirs: CompletionEvent[] = [];
    const a = victimClient.onCompletion((e) => void mine.push(e));
    const b = attackerClient.onCompletion((e) => void theirs.push(e));
    try {
      const outcome = await victimClient.call(tool, byId);
      const deadline = Date.now() + 5_000;
      while (!mine.some((e) => e.callId === outcome.callId) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 25));
      expect(mine.map((e) => e.callId)).toContain(outcome.callId);
      expect(theirs).toEqual([]);
    } finally {
      a.close();
      b.close();
      await victimClient.close();
      await attackerClient.close();
    }
  });
});

describe('bus - streams and buckets', () => {
  it('bus attack - an agent cannot read or write a KV bucket', async () => {
    const intruder = await agentConnection(attacker);
    const key = resourceKey('team-a', 'prod', 'es_orders');
    const before = await h.resourcesKv.get(key);
    try {
      await expect(
        intruder.nc.request(`$JS.API.DIRECT.GET.KV_${buckets.resources}`, '{}', { timeout: 3_000 }),
      ).rejects.toThrow();
      await refused(intruder, `$JS.API.DIRECT.GET.KV_${buckets.resources}`);
      const watch = listen(intruder, `$KV.${buckets.policyBundles}.>`);
      await refused(intruder, `$KV.${buckets.policyBundles}.>`);
      intruder.nc.publish(`$KV.${buckets.resources}.${key}`, new TextEncoder().encode('{}'));
      await refused(intruder, `$KV.${buckets.resources}.${key}`);
      intruder.nc.publish(`$KV.${buckets.memory}.sq.team-a.x._.y`, new TextEncoder().encode('{}'));
      await refused(intruder, `$KV.${buckets.memory}.sq.team-a.x._.y`);
      // Nor record or erase a withdrawal (which would hide a tool, or offer a rug-pulled one).
      intruder.nc.publish(
        `$KV.${buckets.withdrawals}.${key}.search`,
        new TextEncoder().encode('{}'),
      );
      await refused(intruder, `$KV.${buckets.withdrawals}.${key}.search`);
      expect(watch.got).toEqual([]);
    } finally {
      await intruder.nc.close();
    }
    expect((await h.resourcesKv.get(key))?.revision).toBe(before?.revision);
  });

  it('bus attack - an agent cannot read or write the event stream', async () => {
    const intruder = await agentConnection(attacker);
    const jsm = await import('@nats-io/jetstream').then((m) => m.jetstreamManager(h.nc));
    const before = (await jsm.streams.info(EVENTS_STREAM)).state.messages;
    try {
      const events = listen(intruder, 'tollgate.v1.evt.>');
      await refused(intruder, 'tollgate.v1.evt.>');
      intruder.nc.publish('tollgate.v1.evt.call.completed.team-a', new Uint8Array([1, 2, 3]));
      await refused(intruder, 'tollgate.v1.evt.call.completed.team-a');
      const consumer = `$JS.API.CONSUMER.CREATE.${EVENTS_STREAM}`;
      await expect(intruder.nc.request(consumer, '{}', { timeout: 3_000 })).rejects.toThrow();
      await refused(intruder, consumer);
      await victimCalls(1);
      expect(events.got).toEqual([]);
    } finally {
      await intruder.nc.close();
    }
    // Only the victim's call added events (the write-ahead call.started, and call.completed a
    // moment after the answer); the forged one is not there.
    const after = await eventually(async () => {
      const stored = (await jsm.streams.info(EVENTS_STREAM)).state.messages;
      return stored >= before + 2 ? stored : undefined;
    });
    expect(after).toBe(before + 2);
  });
});

describe('bus - event subscribers', () => {
  const subscriberToken = (tenant: string) =>
    issuePrincipalToken(
      h.keys,
      { tenant, agent: 'ticket_router', environment: 'prod' },
      { audience: EVENTS_TOKEN_AUDIENCE },
    );

  it('bus - a tenant’s subscriber gets its completions and never another tenant’s', async () => {
    const a = await CompletionSubscriber.connect({
      natsUrl: h.nats.url,
      token: await subscriberToken('team-a'),
    });
    const b = await CompletionSubscriber.connect({
      natsUrl: h.nats.url,
      token: await subscriberToken('team-b'),
    });
    const seenA: CompletionEvent[] = [];
    const seenB: CompletionEvent[] = [];
    await a.onCompletion((e) => void seenA.push(e));
    await b.onCompletion((e) => void seenB.push(e));
    try {
      await victimCalls(2);
      const deadline = Date.now() + 5_000;
      while (seenA.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      expect(seenA.length).toBeGreaterThanOrEqual(2);
      expect(seenA.every((e) => e.tenant === 'team-a' && e.tool === 'es_orders_search')).toBe(true);
      expect(seenB).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('bus attack - a subscriber cannot widen its subscription, publish, or call a tool', async () => {
    const raw = watched(
      await connect({ servers: h.nats.url, token: await subscriberToken('team-b') }),
    );
    try {
      listen(raw, 'tollgate.v1.evt.call.completed.team-a');
      await refused(raw, 'tollgate.v1.evt.call.completed.team-a');
      listen(raw, 'tollgate.v1.evt.call.completed.*');
      await refused(raw, 'tollgate.v1.evt.call.completed.*');
      raw.nc.publish(callSubject, new Uint8Array());
      await refused(raw, callSubject);
    } finally {
      await raw.nc.close();
    }
    // Its token is not an agent's: the executor refuses it even if it reached a call subject.
    const outcome = await h.call('es_orders_search', byId, {
      token: await subscriberToken('team-a'),
    });
    expect(outcome.error?.code).toBe('UNAUTHENTICATED');
  });
});

describe('bus - services are limited to their own subjects', () => {
  const service = async (role: BusRole) => watched(await h.nats.connect(`as-${role}`, role));

  it('bus attack - only executors subscribe to call subjects, only the synthesizer to listings', async () => {
    for (const role of ['memory', 'audit', 'registry', 'policy', 'mcp', 'synthesizer'] as const) {
      const conn = await service(role);
      try {
        conn.nc.subscribe('tollgate.v1.call.>');
        await refused(conn, 'tollgate.v1.call.>');
        if (role !== 'synthesizer') {
          conn.nc.subscribe('tollgate.v1.svc.synthesizer.list_tools');
          await refused(conn, 'tollgate.v1.svc.synthesizer.list_tools');
        }
      } finally {
        await conn.nc.close();
      }
    }
  });

  it('bus attack - a service writes only its own buckets and events, and reads only its own replies', async () => {
    const memory = await service('memory');
    const audit = await service('audit');
    try {
      memory.nc.publish(`$KV.${buckets.resources}.team-a.prod.es_orders`, new Uint8Array());
      await refused(memory, `$KV.${buckets.resources}.team-a.prod.es_orders`);
      memory.nc.publish('tollgate.v1.evt.call.completed.team-a', new Uint8Array());
      await refused(memory, 'tollgate.v1.evt.call.completed.team-a');
      memory.nc.subscribe('_INBOX_executor.>');
      await refused(memory, '_INBOX_executor.>');
      audit.nc.publish('tollgate.v1.evt.approval.decided.team-a', new Uint8Array());
      await refused(audit, 'tollgate.v1.evt.approval.decided.team-a');
      audit.nc.publish(`$JS.API.STREAM.DELETE.${EVENTS_STREAM}`, new Uint8Array());
      await refused(audit, `$JS.API.STREAM.DELETE.${EVENTS_STREAM}`);
    } finally {
      await memory.nc.close();
      await audit.nc.close();
    }
  });
});
