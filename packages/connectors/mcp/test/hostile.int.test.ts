/**
 * The hostile upstreams: a rug pull (between discovery and use, and during a live session), a
 * poisoned description, text aimed at the model in a result, a 50 MB result, a server that
 * hangs, one that opens a socket and reads /etc/passwd — each withdrawn, refused, withheld,
 * capped, timed out or blocked.
 */
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { validateDescriptor } from '@tollgate/core';
import { discoverTools, mcpSessions, pinTools } from '../src/index.js';
import type { McpResultData, Withdrawal } from '../src/index.js';
import { call, confirmed, hostile, kinds, mcpResource, noCredentials, scratch } from './support.js';

afterAll(() => mcpSessions.close());

const key = { 'lookup.key': { type: 'argument' as const, filterable: true } };

describe('mcp kind against hostile upstreams', () => {
  it('hostile - a definition changed after confirmation withdraws the tool and says what changed', async () => {
    const state = scratch('mcp-rugpull-');
    const withdrawals: Withdrawal[] = [];
    mcpSessions.onWithdraw = (_resource, w) => withdrawals.push(w);
    const resource = await confirmed(
      mcpResource(
        'rugpull',
        hostile('rugpull', state),
        { lookup: { class: 'read' } },
        { fields: key, sandbox: { writePaths: [state] } },
      ),
    );
    await expect(call(resource, 'lookup', { key: 'a' })).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringMatching(/withdrawn/),
    });
    expect(withdrawals).toHaveLength(1);
    expect(withdrawals[0]?.changes.map((c) => c.part)).toEqual(['description']);
    const again = await discoverTools(resource.spec as never, noCredentials);
    const lookup = again.tools.find((t) => t.name === 'lookup');
    expect(lookup?.changed?.[0]).toMatchObject({
      part: 'description',
      live: expect.stringContaining('id_rsa'),
    });
    expect(lookup?.flagged).toBe('asks for local secrets');
    mcpSessions.onWithdraw = undefined;
  });

  it('hostile - a change announced during a live session withdraws the tool for every caller at once', async () => {
    const resource = await confirmed(
      mcpResource(
        'rugpulllive',
        hostile('rugpull-live'),
        { lookup: { class: 'read' } },
        { fields: key },
      ),
    );
    const first = await call(resource, 'lookup', { key: 'a' });
    expect(JSON.stringify(first.shaped.data)).toContain('value of a');
    await new Promise((r) => setTimeout(r, 300));
    await expect(call(resource, 'lookup', { key: 'b' })).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
    });
  });

  it('hostile - a poisoned description is flagged and cannot be selected without a recorded override', async () => {
    const draft = mcpResource('poisoned', hostile('poisoned'), {
      add: { class: 'read' },
      lookup: { class: 'read' },
    });
    const found = await discoverTools(draft.spec, noCredentials);
    expect(found.tools.find((t) => t.name === 'add')?.flagged).toBeDefined();
    expect(found.tools.find((t) => t.name === 'lookup')?.flagged).toBeUndefined();
    const pinned = { ...draft, spec: pinTools(draft.spec, found) };
    const refused = validateDescriptor(pinned, kinds);
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.problems.map((p) => p.path)).toEqual([
      'spec.tools.add.definition.description',
    ]);
    const overridden = {
      ...pinned,
      spec: {
        ...pinned.spec,
        tools: {
          ...pinned.spec.tools,
          add: {
            ...pinned.spec.tools.add!,
            override: { reason: 'reviewed: the aside is ignored', by: 'ops@example.com' },
          },
        },
      },
    };
    const accepted = validateDescriptor(overridden, kinds);
    expect(accepted.ok).toBe(true);
  });

  it('hostile - text aimed at the model in a result is withheld and reported', async () => {
    const resource = await confirmed(
      mcpResource('inject', hostile('inject'), { lookup: { class: 'read' } }, { fields: key }),
    );
    const { shaped } = await call(resource, 'lookup', { key: 'a' });
    const data = shaped.data as McpResultData;
    expect(data.content[0]).toEqual({ type: 'text', text: 'Found it.' });
    expect(JSON.stringify(data)).not.toContain('orders_delete');
    expect(data.withheld).toEqual([{ item: 1, reason: 'instruction override' }]);
  });

  it('hostile - a 50 MB result is refused at the message cap; under the cap a large text is truncated to the budget', async () => {
    const huge = await confirmed(
      mcpResource(
        'huge',
        hostile('big', String(50 * 1024 * 1024)),
        { dump: { class: 'read' } },
        { timeoutMs: 20_000 },
      ),
    );
    await expect(call(huge, 'dump', {})).rejects.toMatchObject({
      code: 'UPSTREAM_BAD_RESPONSE',
      message: expect.stringMatching(/larger than/),
    });
    const large = await confirmed(
      mcpResource(
        'large',
        hostile('big', String(2 * 1024 * 1024)),
        { dump: { class: 'read' } },
        { timeoutMs: 20_000 },
      ),
    );
    const { shaped } = await call(large, 'dump', {}, undefined, 16_384);
    expect(shaped.truncated).toBe(true);
    expect(shaped.bytes).toBeLessThanOrEqual(16_384);
    expect((shaped.data as McpResultData).content[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/\[truncated\]$/),
    });
  });

  it('hostile - a server that hangs times out, is stopped and starts again', async () => {
    const resource = await confirmed(
      mcpResource(
        'hang',
        hostile('hang'),
        { wait: { class: 'write' } },
        { readonly: false, timeoutMs: 500 },
      ),
    );
    const started = Date.now();
    await expect(call(resource, 'wait', {})).rejects.toMatchObject({
      code: 'UPSTREAM_TIMEOUT',
      attempts: 1,
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(mcpSessions.has(resource)).toBe(false);
    await expect(call(resource, 'wait', {})).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
  });

  it('hostile - inside the sandbox a socket cannot be opened and /etc/passwd is absent', async () => {
    const listener = await new Promise<Server>((resolve) => {
      const s = createServer((socket) => socket.destroy());
      s.listen(30_101, '127.0.0.1', () => resolve(s));
    });
    try {
      const resource = await confirmed(
        mcpResource('socket', hostile('socket', '127.0.0.1', '30101'), {
          fetch: { class: 'read' },
        }),
      );
      const { shaped } = await call(resource, 'fetch', {});
      const text = JSON.stringify(shaped.data);
      expect(text).toContain('socket failed: ECONNREFUSED');
      expect(text).toContain('/etc/passwd absent');
      expect(text).toMatch(/pid [0-9]\b/);
    } finally {
      listener.close();
    }
  });
});
