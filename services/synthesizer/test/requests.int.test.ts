import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliverPolicy, jetstream } from '@nats-io/jetstream';
import { RpcStatus, isRpcError } from '@tollgate/contracts';
import type { EventEnvelope } from '@tollgate/contracts/events/v1';
import type { ToolFormat } from '@tollgate/contracts/tools/v1';
import { generateIssuerKeys, issuePrincipalToken } from '@tollgate/core';
import { EVENTS_STREAM, EventTypes, decodeEnvelope, subjects } from '@tollgate/kit';
import { listToolsSubject } from '../src/index.js';
import { eventually, failed, names, ok, startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';
import { agent, bundle, resource } from './support/fixtures.js';
import {
  TENANT,
  customersV1,
  operator,
  ops,
  ordersBundle,
  ordersV1,
  support,
} from './support/orders.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  await h.putResource(ordersV1, 1);
  await h.putResource(customersV1, 1);
  await h.putBundle(
    ordersBundle(1, [
      { descriptor: ordersV1, version: 1 },
      { descriptor: customersV1, version: 1 },
    ]),
  );
  const token = await h.token(ops);
  await eventually(async () => {
    const answer = await h.listTools(token, {});
    return answer.ok && answer.value.length > 0 ? true : undefined;
  }, 30_000);
});

afterAll(async () => {
  await h?.close();
});

/** The RpcError a gRPC call failed with. */
async function rpcFailure(call: Promise<unknown>) {
  try {
    await call;
  } catch (err) {
    if (isRpcError(err)) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

describe('synthesizer - bad requests', () => {
  it('bad requests - unknown format, top_k out of range and a bad session id are each named', async () => {
    const error = failed(
      await h.listTools(await h.token(ops), { format: 9 as ToolFormat, topK: 51, sessionId: ' x' }),
    );
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', category: 'fix_arguments' });
    expect(error.details.map((d) => d.path)).toEqual(['format', 'top_k', 'session_id']);
    expect(error.message).toContain(
      'unknown tool format 9; use one of json_schema, openai, anthropic, mcp',
    );
    expect(error.message).toContain('top_k must be between 1 and 50 (0 for the default)');
    expect(error.details[1]).toMatchObject({ expected: '0..50', found: '51' });
  });

  it('bad requests - the same checks on gRPC answer INVALID_ARGUMENT with the stable code', async () => {
    const err = await rpcFailure(
      h.client.listTools({ format: 7 as ToolFormat, topK: 1000 }, await h.as(ops)),
    );
    expect(err.code).toBe(RpcStatus.INVALID_ARGUMENT);
    expect(err.tollgateCode).toBe('INVALID_ARGUMENT');
    expect(err.details.map((d) => d.path)).toEqual(['format', 'top_k']);
    const get = await rpcFailure(h.client.getTool({ name: 'Orders!' }, await h.as(ops)));
    expect(get.code).toBe(RpcStatus.INVALID_ARGUMENT);
    expect(get.message).toContain('name is not a tool name');
  });

  it('bad requests - a task longer than 4000 characters is refused', async () => {
    const error = failed(await h.listTools(await h.token(ops), { task: 'order '.repeat(700) }));
    expect(error.details[0]).toMatchObject({ path: 'task', expected: 'at most 4000 characters' });
  });

  it('bad requests - bytes that are not a request are INVALID_ARGUMENT', async () => {
    const answer = await h.raw(listToolsSubject, new Uint8Array([0xff, 0xff, 0xff]), {
      authorization: `Bearer ${await h.token(ops)}`,
    });
    expect(failed(answer)).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message:
        'The request is not a valid tollgate.synthesizer.v1.ListToolsRequest (protobuf binary).',
    });
  });

  it('bad requests - an agent may not name a principal on the data plane', async () => {
    const error = failed(
      await h.listTools(await h.token(support), { principal: { agent: 'ops_bot' } }),
    );
    expect(error.details[0]).toMatchObject({ path: 'principal' });
    expect(error.code).toBe('INVALID_ARGUMENT');
  });
});

describe('synthesizer - who is asking', () => {
  it('unknown principal - no token, a malformed header and a forged token are UNAUTHENTICATED', async () => {
    expect(failed(await h.listTools(undefined, {}))).toMatchObject({
      code: 'UNAUTHENTICATED',
      message: 'Not authenticated: no principal token was presented.',
    });
    const basic = await h.raw(listToolsSubject, new Uint8Array(), { authorization: 'Basic abc' });
    expect(failed(basic).code).toBe('UNAUTHENTICATED');
    const stranger = await generateIssuerKeys('stranger');
    const forged = await issuePrincipalToken(stranger, ops);
    expect(failed(await h.listTools(forged, {}))).toMatchObject({
      code: 'UNAUTHENTICATED',
      message: 'Not authenticated: the principal token was signed by an unknown key.',
    });
    const rpc = await rpcFailure(h.client.listTools({}, {}));
    expect(rpc.code).toBe(RpcStatus.UNAUTHENTICATED);
  });

  it('unknown principal - a valid token for an agent the bundle does not declare is POLICY_DENIED', async () => {
    const ghost = { tenant: TENANT, agent: 'ghost_bot', environment: 'prod' };
    expect(failed(await h.listTools(await h.token(ghost), {}))).toMatchObject({
      code: 'POLICY_DENIED',
      category: 'denied',
      message:
        'Agent "ghost_bot" is not declared in tenant "team-a"; declare it (kind: Agent) before it can be offered tools.',
    });
    const rpc = await rpcFailure(h.client.getTool({ name: 'es_orders_search' }, await h.as(ghost)));
    expect(rpc.code).toBe(RpcStatus.PERMISSION_DENIED);
    expect(rpc.tollgateCode).toBe('POLICY_DENIED');
  });

  it('policy unavailable - a tenant without a bundle, then with a corrupt one, is offered nothing', async () => {
    const other = { tenant: 'team-b', agent: 'bot', environment: 'prod' };
    await h.putResource(
      resource('team-b', 'es_orders', { access: { allowedRoles: ['support'] } }),
      1,
    );
    const token = await h.token(other);
    const missing = await eventually(async () => {
      const answer = await h.listTools(token, {});
      return answer.ok ? undefined : answer.error;
    });
    expect(missing).toMatchObject({
      code: 'POLICY_UNAVAILABLE',
      message:
        'No policy bundle has been published for tenant "team-b"; no tools are offered until one is.',
    });
    const good = bundle({
      tenant: 'team-b',
      version: 1,
      agents: [agent('team-b', 'bot', ['support'])],
      policies: [],
      resources: [
        {
          descriptor: resource('team-b', 'es_orders', { access: { allowedRoles: ['support'] } }),
          version: 1,
        },
      ],
    });
    await h.putBundle(good);
    const offered = await eventually(async () => {
      const answer = await h.listTools(token, {});
      return answer.ok && answer.value.length > 0 ? answer.value : undefined;
    });
    expect(names(offered)).toContain('es_orders_search');
    await h.bundles.put(
      'team-b',
      JSON.stringify({ ...good, version: 2, hash: 'sha256:' + '0'.repeat(64) }),
    );
    const corrupt = await eventually(async () => {
      const answer = await h.listTools(token, {});
      return answer.ok ? undefined : answer.error;
    });
    expect(corrupt).toMatchObject({
      code: 'POLICY_UNAVAILABLE',
      message:
        'The policy bundle of tenant "team-b" could not be loaded; no tools are offered until a valid one is published.',
    });
    expect(h.lines.some((l) => l.msg === 'policy bundle refused' && l.tenant === 'team-b')).toBe(
      true,
    );
  });
});

describe('synthesizer - reply size', () => {
  it('reply size - a listing too large for one NATS message is refused, saying how to ask for less', async () => {
    const wide = { tenant: 'team-wide', agent: 'bot', environment: 'prod' };
    const fields = Object.fromEntries(
      // Enough to overflow 1 MiB even in the compact (grouped) default layout.
      Array.from({ length: 60 }, (_, i) => [
        `attribute_${i}`,
        { type: 'keyword' as const, filterable: true, returnable: true, aggregatable: true },
      ]),
    );
    const descriptors = Array.from({ length: 45 }, (_, i) =>
      resource('team-wide', `es_wide_${i}`, {
        description: `Wide table ${i}`,
        fields,
        access: { allowedRoles: ['reader'] },
      }),
    );
    for (const descriptor of descriptors) await h.putResource(descriptor, 1);
    await h.putBundle(
      bundle({
        tenant: 'team-wide',
        version: 1,
        agents: [agent('team-wide', 'bot', ['reader'])],
        policies: [],
        resources: descriptors.map((descriptor) => ({ descriptor, version: 1 })),
      }),
    );
    const token = await h.token(wide);
    const error = await eventually(async () => {
      const answer = await h.listTools(token, {});
      return answer.ok ? undefined : answer.error;
    }, 60_000);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(
      /^The reply would exceed the 1048576 bytes a NATS message may carry \(\d+ bytes or more\); give a task or a smaller top_k\.$/,
    );
    const some = ok(await h.listTools(token, { task: 'wide table', topK: 2 }));
    expect(new Set(some.map((t) => t.resource)).size).toBe(2);
  });
});

describe('synthesizer - acting for another principal (gRPC)', () => {
  it('act for - an operator lists exactly the tools the agent itself is offered', async () => {
    const asAgent = ok(await h.listTools(await h.token(support), { task: 'orders' }));
    const forAgent = await h.client.listTools(
      { task: 'orders', principal: { agent: 'support_bot' } },
      await h.as(operator),
    );
    expect(forAgent.tools.map((t) => [t.name, t.version])).toEqual(
      asAgent.map((t) => [t.name, t.version]),
    );
    const tool = await h.client.getTool(
      { name: 'es_orders_aggregate', principal: { agent: 'ops_bot' } },
      await h.as(operator),
    );
    expect(tool.tool?.name).toBe('es_orders_aggregate');
  });

  it('act for - a caller without the operator or admin role is refused', async () => {
    const err = await rpcFailure(
      h.client.listTools({ principal: { agent: 'ops_bot' } }, await h.as(support)),
    );
    expect(err.code).toBe(RpcStatus.PERMISSION_DENIED);
    expect(err.message).toBe(
      'Agent "support_bot" may not list tools for another principal: that needs the operator or admin role.',
    );
  });

  it('act for - another tenant is TENANT_MISMATCH and claimed roles are refused', async () => {
    const err = await rpcFailure(
      h.client.listTools({ principal: { tenant: 'team-b', agent: 'bot' } }, await h.as(operator)),
    );
    expect(err.tollgateCode).toBe('TENANT_MISMATCH');
    const roles = await rpcFailure(
      h.client.listTools(
        { principal: { agent: 'support_bot', roles: ['order_ops'] } },
        await h.as(operator),
      ),
    );
    expect(roles.code).toBe(RpcStatus.INVALID_ARGUMENT);
    expect(roles.details[0]).toMatchObject({ path: 'principal.roles' });
  });
});

describe('synthesizer - tools.listed', () => {
  it('tools.listed - a listing with a session id is stored on JetStream with every tool name and version', async () => {
    const consumer = await jetstream(h.nc).consumers.get(EVENTS_STREAM, {
      filter_subjects: subjects.eventsOf(EventTypes.toolsListed),
      deliver_policy: DeliverPolicy.New,
    });
    const messages = await consumer.consume();
    const seen: EventEnvelope[] = [];
    const done = (async () => {
      for await (const message of messages) seen.push(decodeEnvelope(message.data));
    })();
    try {
      ok(await h.listTools(await h.token(ops), { task: 'orders' }));
      const sessionId = `s-${Date.now()}`;
      const tools = ok(
        await h.listTools(await h.token({ ...ops, user: 'u-42' }), {
          task: 'find order 12345',
          sessionId,
        }),
      );
      const event = await eventually(() =>
        seen.find(
          (e) => e.payload.case === 'toolsListed' && e.payload.value.sessionId === sessionId,
        ),
      );
      expect(event.tenant).toBe(TENANT);
      expect(event.type).toBe('tools.listed');
      if (event.payload.case !== 'toolsListed') throw new Error('unexpected payload');
      const listed = event.payload.value;
      expect(listed.task).toBe('find order 12345');
      expect(listed.principal).toMatchObject({
        tenant: TENANT,
        agent: 'ops_bot',
        user: 'u-42',
        environment: 'prod',
        roles: ['order_ops'],
      });
      expect(listed.principal?.tokenId).not.toBe('');
      expect(listed.tools.map((t) => [t.name, t.version, t.resource, t.resourceVersion])).toEqual(
        tools.map((t) => [t.name, t.version, t.resource, t.resourceVersion]),
      );
      // The earlier listing without a session id (stored first, had it been) was not recorded.
      expect(seen.filter((e) => e.payload.case === 'toolsListed')).toHaveLength(1);
    } finally {
      await messages.close();
      await done;
    }
  });
});
