import { afterEach, describe, expect, it } from 'vitest';
import { Server } from '@grpc/grpc-js';
import { create, fromJson } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { RpcError, RpcStatus, addService, createClient } from '@tollgate/contracts';
import type { ServiceImpl } from '@tollgate/contracts';
import { MemoryService, PreferenceSchema, PreferenceStatus } from '@tollgate/contracts/memory/v1';
import type { Preference } from '@tollgate/contracts/memory/v1';
import { listenGrpc } from '@tollgate/kit';
import type { GrpcServerHandle } from '@tollgate/kit';
import { MemoryPreferences, boostsFromPreferences } from '../src/index.js';
import { agent, bundle, resource } from './support/fixtures.js';
import { capturedLogger, eventually, ok, startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';

const TENANT = 'team-p';
const analyst = { tenant: TENANT, agent: 'analyst', environment: 'prod' };
const sales = ['es_sales_a', 'es_sales_b', 'es_sales_c'].map((name) =>
  resource(TENANT, name, {
    description: 'Sales of the shop, one document per sale.',
    access: { allowedRoles: ['reader'] },
  }),
);

const preference = (key: string, value: string, status: PreferenceStatus): Preference =>
  create(PreferenceSchema, {
    tenant: TENANT,
    agent: 'analyst',
    key,
    kind: 'frequent_resource',
    value: fromJson(ValueSchema, value),
    status,
  });

/** A memory service stand-in answering ListPreferences (after `delayMs`) and recording who asked. */
async function memoryStandIn(
  preferences: Preference[],
  delayMs = 0,
): Promise<{ grpc: GrpcServerHandle; authorizations: string[] }> {
  const authorizations: string[] = [];
  const server = new Server();
  const impl = new Proxy(
    {
      async listPreferences(
        _request: unknown,
        context: { metadata: { get(k: string): unknown[] } },
      ) {
        authorizations.push(String(context.metadata.get('authorization')[0]));
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        return { preferences };
      },
    },
    {
      get: (target, key) =>
        (target as Record<string | symbol, unknown>)[key] ??
        (() => {
          throw new RpcError(RpcStatus.UNIMPLEMENTED, 'not in the stand-in');
        }),
    },
  ) as unknown as ServiceImpl<typeof MemoryService>;
  addService(server, MemoryService, impl);
  return { grpc: await listenGrpc(server, '127.0.0.1:0', 'test'), authorizations };
}

let h: Harness | undefined;
let memory: GrpcServerHandle | undefined;

afterEach(async () => {
  await h?.close();
  await memory?.stop();
  h = undefined;
  memory = undefined;
});

async function withPreferences(address: string, timeoutMs = 5_000): Promise<Harness> {
  const { logger } = capturedLogger();
  const client = createClient(MemoryService, address);
  const harness = await startHarness({
    preferences: new MemoryPreferences({ client, logger, timeoutMs, ttlMs: 60_000 }),
  });
  for (const descriptor of sales) await harness.putResource(descriptor, 1);
  await harness.putBundle(
    bundle({
      tenant: TENANT,
      version: 1,
      agents: [agent(TENANT, 'analyst', ['reader'])],
      policies: [],
      resources: sales.map((descriptor) => ({ descriptor, version: 1 })),
    }),
  );
  const token = await harness.token(analyst);
  await eventually(async () => {
    const answer = await harness.listTools(token, {});
    return answer.ok && answer.value.length > 0 ? true : undefined;
  });
  return harness;
}

const ranking = async (harness: Harness) => [
  ...new Set(
    ok(await harness.listTools(await harness.token(analyst), { task: 'sales' })).map(
      (t) => t.resource,
    ),
  ),
];

describe('synthesizer - preferences from the memory service', () => {
  it('preferences - an active frequent_resource preference lifts its resource among equals', async () => {
    const standIn = await memoryStandIn([
      preference('frequent_resource:es_sales_b', 'es_sales_b', PreferenceStatus.ACTIVE),
      preference('frequent_resource:es_sales_c', 'es_sales_c', PreferenceStatus.PROPOSED),
    ]);
    memory = standIn.grpc;
    h = await withPreferences(`127.0.0.1:${memory.port}`);
    expect(await ranking(h)).toEqual(['es_sales_b', 'es_sales_a', 'es_sales_c']);
    // Asked as the agent itself, once within the reuse window.
    const [scheme, token] = (standIn.authorizations[0] ?? '').split(' ');
    const claims = JSON.parse(Buffer.from(token?.split('.')[1] ?? '', 'base64url').toString());
    expect([scheme, claims.sub, claims.tenant]).toEqual(['Bearer', 'analyst', TENANT]);
    await ranking(h);
    expect(standIn.authorizations).toHaveLength(1);
  });

  it('preferences - a memory service that does not answer in time delays nothing beyond the timeout', async () => {
    const standIn = await memoryStandIn(
      [preference('frequent_resource:es_sales_c', 'es_sales_c', PreferenceStatus.ACTIVE)],
      60_000,
    );
    memory = standIn.grpc;
    h = await withPreferences(`127.0.0.1:${memory.port}`, 200);
    expect(await ranking(h)).toEqual(['es_sales_a', 'es_sales_b', 'es_sales_c']);
    expect(standIn.authorizations).toHaveLength(1);
  });

  it('preferences - an unreachable memory service ranks on relevance alone', async () => {
    h = await withPreferences('127.0.0.1:1', 2_000);
    expect(await ranking(h)).toEqual(['es_sales_a', 'es_sales_b', 'es_sales_c']);
  });
});

describe('preferences - boosts', () => {
  it('preferences - only active frequent_resource preferences naming a resource count', () => {
    expect(
      boostsFromPreferences([
        preference('frequent_resource:es_orders', 'es_orders', PreferenceStatus.ACTIVE),
        preference('frequent_resource:es_refunds', 'es_refunds', PreferenceStatus.PROPOSED),
        preference('frequent_resource:es_items', 'Not A Name!', PreferenceStatus.ACTIVE),
        create(PreferenceSchema, {
          key: 'frequent_resource:es_invoices',
          kind: 'frequent_resource',
          status: PreferenceStatus.ACTIVE,
        }),
        create(PreferenceSchema, {
          key: 'currency',
          kind: 'free_text',
          status: PreferenceStatus.ACTIVE,
        }),
      ]),
    ).toEqual({ es_orders: 1.5, es_invoices: 1.5 });
  });
});
