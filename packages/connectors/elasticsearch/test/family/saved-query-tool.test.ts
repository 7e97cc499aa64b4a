import { describe, expect, it } from 'vitest';
import {
  TollgateError,
  annotateDefaultFields,
  checkToolFormat,
  renderTool,
  compileToolValidator,
  defaultFieldsFor,
  expandSavedQueryCall,
  parseMemoryItemKey,
  parsePublishedMemoryItem,
  savedQueryDetails,
  savedQueryKey,
  savedQueryNameOf,
  savedQueryTool,
  savedQueryToolName,
  validateToolArguments,
  withDefaultFields,
} from '@tollgate/core';
import { permissionsFromAccess, synthesizeTools } from './bound.js';
import type {
  PermissionSet,
  PublishedSavedQuery,
  SavedQueryToolDefinition,
  ToolFormat,
} from '@tollgate/core';
import { toolFor, writableOrders } from '../../../../core/test/synthesis-fixtures.js';

const resource = writableOrders();
const permissions = permissionsFromAccess(resource, {
  roles: ['support'],
  agent: 'support_bot',
}) as PermissionSet;
const search = compileToolValidator(toolFor(synthesizeTools(resource, permissions), 'search'));

function byId(overrides: Partial<PublishedSavedQuery> = {}): PublishedSavedQuery {
  return {
    kind: 'saved_query',
    id: 'cap-1',
    tenant: 'acme',
    agent: 'support_bot',
    user: 'alice',
    name: 'order_by_status',
    revision: 2,
    contentHash: 'a'.repeat(64),
    description: 'Recent orders in one status.',
    tool: search.tool.name,
    arguments: {
      filters: [{ field: 'status', op: 'eq', value: 'paid' }],
      fields: ['id', 'amount'],
      limit: 5,
    },
    parameters: [
      { name: 'status', path: '/filters/0/value', type: 'string', description: 'Order status' },
    ],
    ...overrides,
  };
}

function narrow(query: PublishedSavedQuery): SavedQueryToolDefinition {
  const made = savedQueryTool(search, query);
  if ('unusable' in made) throw new Error(made.unusable);
  return made;
}

describe('saved query tools', () => {
  it('asks only for the parameters, strictly, and records where it comes from', () => {
    const tool = narrow(byId());
    expect(tool.name).toBe('sq_order_by_status');
    expect(tool.operation).toBe('search');
    expect(tool.resource).toEqual(search.tool.resource);
    expect(tool.inputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { status: { type: 'string', description: 'Order status' } },
      required: ['status'],
      additionalProperties: false,
    });
    expect(tool.savedQuery).toEqual({
      id: 'cap-1',
      name: 'order_by_status',
      revision: 2,
      contentHash: 'a'.repeat(64),
      baseTool: search.tool.name,
      baseVersion: search.tool.version,
    });
    expect(tool.description).toContain(`runs ${search.tool.name}`);
    for (const format of ['json_schema', 'openai', 'anthropic', 'mcp'] as ToolFormat[]) {
      expect(checkToolFormat(format, renderTool(tool, format)), format).toEqual([]);
    }
  });

  it('versions change with the approved revision and the base tool, and only then', () => {
    const v1 = narrow(byId()).version;
    expect(narrow(byId()).version).toBe(v1);
    expect(narrow(byId({ contentHash: 'b'.repeat(64), revision: 3 })).version).not.toBe(v1);
    const otherBase = compileToolValidator({ ...search.tool, version: 'f'.repeat(64) });
    const moved = savedQueryTool(otherBase, byId());
    expect('unusable' in moved ? moved.unusable : moved.version).not.toBe(v1);
  });

  it('expands a call into base-tool arguments that the base tool accepts', () => {
    const tool = narrow(byId());
    const expanded = expandSavedQueryCall(compileToolValidator(tool), byId(), {
      status: 'shipped',
    });
    expect(expanded).toEqual({
      filters: [{ field: 'status', op: 'eq', value: 'shipped' }],
      fields: ['id', 'amount'],
      limit: 5,
    });
    expect(validateToolArguments(search.tool, expanded).ok).toBe(true);
  });

  it('refuses extra or missing arguments, naming them', () => {
    const validator = compileToolValidator(narrow(byId()));
    const refused = (args: unknown) => {
      try {
        expandSavedQueryCall(validator, byId(), args);
      } catch (err) {
        expect(err).toBeInstanceOf(TollgateError);
        expect((err as TollgateError).code).toBe('ARGUMENTS_INVALID');
        return (err as TollgateError).details.map((d) => d.path);
      }
      throw new Error('accepted');
    };
    expect(refused({})).toEqual(['status']);
    expect(refused({ status: 'paid', limit: 500 })).toEqual(['limit']);
    expect(refused({ status: 7 })).toEqual(['status']);
  });

  it('tells base-tool problems in parameter terms, and fixed-part problems as the saved query', () => {
    const query = byId();
    const expanded = expandSavedQueryCall(compileToolValidator(narrow(query)), query, {
      status: 'x'.repeat(5000),
    });
    const checked = validateToolArguments(search.tool, expanded);
    if (checked.ok) throw new Error('a 5000-character status should not pass');
    const details = savedQueryDetails(query, expanded, checked.details);
    expect(details.map((d) => d.path)).toEqual(['status']);
    const fixed = savedQueryDetails(query, expanded, [{ path: 'limit', message: 'too big' }]);
    expect(fixed[0]?.path).toBe('saved_query.order_by_status.arguments.limit');
    expect(fixed[0]?.message).toContain('no longer fits');
  });

  it('is not offered when the fixed part no longer fits the base tool', () => {
    const hidden = savedQueryTool(
      search,
      byId({ arguments: { ...byId().arguments, fields: ['id', 'secret_column'] } }),
    );
    expect(hidden).toEqual({ unusable: expect.stringContaining('fields') });
    expect(savedQueryTool(search, byId({ tool: 'es_other_search' }))).toEqual({
      unusable: `it runs es_other_search, not ${search.tool.name}`,
    });
    expect(savedQueryTool(search, byId({ name: `q${'x'.repeat(61)}` }))).toEqual({
      unusable: 'its name is too long for a tool name',
    });
  });

  it('maps tool names to saved query names and back', () => {
    expect(savedQueryToolName('order_by_id')).toBe('sq_order_by_id');
    expect(savedQueryNameOf('sq_order_by_id')).toBe('order_by_id');
    expect(savedQueryNameOf('es_orders_search')).toBeUndefined();
    expect(savedQueryNameOf('sq_')).toBeUndefined();
    expect(savedQueryNameOf(`sq_${'a'.repeat(62)}`)).toBeUndefined();
  });
});

describe('default fields', () => {
  it('keeps the preferred fields the tool may return, in preferred order', () => {
    expect(defaultFieldsFor(search.tool, ['amount', 'secret_column', 'id', 'amount'])).toEqual([
      'amount',
      'id',
    ]);
    expect(defaultFieldsFor({ ...search.tool, inputSchema: { type: 'object' } }, ['id'])).toEqual(
      [],
    );
  });

  it('annotates the offered tool without changing its version and fills omitted fields', () => {
    const annotated = annotateDefaultFields(search.tool, ['id', 'amount']);
    expect(annotated.version).toBe(search.tool.version);
    const fields = (annotated.inputSchema['properties'] as Record<string, { description: string }>)[
      'fields'
    ];
    expect(fields?.description).toContain('id, amount');
    expect(validateToolArguments(annotated, { fields: ['status'] }).ok).toBe(true);
    expect(annotateDefaultFields(search.tool, [])).toBe(search.tool);
    expect(withDefaultFields({ limit: 1 }, ['id'])).toEqual({ limit: 1, fields: ['id'] });
    expect(withDefaultFields({ fields: ['status'] }, ['id'])).toEqual({ fields: ['status'] });
    expect(withDefaultFields({}, [])).toEqual({});
  });
});

describe('memory bucket entries', () => {
  it('reads back only what belongs under its key', () => {
    const query = byId({ user: 'alice@example.com' });
    const key = savedQueryKey('acme', 'support_bot', 'alice@example.com', 'order_by_status');
    expect(key).toBe(
      `sq.acme.support_bot.u-${Buffer.from('alice@example.com').toString('base64url')}.order_by_status`,
    );
    const bytes = new TextEncoder().encode(JSON.stringify(query));
    expect(parsePublishedMemoryItem(key, bytes)).toEqual(query);
    expect(parsePublishedMemoryItem('sq.acme.support_bot._.order_by_status', bytes)).toEqual({
      invalid: expect.stringContaining('stored under'),
    });
    expect(parsePublishedMemoryItem(key, new TextEncoder().encode('{'))).toEqual({
      invalid: 'not JSON',
    });
    const read = (value: unknown) =>
      parsePublishedMemoryItem(key, new TextEncoder().encode(JSON.stringify(value)));
    const param = query.parameters[0]!;
    // Paths are followed through own members only: nothing reaches a prototype.
    for (const path of ['/__proto__/polluted', '/constructor/prototype/x', '/limit/x', 'filters']) {
      expect(read({ ...query, parameters: [{ ...param, path }] })).toEqual({
        invalid: 'parameters[0].path does not point into the arguments',
      });
    }
    expect(read({ ...query, parameters: [{ ...param, path: '/filters/1/value' }] })).toEqual({
      invalid: 'parameters[0].path does not point into the arguments',
    });
    expect(read({ ...query, parameters: [param, { ...param, path: '/limit' }] })).toEqual({
      invalid: 'parameters[1].name is not a distinct parameter name',
    });
    expect(read({ ...query, parameters: [{ ...param, name: 'Status!' }] })).toEqual({
      invalid: 'parameters[0].name is not a distinct parameter name',
    });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const noParams = { ...query, parameters: [{ name: 'x' }] };
    expect(
      parsePublishedMemoryItem(key, new TextEncoder().encode(JSON.stringify(noParams))),
    ).toEqual({ invalid: 'parameters[0] is not a parameter' });
  });

  it('reads keys back only when spelled exactly as they are built', () => {
    const key = savedQueryKey('acme', 'bot', 'alice@example.com', 'by_id');
    expect(parseMemoryItemKey(key)).toEqual({
      kind: 'saved_query',
      tenant: 'acme',
      agent: 'bot',
      user: 'alice@example.com',
      name: 'by_id',
    });
    expect(parseMemoryItemKey('pf.acme.bot._.es_orders_search')).toEqual({
      kind: 'preferred_fields',
      tenant: 'acme',
      agent: 'bot',
      user: '',
      name: 'es_orders_search',
    });
    for (const bad of [
      'xx.acme.bot._.by_id',
      'sq.acme.bot.alice.by_id',
      'sq.acme.bot.u-.by_id',
      'sq.acme.bot.u-YWxpY2U=.by_id',
      'sq.acme.bot._.By_Id',
      'sq.acme.bot._',
    ]) {
      expect(parseMemoryItemKey(bad), bad).toBeUndefined();
    }
  });
});
