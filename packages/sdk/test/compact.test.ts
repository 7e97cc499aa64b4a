import type { JsonObject } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { InMemorySessionStore, readSnapshot, toolCallError } from '../src/index.js';
import { compactResult } from '../src/agent/compact.js';
import { toolMessageBody } from '../src/agent/tool-message.js';
import { trimConversation } from '../src/agent/snapshot.js';
import type { ConversationMessage } from '../src/index.js';
import type { CallMeta } from '../src/index.js';
import { orders } from './support/fixtures.js';

const meta = (over: Partial<CallMeta> = {}): CallMeta => ({
  resource: 'es_orders',
  resourceVersion: 1,
  tool: 'es_orders_search',
  toolVersion: 'v',
  latencyMs: 1,
  upstreamStatus: 200,
  returned: 0,
  truncated: false,
  bytes: 0,
  traceId: '',
  ...over,
});

describe('compaction - tool results', () => {
  it('compaction - a small result passes untouched, with no notes', () => {
    const data = orders(3);
    expect(compactResult(data, meta({ returned: 3 }))).toEqual({
      data,
      truncated: false,
      notes: [],
    });
  });

  it('compaction - rows beyond maxRows are left out and the note says how many were shown', () => {
    const result = compactResult(orders(50), meta({ returned: 50, total: 900 }), { maxRows: 5 });
    expect(result.data).toEqual(orders(5));
    expect(result.truncated).toBe(true);
    expect(result.notes).toEqual([
      'showing 5 of 50 rows returned (900 matches upstream, the rest left out to save context)',
    ]);
  });

  it('compaction - the byte budget keeps the longest prefix of rows that fits', () => {
    const rows = orders(40);
    const result = compactResult(rows, meta(), { maxRows: 40, maxBytes: 500 });
    const kept = result.data as JsonObject[];
    expect(Buffer.byteLength(JSON.stringify(kept))).toBeLessThanOrEqual(500);
    expect(Buffer.byteLength(JSON.stringify(rows.slice(0, kept.length + 1)))).toBeGreaterThan(500);
    expect(kept).toEqual(rows.slice(0, kept.length));
  });

  it('compaction - long strings are shortened and counted', () => {
    const result = compactResult([{ id: 'a', note: 'x'.repeat(50) }], meta(), {
      maxStringChars: 10,
    });
    expect(result.data).toEqual([{ id: 'a', note: `${'x'.repeat(10)}…` }]);
    expect(result.notes).toEqual(['1 long text value(s) were shortened to 10 characters']);
  });

  it('compaction - the list inside an aggregation (buckets) is the one capped', () => {
    const buckets = Array.from({ length: 30 }, (_, i) => ({ key: `k${i}`, count: i }));
    const result = compactResult({ kind: 'terms', buckets }, meta(), { maxRows: 4 });
    expect(result.data).toEqual({ kind: 'terms', buckets: buckets.slice(0, 4) });
  });

  it('compaction - one object too large for the budget becomes a JSON prefix', () => {
    const big = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}`, i]));
    const result = compactResult(big, meta(), { maxBytes: 300 });
    const preview = (result.data as JsonObject).preview as string;
    expect(Buffer.byteLength(preview)).toBeLessThanOrEqual(300);
    expect(result.notes).toEqual([
      'the result was larger than 300 bytes; only a JSON prefix is shown',
    ]);
  });

  it('compaction - executor truncation and a next cursor are told to the model', () => {
    const result = compactResult([], meta({ truncated: true, nextCursor: 'c' }));
    expect(result.notes).toEqual([
      'Tollgate capped the result (row or byte limit); ask for fewer fields or narrower filters',
      'more rows exist: call again with the same arguments and `cursor` set to next_cursor',
    ]);
  });
});

describe('compaction - tool messages', () => {
  it('compaction - an error tells the model the category, the paths and what to do', () => {
    const error = toolCallError({
      code: 'ARGUMENTS_INVALID',
      message: 'bad',
      details: [
        {
          path: 'limit',
          message: 'expected a number <= 50; found 500',
          expected: 'a number <= 50',
        },
      ],
    });
    expect(toolMessageBody({ status: 'error', callId: 'c', error, meta: undefined })).toEqual({
      status: 'error',
      code: 'ARGUMENTS_INVALID',
      category: 'fix_arguments',
      message: 'bad',
      details: [
        {
          path: 'limit',
          message: 'expected a number <= 50; found 500',
          expected: 'a number <= 50',
        },
      ],
      what_to_do: 'Correct the arguments at the paths in `details` and call the tool again.',
    });
  });

  it('compaction - a parked call tells the model not to call again', () => {
    const body = toolMessageBody({
      status: 'pending_approval',
      callId: 'c',
      approvalId: 'ap1',
      meta: undefined,
      wait: () => Promise.reject(new Error('unused')),
    });
    expect(body).toMatchObject({ status: 'pending_approval', approval_id: 'ap1' });
    expect(String(body.what_to_do)).toContain('Do not call it again');
  });
});

/** A snapshot that reads back, to vary one field of. */
const VALID = {
  format: 'tollgate.agent.v1',
  messages: [],
  steps: 0,
  task: 't',
  status: 'answered',
  updatedAt: '2025-01-01T00:00:00Z',
};

describe('sessions - snapshots and the in-memory store', () => {
  it('sessions - saves are compare-and-set on the version', async () => {
    const store = new InMemorySessionStore();
    expect(await store.save('s', { a: 1 }, 0)).toBe(1);
    expect(await store.save('s', { a: 2 }, 1)).toBe(2);
    await expect(store.save('s', { a: 3 }, 1)).rejects.toMatchObject({
      code: 'VERSION_CONFLICT',
      message: 'session s is at version 2, not 1: another run wrote it',
    });
    expect(await store.load('s')).toEqual({ snapshot: { a: 2 }, version: 2 });
    expect(await store.load('other')).toBeUndefined();
  });

  it('sessions - a snapshot without calls (older SDKs) reads back; one with calls keeps them', () => {
    expect(readSnapshot('s', VALID as JsonObject).calls).toBeUndefined();
    const call = { id: 'a', tool: 'x_get', resource: 'x', operation: 'get', status: 'ok' };
    expect(readSnapshot('s', { ...VALID, calls: [call] } as JsonObject).calls).toEqual([call]);
  });

  it('sessions - ending is final: same outcome again is the same answer, another one a conflict', async () => {
    const store = new InMemorySessionStore();
    await store.save('s', { a: 1 }, 0);
    expect(await store.end('s', 'succeeded', 1)).toEqual({ version: 2, skillCandidateId: '' });
    expect(await store.end('s', 'succeeded', 1)).toEqual({ version: 2, skillCandidateId: '' });
    await expect(store.end('s', 'failed', 2)).rejects.toMatchObject({
      code: 'VERSION_CONFLICT',
      message: 'session s already ended as succeeded',
    });
    await expect(store.save('s', { a: 2 }, 2)).rejects.toMatchObject({
      code: 'VERSION_CONFLICT',
      message: expect.stringContaining('ended (succeeded) and takes no more snapshots') as string,
    });
    await expect(store.end('none', 'failed', 1)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await store.load('s')).toEqual({
      snapshot: { a: 1 },
      version: 2,
      ended: { outcome: 'succeeded' },
    });
  });

  it.each([
    [{ format: 'x' }, 'format'],
    [{ format: 'tollgate.agent.v1', messages: 'no' }, 'messages'],
    [
      { format: 'tollgate.agent.v1', messages: [{ role: 'tool', content: 'x' }] },
      'messages[0].tool_call_id',
    ],
    [
      {
        format: 'tollgate.agent.v1',
        messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'a', function: {} }] }],
      },
      'messages[0].tool_calls[0].function',
    ],
    [{ format: 'tollgate.agent.v1', messages: [], steps: -1 }, 'steps'],
    [{ ...VALID, calls: 'no' }, 'calls'],
    [{ ...VALID, calls: [{ id: 'a', tool: 't', resource: 'r' }] }, 'calls[0].operation'],
    [
      {
        ...VALID,
        calls: [{ id: 'a', tool: 't', resource: 'r', operation: 'get', status: 'done' }],
      },
      'calls[0].status',
    ],
  ])('sessions - a stored snapshot %j is refused naming %s', (json, path) => {
    expect(() => readSnapshot('s1', json as JsonObject)).toThrow(
      `session s1: the stored snapshot has no valid ${path} `,
    );
  });
});

describe('sessions - bounding the conversation', () => {
  const turn = (n: number): ConversationMessage[] => [
    { role: 'user', content: `question ${n}` },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `c${n}`, type: 'function', function: { name: 't', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: `c${n}`, content: 'x'.repeat(200) },
    { role: 'assistant', content: `answer ${n}` },
  ];
  const conversation: ConversationMessage[] = [
    { role: 'system', content: 'be brief' },
    ...turn(1),
    ...turn(2),
    ...turn(3),
  ];

  it('sessions - within the budget nothing is dropped', () => {
    expect(trimConversation(conversation, 100_000)).toEqual({ messages: conversation, dropped: 0 });
  });

  it('sessions - the oldest whole turns go first; the system prompt and the latest turn stay', () => {
    const size = (m: ConversationMessage[]) => Buffer.byteLength(JSON.stringify(m));
    const budget = size([conversation[0]!, ...turn(2), ...turn(3)]);
    const trimmed = trimConversation(conversation, budget);
    expect(trimmed).toEqual({ messages: [conversation[0], ...turn(2), ...turn(3)], dropped: 4 });
    expect(trimConversation(conversation, 10)).toEqual({
      messages: [conversation[0], ...turn(3)],
      dropped: 8,
    });
  });
});
