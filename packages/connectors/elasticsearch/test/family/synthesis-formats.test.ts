import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { TOOL_FORMATS, checkToolFormat, renderTool, validateToolArguments } from '@tollgate/core';
import { permissionsFromAccess, synthesizeTools } from './bound.js';
import type { JsonObject, ToolDefinition } from '@tollgate/core';
import { toolFor, wideResource, writableOrders } from '../../../../core/test/synthesis-fixtures.js';

const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

function tools(): ToolDefinition[] {
  const resource = writableOrders();
  const p = permissionsFromAccess(resource, { roles: ['order_ops'], agent: 'ops_bot' });
  if (p === undefined) throw new Error('allowed');
  return synthesizeTools(resource, p);
}

function walk(schema: JsonObject, visit: (node: JsonObject) => void): void {
  visit(schema);
  for (const [key, sub] of Object.entries(schema)) {
    if (key === 'properties')
      Object.values(sub as JsonObject).forEach((c) => walk(c as JsonObject, visit));
    else if (key === 'items') walk(sub as JsonObject, visit);
    else if (key === 'anyOf') (sub as JsonObject[]).forEach((c) => walk(c, visit));
  }
}

describe('tool formats', { timeout: 60_000 }, () => {
  it('tool formats - every tool in every format passes its checker', () => {
    const wide = wideResource(200);
    const all = [
      ...tools(),
      ...synthesizeTools(wide, permissionsFromAccess(wide, { roles: ['analyst'], agent: 'a' })!),
      ...synthesizeTools(wide, permissionsFromAccess(wide, { roles: ['analyst'], agent: 'a' })!, {
        filterLayout: 'grouped',
      }),
    ];
    for (const tool of all) {
      for (const format of TOOL_FORMATS) {
        expect(checkToolFormat(format, renderTool(tool, format)), `${format} ${tool.name}`).toEqual(
          [],
        );
      }
    }
  });

  it('tool formats - every schema compiles under a stock Ajv 2020 in strict mode', () => {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
    addFormats(ajv);
    for (const tool of tools()) {
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
      const openai = renderTool(tool, 'openai').function.parameters;
      expect(() => ajv.compile(openai), `openai ${tool.name}`).not.toThrow();
    }
  });

  it('tool formats - json_schema carries the 2020-12 dialect and the schema unchanged', () => {
    const [search] = tools();
    const rendered = renderTool(search!, 'json_schema');
    expect(rendered).toEqual({
      name: 'es_orders_search',
      description: search!.description,
      inputSchema: search!.inputSchema,
    });
    expect(rendered.inputSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  it('tool formats - openai strict: every property required, optionals nullable, unsupported keywords dropped', () => {
    for (const tool of tools()) {
      const rendered = renderTool(tool, 'openai');
      expect(rendered.type).toBe('function');
      expect(rendered.function.strict).toBe(true);
      expect(rendered.function.name).toBe(tool.name);
      const parameters = rendered.function.parameters;
      expect(parameters.$schema).toBeUndefined();
      walk(parameters, (node) => {
        for (const keyword of ['maxLength', 'minLength', 'uniqueItems', '$schema'])
          expect(node).not.toHaveProperty(keyword);
        if (node.properties !== undefined) {
          expect(node.required).toEqual(Object.keys(node.properties as JsonObject));
        }
      });
      const optional = Object.keys(tool.inputSchema.properties as JsonObject).filter(
        (key) => !((tool.inputSchema.required as string[] | undefined) ?? []).includes(key),
      );
      for (const key of optional) {
        const schema = (parameters.properties as Record<string, JsonObject>)[key];
        expect(JSON.stringify(schema?.type ?? schema?.anyOf), `${tool.name}.${key}`).toContain(
          'null',
        );
      }
    }
  });

  it('tool formats - what a strict-mode model sends (every key, nulls) passes the rich schema', () => {
    const all = tools();
    const search = toolFor(all, 'search');
    const sent = { filters: null, fields: null, sort: null, limit: null, cursor: null };
    expect(validateToolArguments(search, sent)).toEqual({ ok: true, args: {} });
    const aggregate = toolFor(all, 'aggregate');
    expect(
      validateToolArguments(aggregate, {
        filters: null,
        aggregation: { kind: 'terms', field: 'status', size: null },
      }),
    ).toEqual({ ok: true, args: { aggregation: { kind: 'terms', field: 'status' } } });
  });

  it('tool formats - anthropic and mcp carry the schema; mcp hints say what the tool does', () => {
    const all = tools();
    const search = toolFor(all, 'search');
    const anthropic = renderTool(search, 'anthropic');
    expect(Object.keys(anthropic)).toEqual(['name', 'description', 'input_schema']);
    const { $schema: _dialect, ...rest } = search.inputSchema;
    expect(anthropic.input_schema).toEqual(rest);
    expect(renderTool(search, 'mcp')).toMatchObject({
      name: 'es_orders_search',
      inputSchema: search.inputSchema,
      annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
    });
    expect(renderTool(toolFor(all, 'write'), 'mcp').annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it('tool formats - rendering never mutates the tool', () => {
    for (const tool of tools()) {
      const before = JSON.stringify(tool);
      for (const format of TOOL_FORMATS) renderTool(tool, format);
      expect(JSON.stringify(tool)).toBe(before);
    }
  });

  it('tool formats - the checkers catch each broken rule', () => {
    const [search] = tools();
    const openai = renderTool(search!, 'openai');
    const freeForm = {
      type: 'object',
      properties: { q: { type: 'object', additionalProperties: true } },
      required: ['q'],
      additionalProperties: false,
    };
    const cases: [Parameters<typeof checkToolFormat>[0], unknown, string][] = [
      [
        'json_schema',
        {
          ...renderTool(search!, 'json_schema'),
          inputSchema: { ...search!.inputSchema, $schema: undefined },
        },
        'inputSchema.$schema: expected "https://json-schema.org/draft/2020-12/schema"',
      ],
      [
        'json_schema',
        {
          name: 'x y',
          description: 'd',
          inputSchema: {
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            type: 'object',
            properties: {},
            additionalProperties: false,
          },
        },
        'name: expected to match ^[a-zA-Z0-9_-]{1,64}$; found "x y"',
      ],
      [
        'anthropic',
        { name: 'a', description: 'd', input_schema: freeForm },
        'input_schema.properties.q: expected additionalProperties: false',
      ],
      [
        'anthropic',
        {
          name: 'a',
          description: 'd',
          input_schema: { type: 'object', properties: { q: {} }, additionalProperties: false },
        },
        'input_schema.properties.q: admits any value (no type, anyOf, const or enum)',
      ],
      [
        'anthropic',
        {
          name: 'a',
          description: '',
          input_schema: { type: 'object', properties: {}, additionalProperties: false },
        },
        'description: expected a non-empty string',
      ],
      [
        'anthropic',
        {
          name: 'a',
          description: 'd',
          input_schema: {
            type: 'object',
            properties: { q: { type: 'string', maxLenght: 3 } },
            additionalProperties: false,
          },
        },
        'input_schema: does not compile under Ajv strict mode: strict mode: unknown keyword: "maxLenght"',
      ],
      [
        'openai',
        { ...openai, function: { ...openai.function, strict: false } },
        'function.strict: expected true',
      ],
      [
        'openai',
        {
          type: 'function',
          function: {
            ...openai.function,
            parameters: {
              type: 'object',
              properties: { a: { type: ['string', 'null'] } },
              additionalProperties: false,
            },
          },
        },
        'function.parameters: every property must be required; missing a',
      ],
      [
        'openai',
        {
          type: 'function',
          function: {
            ...openai.function,
            parameters: {
              type: 'object',
              properties: { a: { type: 'string', maxLength: 3 } },
              required: ['a'],
              additionalProperties: false,
            },
          },
        },
        'function.parameters.properties.a: keyword "maxLength" is not supported in strict mode',
      ],
      [
        'openai',
        {
          type: 'function',
          function: {
            ...openai.function,
            parameters: {
              type: 'object',
              properties: { a: { type: 'string', format: 'uri' } },
              required: ['a'],
              additionalProperties: false,
            },
          },
        },
        'function.parameters.properties.a: format "uri" is not supported',
      ],
      [
        'openai',
        {
          type: 'function',
          function: {
            ...openai.function,
            parameters: {
              type: 'object',
              properties: { a: { enum: ['x'] } },
              required: ['a'],
              additionalProperties: false,
            },
          },
        },
        'function.parameters.properties.a: every schema needs a type (or anyOf)',
      ],
      [
        'openai',
        {
          type: 'function',
          function: {
            ...openai.function,
            parameters: { type: 'object', anyOf: [], properties: {}, additionalProperties: false },
          },
        },
        'function.parameters: anyOf is not allowed at the root',
      ],
      [
        'mcp',
        { ...renderTool(search!, 'mcp'), annotations: { readOnlyHint: 'yes' } },
        'annotations.readOnlyHint: expected a boolean',
      ],
      [
        'mcp',
        { ...renderTool(search!, 'mcp'), annotations: { safe: true } },
        'annotations.safe: not an MCP tool annotation',
      ],
      ['mcp', { ...renderTool(search!, 'mcp'), extra: 1 }, 'extra: not a member of this format'],
      [
        'mcp',
        { name: 'a', inputSchema: { type: 'array', items: { type: 'string' } } },
        'inputSchema.type: expected "object" at the root',
      ],
    ];
    for (const [format, tool, problem] of cases) {
      expect(checkToolFormat(format, tool), problem).toContain(problem);
    }
    expect(checkToolFormat('openai', 'nope')).toEqual(['tool: expected an object']);
  });

  it('tool formats - the OpenAI enum and size limits are enforced', () => {
    const values = Array.from({ length: 1001 }, (_, i) => `value_${i}`);
    const tool = {
      type: 'function',
      function: {
        name: 'big',
        description: 'd',
        strict: true,
        parameters: {
          type: 'object',
          properties: { a: { type: 'string', enum: values } },
          required: ['a'],
          additionalProperties: false,
        },
      },
    };
    expect(checkToolFormat('openai', tool)).toContain(
      'function.parameters: 1001 enum values exceed 1000',
    );
  });
});
