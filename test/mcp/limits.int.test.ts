/**
 * Per-principal request limits at the MCP edge: a principal over its budget is answered 429
 * with Retry-After before anything is forwarded; another principal is not affected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpStack } from './support/stack.js';
import type { McpStack } from './support/stack.js';

let s: McpStack;

beforeAll(async () => {
  s = await startMcpStack({ rateLimitPerMinute: 3, ports: { mcp: 23083, as: 23093 } });
});
afterAll(async () => {
  await s?.stop();
});

const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

async function ping(token: string): Promise<Response> {
  return fetch(s.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: PING,
  });
}

describe('mcp limits', () => {
  it('mcp limits - the fourth request in a minute is refused with Retry-After; others still pass', async () => {
    const support = await s.agentToken('support_bot');
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      const res = await ping(support);
      statuses.push(res.status);
      if (res.status === 429) {
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
          /Too many requests for this principal/,
        );
      } else await res.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    // The same agent with a fresh token is the same principal: still limited.
    expect((await ping(await s.agentToken('support_bot'))).status).toBe(429);
    const other = await ping(await s.agentToken('ops_bot'));
    expect(other.status).toBe(200);
  });
});
