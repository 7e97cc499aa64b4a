/**
 * An MCP server as a governed resource, through every service on a private NATS with the real
 * subject permissions: the registry pins the selected tool at apply (reading the live server),
 * the synthesizer offers it, the executor calls the sandboxed server over NATS, and audit
 * records the call. Then the server changes the tool under its pin (a rug pull during a live
 * session): the executor refuses it at once and announces `tool.withdrawn`, the synthesizer
 * stops offering it, and audit records the withdrawal with what changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceDescriptor } from '@tollgate/core';
import { operationsOf } from '@tollgate/kinds';
import { buckets, openBucket, withdrawalKey } from '@tollgate/kit';
import { compileBundle } from '@tollgate/policy';
import type { Harness } from '../../services/executor/test/support/harness.js';
import { BusToolSource } from '../../services/mcp/src/gateway/tool-source.js';
import { hostile, mcpResource } from '../../packages/connectors/mcp/test/support.js';
import { ordersAgents } from '../fixtures/orders.js';
import { eventually } from '../support/infra.js';
import { startServices } from './support/services.js';
import type { Services } from './support/services.js';

const operator = { tenant: 'team-a', agent: 'operator', environment: 'test' };

let services: Services;
let h: Harness;

beforeAll(async () => {
  services = await startServices({ name: 'upstream_e2e' });
  h = services.h;
});
afterAll(async () => {
  await services?.stop();
});

/** Audit records of one type, as stored. */
const audited = (type: string) => services.records({ type });

describe('governed upstream', () => {
  it('governed upstream - pinned at apply, offered, called and audited; a rug pull withdraws it everywhere', async () => {
    const declared = mcpResource(
      'catalogue',
      hostile('rugpull-live'),
      { lookup: { class: 'read' } },
      { fields: { 'lookup.key': { type: 'argument', filterable: true } } },
    );
    const applied = await services.registry.registry.apply(operator, declared);
    const stored = applied.record.descriptor;
    expect(
      (stored.spec as unknown as { tools: { lookup: { pin?: string } } }).tools.lookup.pin,
    ).toMatch(/^[0-9a-f]{64}$/);
    const bundle = compileBundle({
      tenant: 'team-a',
      version: 1,
      agents: ordersAgents('team-a'),
      policies: [],
      resources: [
        { descriptor: stored as ResourceDescriptor, version: 1, operations: operationsOf(stored) },
      ],
    });
    if (!bundle.ok) throw new Error(JSON.stringify(bundle.problems));
    await h.bundlesKv.put('team-a', JSON.stringify(bundle.bundle));

    const token = await h.token('support_bot', { environment: 'test' });
    const tools = new BusToolSource(h.nc);
    const offered = await eventually(async () => {
      const listed = await tools.list(token, {}).catch(() => []);
      return listed.some((t) => t.name === 'catalogue_lookup') ? listed : undefined;
    }, 10_000);
    const lookup = offered.find((t) => t.name === 'catalogue_lookup')!;
    expect(lookup.inputSchema).toMatchObject({
      properties: { key: { type: 'string', maxLength: 64 } },
      additionalProperties: false,
    });

    const callOpts = { token, kind: 'mcp', subjectResource: 'catalogue', sessionId: 's-upstream' };
    const first = await h.call('catalogue_lookup', { key: 'a' }, callOpts);
    expect(first.status).toBe('ok');
    expect(JSON.stringify(first.data)).toContain('value of a');
    // Outside the pinned schema: refused before anything reaches the server.
    const bad = await h.call('catalogue_lookup', { key: 'a', extra: 1 }, callOpts);
    expect(bad.error?.category).toBe('fix_arguments');

    // The server announced a changed definition after the first call: withdrawn at once.
    const event = await eventually(() => h.events.find((e) => e.type === 'tool.withdrawn'), 10_000);
    if (event.payload.case !== 'toolWithdrawn') throw new Error('not a withdrawal');
    expect(event.payload.value).toMatchObject({
      tenant: 'team-a',
      environment: 'test',
      resource: 'catalogue',
      resourceVersion: 1,
      operation: 'lookup',
      changes: [
        {
          part: 'description',
          pinned: 'Looks up a key in the catalogue.',
          live: 'Looks up a key (v2).',
        },
      ],
    });
    // Recorded too, so a synthesizer started later still offers it to nobody.
    const withdrawalsKv = await openBucket(h.nc, buckets.withdrawals);
    const recorded = await eventually(
      async () =>
        (await withdrawalsKv.get(withdrawalKey('team-a', 'test', 'catalogue', 'lookup')))?.json(),
      10_000,
    );
    expect(recorded).toMatchObject({ resourceVersion: 1, parts: ['description'] });
    const second = await h.call('catalogue_lookup', { key: 'b' }, callOpts);
    expect(second.status).toBe('error');
    expect(second.error).toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringMatching(/withdrawn/),
    });
    await eventually(async () => {
      const listed = await tools.list(token, {});
      return listed.some((t) => t.name === 'catalogue_lookup') ? undefined : true;
    }, 10_000);

    // Audit holds the call, the refusal and the withdrawal.
    const calls = await eventually(async () => {
      const records = await audited('call.completed');
      return records.length >= 3 ? records : undefined;
    }, 15_000);
    expect(calls.map((r) => [r.tool, r.session_id, r.status])).toEqual(
      expect.arrayContaining([
        ['catalogue_lookup', 's-upstream', 'ok'],
        ['catalogue_lookup', 's-upstream', 'error'],
      ]),
    );
    const withdrawals = await eventually(async () => {
      const records = await audited('tool.withdrawn');
      return records.length > 0 ? records : undefined;
    }, 15_000);
    expect(withdrawals[0]).toMatchObject({
      tenant: 'team-a',
      resource: 'catalogue',
      resource_version: 1,
      tool: 'catalogue_lookup',
    });
  });
});
