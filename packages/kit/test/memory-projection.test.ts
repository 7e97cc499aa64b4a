import { Writable } from 'node:stream';
import { memoryItemKey } from '@tollgate/core';
import type { PublishedFieldPreference, PublishedSavedQuery } from '@tollgate/core';
import { describe, expect, it } from 'vitest';
import { MemoryProjection, createLogger } from '../src/index.js';

function projection() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      cb();
    },
  });
  return { lines, memory: new MemoryProjection(createLogger({ service: 'test', destination })) };
}

function query(user: string, name: string, description = 'd'): PublishedSavedQuery {
  return {
    kind: 'saved_query',
    id: `${user || 'all'}-${name}`,
    tenant: 'acme',
    agent: 'bot',
    user,
    name,
    revision: 1,
    contentHash: 'h',
    description,
    tool: 'es_orders_search',
    arguments: {},
    parameters: [],
  };
}

function fields(user: string, list: string[]): PublishedFieldPreference {
  return {
    kind: 'preferred_fields',
    id: 'p',
    tenant: 'acme',
    agent: 'bot',
    user,
    tool: 'es_orders_search',
    fields: list,
  };
}

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const put = (memory: MemoryProjection, item: PublishedSavedQuery | PublishedFieldPreference) =>
  memory.apply(memoryItemKey(item), bytes(item));

describe('memory projection', () => {
  it("gives a principal its user's items first, then the agent's, and nobody else's", () => {
    const { memory } = projection();
    put(memory, query('', 'by_id', 'agent-wide'));
    put(memory, query('', 'by_status'));
    put(memory, query('alice@example.com', 'by_id', 'alice'));
    put(memory, query('bob', 'mine'));
    const alice = { tenant: 'acme', agent: 'bot', user: 'alice@example.com' };
    expect([...memory.savedQueries(alice).keys()].sort()).toEqual(['by_id', 'by_status']);
    expect(memory.savedQuery(alice, 'by_id')?.description).toBe('alice');
    expect(memory.savedQuery(alice, 'mine')).toBeUndefined();
    expect(memory.savedQuery({ tenant: 'acme', agent: 'bot' }, 'by_id')?.description).toBe(
      'agent-wide',
    );
    expect(memory.savedQuery({ tenant: 'other', agent: 'bot' }, 'by_id')).toBeUndefined();
    expect(
      memory.savedQuery({ tenant: 'acme', agent: 'bot2', user: 'bob' }, 'mine'),
    ).toBeUndefined();
  });

  it('follows deletions and replacements', () => {
    const { memory } = projection();
    const alice = { tenant: 'acme', agent: 'bot', user: 'alice' };
    put(memory, fields('', ['id']));
    put(memory, fields('alice', ['id', 'amount']));
    expect(memory.preferredFields(alice, 'es_orders_search')).toEqual(['id', 'amount']);
    memory.apply(memoryItemKey(fields('alice', [])), undefined);
    expect(memory.preferredFields(alice, 'es_orders_search')).toEqual(['id']);
    put(memory, query('alice', 'by_id', 'v1'));
    put(memory, query('alice', 'by_id', 'v2'));
    expect(memory.savedQuery(alice, 'by_id')?.description).toBe('v2');
    memory.apply(memoryItemKey(query('alice', 'by_id')), undefined);
    expect(memory.savedQuery(alice, 'by_id')).toBeUndefined();
  });

  it('leaves out entries that do not read back, and drops what they replaced', () => {
    const { memory, lines } = projection();
    const alice = { tenant: 'acme', agent: 'bot', user: 'alice' };
    put(memory, query('alice', 'by_id'));
    memory.apply(memoryItemKey(query('alice', 'by_id')), new TextEncoder().encode('{nope'));
    expect(memory.savedQuery(alice, 'by_id')).toBeUndefined();
    memory.apply('sq.acme.bot._.by_id', bytes(query('alice', 'by_id')));
    expect(memory.savedQuery({ tenant: 'acme', agent: 'bot' }, 'by_id')).toBeUndefined();
    memory.apply('weird', bytes({}));
    expect(lines.map((l) => l['msg'])).toEqual([
      'memory entry is unusable; ignored',
      'memory entry is unusable; ignored',
      'memory entry under an unknown key; ignored',
    ]);
  });
});
