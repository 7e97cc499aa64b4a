import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolDefinition as WireTool } from '@tollgate/contracts/tools/v1';
import { PolicySubject, ResourceChange } from '@tollgate/contracts/events/v1';
import type { ResourceDescriptor } from '@tollgate/core';
import {
  EventPublisher,
  EventTypes,
  envelope,
  publishEnvelope,
  resourceKey,
  withdrawalKey,
} from '@tollgate/kit';
import { published } from './support/fixtures.js';
import { eventually, ok, startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';
import { ORDER_FIELDS, resource } from './support/fixtures.js';
import { TENANT, ops, ordersBundle, ordersV1, support } from './support/orders.js';

const ordersV2: ResourceDescriptor = resource(TENANT, 'es_orders', {
  description: 'Orders of the web shop and the marketplace, one document per order.',
  fields: {
    ...ORDER_FIELDS,
    channel: { type: 'keyword', filterable: true, returnable: true, description: 'Sales channel' },
  },
  access: ordersV1.spec.access,
});

let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

afterAll(async () => {
  await h?.close();
});

/** Starts a synthesizer serving orders v1 to support and ops. */
async function started(watch = true, withdrawn?: Record<string, unknown>): Promise<Harness> {
  const harness = await startHarness({ watch, ...(withdrawn ? { withdrawn } : {}) });
  await harness.putResource(ordersV1, 1);
  await harness.putBundle(ordersBundle(1, [{ descriptor: ordersV1, version: 1 }]), {
    loaded: watch,
  });
  return harness;
}

const searchOf = (tools: WireTool[]) => tools.find((t) => t.name === 'es_orders_search');

/** Polls ListTools until `check` holds on the tools; returns them. */
async function until(
  harness: Harness,
  principal: typeof ops,
  check: (tools: WireTool[]) => boolean,
): Promise<WireTool[]> {
  const token = await harness.token(principal);
  return eventually(async () => {
    const answer = await harness.listTools(token, { task: 'orders' });
    return answer.ok && check(answer.value) ? answer.value : undefined;
  }, 30_000);
}

describe('synthesizer - hot reload from KV', () => {
  beforeEach(async () => {
    h = await started();
    await until(h, ops, (tools) => searchOf(tools)?.resourceVersion === 1);
  });

  it('hot reload - a changed descriptor and bundle show in the next listings without restart', async () => {
    const harness = h as Harness;
    const before = searchOf(await until(harness, ops, () => true));
    await harness.putResource(ordersV2, 2);
    await harness.putBundle(ordersBundle(2, [{ descriptor: ordersV2, version: 2 }]));
    const after = searchOf(
      await until(harness, ops, (tools) =>
        JSON.stringify(searchOf(tools)?.inputSchema).includes('"channel"'),
      ),
    );
    expect(after?.resourceVersion).toBe(2);
    expect(after?.description).toContain('marketplace');
    expect(after?.version).not.toBe(before?.version);
  });

  it('hot reload - a descriptor ahead of its bundle offers only fields the bundle permits', async () => {
    const harness = h as Harness;
    await harness.putResource(ordersV2, 2);
    const tools = await until(harness, ops, (t) => searchOf(t)?.resourceVersion === 2);
    expect(searchOf(tools)?.description).toContain('marketplace');
    expect(JSON.stringify(searchOf(tools)?.inputSchema)).not.toContain('"channel"');
  });

  it('hot reload - a bundle naming fields the descriptor no longer declares drops them, no error', async () => {
    const harness = h as Harness;
    const { status: _status, ...fewer } = ORDER_FIELDS;
    const ordersV3 = resource(TENANT, 'es_orders', { fields: fewer, access: ordersV1.spec.access });
    await harness.putResource(ordersV3, 3);
    const tools = await until(harness, ops, (t) => searchOf(t)?.resourceVersion === 3);
    expect(JSON.stringify(searchOf(tools)?.inputSchema)).not.toContain('"status"');
    expect(harness.lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
  });

  it('hot reload - a policy change takes a resource away, a deletion removes it', async () => {
    const harness = h as Harness;
    const opsOnly = resource(TENANT, 'es_orders', {
      access: { allowedRoles: ['order_ops'], maxLimit: 100 },
    });
    await harness.putBundle(ordersBundle(2, [{ descriptor: opsOnly, version: 1 }]));
    await until(harness, support, (tools) => tools.length === 0);
    expect(searchOf(await until(harness, ops, () => true))).toBeDefined();
    await harness.deleteResource(TENANT, 'prod', 'es_orders');
    await until(harness, ops, (tools) => tools.length === 0);
  });

  it('hot reload - an older bundle version is refused and the newer one kept', async () => {
    const harness = h as Harness;
    const opsOnly = resource(TENANT, 'es_orders', {
      access: { allowedRoles: ['order_ops'], maxLimit: 100 },
    });
    await harness.putBundle(ordersBundle(5, [{ descriptor: opsOnly, version: 1 }]));
    await until(harness, support, (tools) => tools.length === 0);
    await harness.putBundle(ordersBundle(4, [{ descriptor: ordersV1, version: 1 }]), {
      loaded: false,
    });
    await eventually(() =>
      harness.lines.some((l) => l.msg === 'policy bundle refused' && l.change === 'kept')
        ? true
        : undefined,
    );
    expect(ok(await harness.listTools(await harness.token(support), { task: 'orders' }))).toEqual(
      [],
    );
  });

  it('hot reload - an entry that is not a valid PublishedResource is refused and what it replaced withdrawn', async () => {
    const harness = h as Harness;
    const broken = { ...published(ordersV2, 2), descriptor: { ...ordersV2, kind: 'Agent' } };
    await harness.resources.put(resourceKey(TENANT, 'prod', 'es_orders'), JSON.stringify(broken));
    await until(harness, ops, (tools) => tools.length === 0);
    const refusal = harness.lines.find((l) => l.msg === 'resource entry rejected; not offered');
    expect(refusal).toMatchObject({
      key: 'team-a.prod.es_orders',
      reason: 'descriptor is not a Resource',
    });
  });
});

describe('synthesizer - change events', () => {
  it('events - without watching KV, resource.changed and policy.changed alone bring the changes', async () => {
    h = await started(false);
    const harness = h;
    const events = new EventPublisher(harness.nc);
    // Nothing was loaded at start (no watch): the events bring both the bundle and the resource.
    const policy = ordersBundle(1, [{ descriptor: ordersV1, version: 1 }]);
    await publishEnvelope(
      events,
      envelope(EventTypes.policyChanged, TENANT, {
        case: 'policyChanged',
        value: {
          tenant: TENANT,
          subject: PolicySubject.POLICY,
          name: 'p',
          version: 1,
          bundleHash: policy.hash,
        },
      }),
    );
    await publishEnvelope(
      events,
      envelope(EventTypes.resourceChanged, TENANT, {
        case: 'resourceChanged',
        value: {
          tenant: TENANT,
          environment: 'prod',
          name: 'es_orders',
          version: 1,
          change: ResourceChange.APPLIED,
        },
      }),
    );
    await until(harness, ops, (tools) => searchOf(tools)?.resourceVersion === 1);
    await harness.putResource(ordersV2, 2);
    await publishEnvelope(
      events,
      envelope(EventTypes.resourceChanged, TENANT, {
        case: 'resourceChanged',
        value: {
          tenant: TENANT,
          environment: 'prod',
          name: 'es_orders',
          version: 2,
          previousVersion: 1,
          change: ResourceChange.APPLIED,
        },
      }),
    );
    await until(harness, ops, (tools) => searchOf(tools)?.resourceVersion === 2);
  });
});

describe('synthesizer - withdrawals recorded by executors', () => {
  const searchKey = withdrawalKey(TENANT, 'prod', 'es_orders', 'search');
  const record = (resourceVersion: number) => ({
    resourceVersion,
    parts: ['description'],
    at: new Date().toISOString(),
  });

  it('withdrawals - those recorded before the synthesizer started are honoured in any order; a newer version brings the tool back', async () => {
    // Replayed before the resource is known: the version-1 record of count comes after the
    // version-2 record of search and must not replace it.
    h = await startHarness({
      withdrawn: {
        [searchKey]: record(2),
        [withdrawalKey(TENANT, 'prod', 'es_orders', 'count')]: record(1),
      },
    });
    const harness = h;
    await harness.putResource(ordersV1, 2);
    await harness.putBundle(ordersBundle(2, [{ descriptor: ordersV1, version: 2 }]));
    const tools = await until(harness, ops, (listed) => listed.length > 0);
    expect(searchOf(tools)).toBeUndefined();
    expect(tools.map((t) => t.name)).toContain('es_orders_count');
    await harness.putResource(ordersV1, 3);
    await harness.putBundle(ordersBundle(3, [{ descriptor: ordersV1, version: 3 }]));
    const again = await until(harness, ops, (listed) => searchOf(listed) !== undefined);
    expect(searchOf(again)?.resourceVersion).toBe(3);
  });

  it('withdrawals - one recorded while running withdraws without any event; a malformed one is ignored', async () => {
    h = await started();
    const harness = h;
    const before = await until(harness, ops, (listed) => searchOf(listed) !== undefined);
    await harness.withdrawals.put(searchKey, JSON.stringify(record(1)));
    await harness.withdrawals.put(
      withdrawalKey(TENANT, 'prod', 'es_orders', 'count'),
      '{"resourceVersion":"two"}',
    );
    // A record naming no version would withdraw every later version too: ignored as well.
    await harness.withdrawals.put(
      withdrawalKey(TENANT, 'prod', 'es_orders', 'get'),
      '{"resourceVersion":0}',
    );
    await eventually(
      () =>
        harness.lines.filter((l) => l.msg === 'withdrawal record not understood; ignored').length >=
        2
          ? true
          : undefined,
      10_000,
    );
    const tools = await until(harness, ops, (listed) => listed.length > 0 && !searchOf(listed));
    // Only search went; the malformed records withdrew nothing.
    expect(tools.map((t) => t.name).sort()).toEqual(
      before
        .map((t) => t.name)
        .filter((name) => name !== 'es_orders_search')
        .sort(),
    );
  });
});
