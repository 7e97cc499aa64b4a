import { describe, expect, it } from 'vitest';
import { create } from '@bufbuild/protobuf';
import { GetToolRequestSchema, ListToolsRequestSchema } from '@tollgate/contracts/synthesizer/v1';
import { ToolFormat } from '@tollgate/contracts/tools/v1';
import { TollgateError } from '@tollgate/core';
import { formatOf, listQuery, toolQuery } from '../src/index.js';

const list = (init: Parameters<typeof create<typeof ListToolsRequestSchema>>[1]) =>
  create(ListToolsRequestSchema, init);

function problems(read: () => unknown): { code: string; paths: string[]; message: string } {
  try {
    read();
  } catch (err) {
    if (!(err instanceof TollgateError)) throw err;
    return { code: err.code, paths: err.details.map((d) => d.path), message: err.message };
  }
  throw new Error('expected a TollgateError');
}

describe('requests - ListTools', () => {
  it('requests - defaults: no task, JSON Schema, top_k 0, no session', () => {
    expect(listQuery(list({}), 'data')).toEqual({
      task: '',
      format: 'json_schema',
      topK: 0,
      sessionId: '',
    });
  });

  it('requests - the task is trimmed; each format maps to its name', () => {
    const formats: [ToolFormat, string][] = [
      [ToolFormat.JSON_SCHEMA, 'json_schema'],
      [ToolFormat.OPENAI, 'openai'],
      [ToolFormat.ANTHROPIC, 'anthropic'],
      [ToolFormat.MCP, 'mcp'],
    ];
    for (const [wire, name] of formats) {
      expect(listQuery(list({ task: '  find order 12345 ', format: wire }), 'data')).toMatchObject({
        task: 'find order 12345',
        format: name,
      });
    }
  });

  it('requests - top_k 50 is accepted, 51 is not', () => {
    expect(listQuery(list({ topK: 50 }), 'data').topK).toBe(50);
    expect(problems(() => listQuery(list({ topK: 51 }), 'data'))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      paths: ['top_k'],
    });
  });

  it('requests - every problem is reported at once, by field', () => {
    const found = problems(() =>
      listQuery(
        list({ task: 'x'.repeat(4001), format: 5 as ToolFormat, topK: 99, sessionId: 'a b' }),
        'data',
      ),
    );
    expect(found.paths).toEqual(['task', 'format', 'top_k', 'session_id']);
    expect(found.message).toMatch(/^Invalid ListTools request: task: task is longer than 4000/);
  });

  it('requests - a principal is refused on the data plane and checked on the control plane', () => {
    expect(problems(() => listQuery(list({ principal: { agent: 'bot' } }), 'data')).paths).toEqual([
      'principal',
    ]);
    expect(listQuery(list({ principal: { agent: 'bot', user: 'u-1' } }), 'control')).toMatchObject({
      principal: { tenant: '', agent: 'bot', environment: '', user: 'u-1' },
    });
    expect(
      problems(() =>
        listQuery(
          list({
            principal: { tenant: 'Team A', agent: '', environment: 'prod', roles: ['admin'] },
          }),
          'control',
        ),
      ).paths,
    ).toEqual(['principal.tenant', 'principal.agent', 'principal.roles']);
  });
});

describe('requests - GetTool', () => {
  it('requests - a tool name is required and must look like one', () => {
    const get = (name: string) => create(GetToolRequestSchema, { name });
    expect(toolQuery(get('es_orders_search'), 'data')).toEqual({
      name: 'es_orders_search',
      format: 'json_schema',
    });
    expect(problems(() => toolQuery(get(''), 'data')).message).toBe(
      'Invalid GetTool request: name: name is required.',
    );
    expect(problems(() => toolQuery(get('DROP TABLE'), 'data')).paths).toEqual(['name']);
  });

  it('requests - an unknown format names the allowed ones', () => {
    expect(problems(() => formatOf(12)).message).toBe(
      'Unknown tool format 12; use one of TOOL_FORMAT_JSON_SCHEMA (json_schema), TOOL_FORMAT_OPENAI (openai), TOOL_FORMAT_ANTHROPIC (anthropic), TOOL_FORMAT_MCP (mcp).',
    );
  });
});
