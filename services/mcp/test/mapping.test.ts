import { describe, expect, it } from 'vitest';
import { annotationsFor, mcpTool, operationClass } from '../src/mcp/tools.js';
import { callToolResult } from '../src/mcp/results.js';
import { callStatusArgs, findToolsArgs } from '../src/mcp/gateway-tools.js';
import { derivedIdempotencyKey } from '../src/gateway/gateway.js';
import { PrincipalRateLimiter } from '../src/http/rate-limit.js';

const tool = (operation: string) => ({
  name: `orders_${operation}`,
  description: 'Orders.',
  version: 'v1',
  operation,
  resource: 'orders',
  inputSchema: {
    type: 'object',
    properties: { id: { type: 'string' } },
    additionalProperties: false,
  },
  callSubject: 'tollgate.v1.call.x.orders',
});

describe('mapping - tools', () => {
  it('mapping - reads are read-only, writes idempotent, unknown operations destructive', () => {
    expect(
      ['search', 'get', 'count', 'aggregate'].map((o) => operationClass({ operation: o })),
    ).toEqual(['read', 'read', 'read', 'read']);
    expect(annotationsFor({ operation: 'get' })).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(annotationsFor({ operation: 'write' })).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(annotationsFor({ operation: 'purge' })).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
  });

  it('mapping - the class a kind declares wins over the operation name', () => {
    expect(operationClass({ operation: 'lookup_ticket', operationClass: 'read' })).toBe('read');
    expect(operationClass({ operation: 'search', operationClass: 'destructive' })).toBe(
      'destructive',
    );
    expect(annotationsFor({ operation: 'close_ticket', operationClass: 'write' })).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
    });
  });

  it('mapping - the input schema goes out exactly as synthesized', () => {
    const t = tool('search');
    const mcp = mcpTool(t, { tasks: false });
    expect(mcp.inputSchema).toBe(t.inputSchema);
    expect(mcp.outputSchema).toMatchObject({ type: 'object', required: ['status', 'callId'] });
    expect(mcp.execution).toBeUndefined();
  });
});

describe('mapping - results', () => {
  it('mapping - an ok result carries the envelope and the truncation notice with the next cursor', () => {
    const result = callToolResult({
      status: 'ok',
      callId: 'c1',
      data: [{ id: '1' }],
      meta: { truncated: true, returned: 1, total: 40, nextCursor: 'abc' },
    });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({
      status: 'ok',
      callId: 'c1',
      data: [{ id: '1' }],
      meta: { truncated: true, returned: 1, total: 40, nextCursor: 'abc' },
    });
    expect((result.content[0] as { text: string }).text).toContain(
      'The result was cut to fit the limits: 1 of 40 items returned. Pass "cursor": "abc" for the next page.',
    );
  });

  it.each([
    ['fix_arguments', 'Correct the arguments as described and call again.'],
    ['denied', 'Do not retry: this is not allowed for you.'],
    ['needs_human', 'A person has to act; tell the user.'],
    ['retryable', 'This is temporary: wait a moment and call again'],
    ['internal', 'Tollgate failed on its side; do not retry now'],
  ])('mapping - a %s error says what to do', (category, advice) => {
    const result = callToolResult({
      status: 'error',
      callId: 'c2',
      error: {
        code: 'X',
        category,
        message: 'Something.',
        details: [
          {
            path: 'filters[0].field',
            message: 'not allowed',
            expected: 'one of id, status',
            found: 'secret',
          },
        ],
      },
    });
    expect(result.isError).toBe(true);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toContain(`X (${category}): Something.`);
    expect(text).toContain(
      '- filters[0].field: not allowed (expected one of id, status, found secret)',
    );
    expect(text).toContain(advice);
  });

  it('mapping - a parked call says it waits and how to follow it', () => {
    const result = callToolResult({ status: 'pending_approval', callId: 'c3', approvalId: 'a1' });
    expect(result.isError).toBeUndefined();
    expect((result.content[0] as { text: string }).text).toContain(
      'tollgate_call_status with {"call_id":"c3"}',
    );
    expect(result.structuredContent).toEqual({
      status: 'pending_approval',
      callId: 'c3',
      approvalId: 'a1',
    });
  });

  it("mapping - gateway tools' arguments are checked strictly", () => {
    expect(callStatusArgs({ call_id: 'abc-1' })).toEqual({ callId: 'abc-1' });
    expect(callStatusArgs({ call_id: '../x' })).toMatch(/^call_id:/);
    expect(callStatusArgs({ call_id: 'a', other: 1 })).toMatch(/unknown argument "other"/);
    expect(findToolsArgs({ task: 'find order 12345' })).toEqual({
      task: 'find order 12345',
      topK: 5,
    });
    expect(findToolsArgs({ task: ' ' })).toMatch(/^task:/);
    expect(findToolsArgs({ task: 'x', top_k: 21 })).toMatch(/^top_k:/);
  });

  it('mapping - a write without a key gets one from session, tool and arguments (order-insensitive)', () => {
    const a = derivedIdempotencyKey('s1', 'orders_write', { id: '1', document: { a: 1, b: 2 } });
    expect(a).toBe(
      derivedIdempotencyKey('s1', 'orders_write', { document: { b: 2, a: 1 }, id: '1' }),
    );
    expect(a).not.toBe(
      derivedIdempotencyKey('s2', 'orders_write', { id: '1', document: { a: 1, b: 2 } }),
    );
    expect(a).toMatch(/^mcp-[A-Za-z0-9_-]{40}$/);
  });
});

describe('mapping - rate limits', () => {
  it('mapping - a principal gets its per-minute budget, then waits; others are not affected', () => {
    let now = 0;
    const limiter = new PrincipalRateLimiter(3, () => now);
    expect([1, 2, 3].map(() => limiter.admit('a'))).toEqual([0, 0, 0]);
    expect(limiter.admit('a')).toBe(20);
    expect(limiter.admit('b')).toBe(0);
    now = 20_000;
    expect(limiter.admit('a')).toBe(0);
    expect(limiter.admit('a')).toBeGreaterThan(0);
  });
});
