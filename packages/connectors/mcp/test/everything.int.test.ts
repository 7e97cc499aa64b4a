import { afterAll, describe, expect, it } from 'vitest';
import { compileToolValidator } from '@tollgate/core';
import { discoverTools, mcpSessions } from '../src/index.js';
import type { McpResultData, McpSpec } from '../src/index.js';
import {
  allArguments,
  call,
  confirmed,
  mcpResource,
  noCredentials,
  npmServer,
  permissionsOf,
  toolsOf,
} from './support.js';

afterAll(() => mcpSessions.close());

describe('mcp kind over server-everything', () => {
  it('everything - discovery lists the tools with pins, hints and screened descriptions', async () => {
    const found = await discoverTools(
      mcpResource('everything', npmServer('server-everything', ['stdio']), {}).spec,
      noCredentials,
    );
    const names = found.tools.map((t) => t.name);
    expect(names).toContain('echo');
    expect(found.tools.every((t) => /^[0-9a-f]{64}$/.test(t.pin))).toBe(true);
    expect(found.tools.filter((t) => t.flagged !== undefined).map((t) => t.name)).toEqual([]);
    expect(found.tools.find((t) => t.name === 'echo')?.flagged).toBeUndefined();
  });

  it('everything - a selected tool is offered with its pinned schema, closed, and called', async () => {
    const draft = mcpResource('everything', npmServer('server-everything', ['stdio']), {
      echo: { class: 'read' },
      'get-sum': { class: 'read' },
    });
    const pinned = await confirmed(draft);
    const resource = await confirmed({
      ...draft,
      spec: { ...(pinned.spec as McpSpec), schema: { fields: allArguments(pinned as never) } },
    });
    const tools = toolsOf(resource);
    expect(tools.map((t) => t.name).sort()).toEqual(['everything_echo', 'everything_get_sum']);
    const echo = tools.find((t) => t.name === 'everything_echo');
    expect(echo?.inputSchema).toMatchObject({ additionalProperties: false, required: ['message'] });
    const validator = compileToolValidator(echo!);
    expect(validator.validate({ message: 'hi', extra: 1 }).ok).toBe(false);
    const { shaped } = await call(resource, 'echo', { message: 'hello there' });
    const data = shaped.data as McpResultData;
    expect(data.untrusted).toBe(true);
    expect(data.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringContaining('hello there'),
    });
    const sum = await call(resource, 'get_sum', { a: 2, b: 3 });
    expect(JSON.stringify(sum.shaped.data)).toContain('5');
  });

  it('everything - an argument the principal may not set is neither offered nor accepted', async () => {
    const draft = mcpResource('everything', npmServer('server-everything', ['stdio']), {
      'get-sum': { class: 'read', fixed: { b: 10 } },
    });
    const pinned = await confirmed(draft);
    const resource = await confirmed({
      ...draft,
      spec: {
        ...(pinned.spec as McpSpec),
        schema: { fields: { 'get_sum.a': { type: 'argument', filterable: true } } },
      },
    });
    const [tool] = toolsOf(resource);
    expect(Object.keys((tool?.inputSchema.properties ?? {}) as object)).toEqual(['a']);
    await expect(
      call(resource, 'get_sum', { a: 1, b: 2 }, permissionsOf(resource)),
    ).rejects.toThrow(/do not match/);
    const { shaped } = await call(resource, 'get_sum', { a: 1 });
    expect(JSON.stringify(shaped.data)).toContain('11');
  });
});
