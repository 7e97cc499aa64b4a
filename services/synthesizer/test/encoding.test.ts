import { resourceKinds } from '@tollgate/kinds';
import { describe, expect, it } from 'vitest';
import { create, equals, fromBinary, toBinary } from '@bufbuild/protobuf';
import { GetToolResponseSchema, ListToolsResponseSchema } from '@tollgate/contracts/synthesizer/v1';
import { ToolDefinitionSchema } from '@tollgate/contracts/tools/v1';
import { synthesizeTools } from '@tollgate/core';
import { readCatalogEntry } from '@tollgate/kit';
import { encodeTools, wireTool } from '../src/index.js';
import { published, resource } from './support/fixtures.js';

describe('encoding - tool replies', () => {
  const entry = readCatalogEntry(
    'team-a.prod.es_orders',
    new TextEncoder().encode(
      JSON.stringify(published(resource('team-a', 'es_orders', { description: '订单 orders' }), 2)),
    ),
  );
  if ('invalid' in entry) throw new Error(entry.invalid);
  const tools = synthesizeTools(
    entry.resource,
    {
      operations: ['search', 'get', 'count', 'aggregate'],
      visibleFields: ['amount', 'id', 'status'],
      filterableFields: ['amount', 'id', 'status'],
      limitCap: 100,
    },
    resourceKinds.get(entry.kind),
  ).map((tool) => wireTool(tool, 'openai', entry));

  it('encoding - framed cached tools are byte for byte the encoded ListToolsResponse', () => {
    const framed = encodeTools(tools);
    const whole = toBinary(ListToolsResponseSchema, create(ListToolsResponseSchema, { tools }));
    expect(Buffer.from(framed).equals(Buffer.from(whole))).toBe(true);
    const decoded = fromBinary(ListToolsResponseSchema, framed);
    expect(decoded.tools).toHaveLength(4);
    decoded.tools.forEach((tool, i) => {
      expect(equals(ToolDefinitionSchema, tool, tools[i] as typeof tool)).toBe(true);
    });
  });

  it('encoding - one framed tool is a GetToolResponse; none is an empty reply', () => {
    const one = fromBinary(GetToolResponseSchema, encodeTools([tools[0] as (typeof tools)[0]]));
    expect(one.tool?.name).toBe('es_orders_search');
    expect(one.tool?.rendering).toEqual(tools[0]?.rendering);
    expect(encodeTools([])).toHaveLength(0);
  });
});
