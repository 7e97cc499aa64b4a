import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolFormat } from '@tollgate/contracts/tools/v1';
import type { ToolDefinition as WireTool } from '@tollgate/contracts/tools/v1';
import { checkToolFormat } from '@tollgate/core';
import type { JsonObject, ToolFormat as FormatName } from '@tollgate/core';
import { LocalDecider } from '@tollgate/policy';
import type { PolicyBundle } from '@tollgate/policy';
import { eventually, names, ok, startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';
import {
  customersV1,
  ops,
  ordersBundle,
  ordersV1,
  stagingOrdersV1,
  support,
} from './support/orders.js';
import { synthesize } from '@tollgate/kinds';

const FORMATS: [FormatName, ToolFormat][] = [
  ['json_schema', ToolFormat.JSON_SCHEMA],
  ['openai', ToolFormat.OPENAI],
  ['anthropic', ToolFormat.ANTHROPIC],
  ['mcp', ToolFormat.MCP],
];

let h: Harness;
let policy: PolicyBundle;

beforeAll(async () => {
  h = await startHarness();
  await h.putResource(ordersV1, 1);
  await h.putResource(customersV1, 1);
  await h.putResource(stagingOrdersV1, 1);
  policy = ordersBundle(1, [
    { descriptor: ordersV1, version: 1 },
    { descriptor: customersV1, version: 1 },
    { descriptor: stagingOrdersV1, version: 1 },
  ]);
  await h.putBundle(policy);
  const token = await h.token(ops);
  await eventually(async () => {
    const answer = await h.listTools(token, {});
    return answer.ok && answer.value.length > 0 ? true : undefined;
  }, 30_000);
});

afterAll(async () => {
  await h?.close();
});

const property = (tool: WireTool | undefined, name: string): JsonObject =>
  ((tool?.inputSchema as JsonObject).properties as JsonObject)[name] as JsonObject;

describe('synthesizer - permissions through the service', () => {
  it('permissions - two principals on one resource get tools that differ exactly by their permission sets', async () => {
    const decider = LocalDecider.fromBundle(policy);
    const offered = async (principal: typeof support) =>
      ok(await h.listTools(await h.token(principal), { task: 'orders' })).filter(
        (t) => t.resource === 'es_orders',
      );
    const supportTools = await offered(support);
    const opsTools = await offered(ops);

    const supportSet = decider.permissionSet(support, 'es_orders');
    const opsSet = decider.permissionSet(ops, 'es_orders');
    // The permission differences, as the policy engine computes them.
    expect(opsSet.visibleFields.filter((f) => !supportSet.visibleFields.includes(f))).toEqual([
      'user_id',
    ]);
    expect(opsSet.filterableFields.filter((f) => !supportSet.filterableFields.includes(f))).toEqual(
      ['user_id'],
    );
    expect([supportSet.limitCap, opsSet.limitCap]).toEqual([20, 100]);
    expect(opsSet.operations.filter((op) => !supportSet.operations.includes(op))).toEqual([
      'aggregate',
    ]);

    // The service's tools are exactly the projections of those sets, nothing more or less.
    for (const [tools, set] of [
      [supportTools, supportSet],
      [opsTools, opsSet],
    ] as const) {
      const expected = synthesize({ ...ordersV1, version: 1 }, set);
      expect(
        tools.map((t) => ({
          name: t.name,
          description: t.description,
          version: t.version,
          operation: t.operation,
          inputSchema: t.inputSchema,
          resourceVersion: t.resourceVersion,
        })),
      ).toEqual(
        expected.map((t) => ({
          name: t.name,
          description: t.description,
          version: t.version,
          operation: t.operation,
          inputSchema: t.inputSchema,
          resourceVersion: 1,
        })),
      );
    }
    expect(names(supportTools)).toEqual(['es_orders_search', 'es_orders_get', 'es_orders_count']);
    expect(names(opsTools)).toEqual([
      'es_orders_search',
      'es_orders_get',
      'es_orders_count',
      'es_orders_aggregate',
    ]);
    const supportSearch = supportTools[0];
    const opsSearch = opsTools[0];
    expect(property(supportSearch, 'limit').maximum).toBe(20);
    expect(property(opsSearch, 'limit').maximum).toBe(100);
    const returnable = (tool: WireTool | undefined) =>
      (property(tool, 'fields').items as JsonObject).enum as string[];
    expect(returnable(opsSearch).filter((f) => !returnable(supportSearch).includes(f))).toEqual([
      'user_id',
    ]);
    const filterFields = (tool: WireTool | undefined) =>
      ((property(tool, 'filters').items as JsonObject).anyOf as JsonObject[]).map(
        (b) => (b.properties as JsonObject).field as JsonObject,
      );
    expect(JSON.stringify(filterFields(supportSearch))).not.toContain('user_id');
    expect(JSON.stringify(filterFields(opsSearch))).toContain('user_id');
  });

  it('permissions - a resource the principal may do nothing on is never offered', async () => {
    const opsTools = ok(await h.listTools(await h.token(ops), {}));
    expect(new Set(opsTools.map((t) => t.resource))).toEqual(new Set(['es_orders']));
    const supportTools = ok(await h.listTools(await h.token(support), {}));
    expect(new Set(supportTools.map((t) => t.resource))).toEqual(
      new Set(['es_customers', 'es_orders']),
    );
  });
});

describe('synthesizer - formats', () => {
  it('formats - every rendering passes its format check on the NATS and the gRPC path alike', async () => {
    const token = await h.token(ops);
    const options = await h.as(ops);
    for (const [format, wire] of FORMATS) {
      const bus = ok(await h.listTools(token, { task: 'find order 12345', format: wire }));
      const rpc = (await h.client.listTools({ task: 'find order 12345', format: wire }, options))
        .tools;
      expect(bus.length).toBeGreaterThan(0);
      expect(rpc.map((t) => [t.name, t.version, t.rendering])).toEqual(
        bus.map((t) => [t.name, t.version, t.rendering]),
      );
      for (const tool of bus) {
        expect(tool.format).toBe(wire);
        expect(checkToolFormat(format, tool.rendering), `${format} ${tool.name}`).toEqual([]);
        expect(tool.resourceKind).toBe('elasticsearch');
        expect(tool.callSubject).toBe(`tollgate.v1.call.elasticsearch.${tool.resource}`);
      }
    }
  });

  it('formats - unspecified means JSON Schema', async () => {
    const tools = ok(await h.listTools(await h.token(ops), { task: 'orders' }));
    expect(tools.every((t) => t.format === ToolFormat.JSON_SCHEMA)).toBe(true);
    expect(checkToolFormat('json_schema', tools[0]?.rendering)).toEqual([]);
  });
});

describe('synthesizer - listing without a task and getting one tool', () => {
  it('no task - every permitted tool, resources by name; top_k caps the resources', async () => {
    const token = await h.token(support);
    const all = ok(await h.listTools(token, {}));
    expect([...new Set(all.map((t) => t.resource))]).toEqual(['es_customers', 'es_orders']);
    const first = ok(await h.listTools(token, { topK: 1 }));
    expect(new Set(first.map((t) => t.resource))).toEqual(new Set(['es_customers']));
  });

  it('environment - a principal of staging sees staging resources only', async () => {
    const token = await h.token({ ...support, environment: 'staging' });
    const tools = ok(await h.listTools(token, {}));
    expect(new Set(tools.map((t) => t.resource))).toEqual(new Set(['es_orders_staging']));
  });

  it('get tool - a tool the principal is offered, in the asked format, on both paths', async () => {
    const bus = ok(
      await h.getTool(await h.token(ops), { name: 'es_orders_aggregate', format: ToolFormat.MCP }),
    );
    const rpc = await h.client.getTool(
      { name: 'es_orders_aggregate', format: ToolFormat.MCP },
      await h.as(ops),
    );
    expect(bus.name).toBe('es_orders_aggregate');
    expect(rpc.tool?.version).toBe(bus.version);
    expect(checkToolFormat('mcp', bus.rendering)).toEqual([]);
    const listed = ok(await h.listTools(await h.token(ops), { task: 'orders' }));
    expect(listed.find((t) => t.name === 'es_orders_aggregate')?.version).toBe(bus.version);
  });

  it('get tool - a tool not offered to the principal is UNKNOWN_TOOL, like one that does not exist', async () => {
    for (const name of ['es_orders_aggregate', 'es_nothing_search', 'es_orders_staging_search']) {
      const answer = await h.getTool(await h.token(support), { name });
      expect(answer.ok).toBe(false);
      if (answer.ok) continue;
      expect(answer.error).toMatchObject({ code: 'UNKNOWN_TOOL', category: 'fix_arguments' });
      expect(answer.error.message).toContain(
        `No tool named "${name}" is offered to agent "support_bot"`,
      );
    }
  });
});
