import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResourceChange } from '@tollgate/contracts/events/v1';
import {
  UNRESTRICTED_CREDENTIAL_NAMESPACES,
  UNRESTRICTED_EGRESS_RULES,
  parsePublishedResource,
} from '@tollgate/core';
import type { Principal, PublishedResource } from '@tollgate/core';
import { EventPublisher, createLogger, openBucket, resourceKey } from '@tollgate/kit';
import {
  COLLECTIONS,
  Catalog,
  Projector,
  Registry,
  ResourceStore,
  announceChanges,
  changeEventId,
  toVersionDocument,
} from '../src/index.js';
import {
  eventually,
  infra,
  resourceDescriptor,
  startHarness,
  uniqueTenant,
  watchResourceEvents,
} from './harness.js';
import type { Harness } from './harness.js';
import { connectTestBus } from '../../../test/support/bus.js';
import { resourceKinds } from '@tollgate/kinds';

let h: Harness;
let events: Awaited<ReturnType<typeof watchResourceEvents>>;

beforeAll(async () => {
  h = await startHarness();
  events = await watchResourceEvents(h.nc);
});
afterAll(async () => {
  await events?.stop();
  await h?.close();
});

const operator = (tenant: string): Principal => ({
  tenant,
  agent: 'operator',
  environment: 'prod',
});

async function published(tenant: string, name: string): Promise<PublishedResource | undefined> {
  const entry = await h.parts.kv.get(resourceKey(tenant, 'prod', name));
  if (entry === null || entry.operation !== 'PUT') return undefined;
  const parsed = parsePublishedResource(entry.value);
  if ('invalid' in parsed) throw new Error(parsed.invalid);
  return parsed;
}

function eventsOf(tenant: string) {
  return events.events
    .filter((e) => e.tenant === tenant)
    .map((e) => (e.payload.case === 'resourceChanged' ? e.payload.value : undefined));
}

describe('projection', () => {
  it('projection - an apply lands in the KV bucket and is announced on JetStream', async () => {
    const tenant = uniqueTenant();
    const { record } = await h.parts.registry.apply(
      operator(tenant),
      resourceDescriptor(tenant, 'es_orders'),
    );
    const entry = await eventually(() => published(tenant, 'es_orders'), 10_000);
    expect(entry).toMatchObject({
      tenant,
      environment: 'prod',
      name: 'es_orders',
      version: 1,
      hash: record.hash,
    });
    expect(entry.descriptor).toEqual(record.descriptor);
    expect(entry.descriptor.spec.access.maxLimit).toBe(100);

    const [event] = await eventually(
      () => (eventsOf(tenant).length === 1 ? eventsOf(tenant) : undefined),
      10_000,
    );
    expect(event).toMatchObject({
      tenant,
      environment: 'prod',
      name: 'es_orders',
      version: 1,
      previousVersion: 0,
      change: ResourceChange.APPLIED,
      contentHash: record.hash,
      changedBy: 'operator',
    });
    const envelope = events.events.find((e) => e.tenant === tenant);
    expect(envelope?.eventId).toBe(changeEventId(record));

    await h.parts.registry.apply(operator(tenant), resourceDescriptor(tenant, 'es_orders'));
    await h.parts.registry.apply(
      operator(tenant),
      resourceDescriptor(tenant, 'es_orders', { description: 'v2' }),
    );
    await eventually(
      async () => ((await published(tenant, 'es_orders'))?.version === 2 ? true : undefined),
      10_000,
    );
    const versions = await eventually(
      () => (eventsOf(tenant).length === 2 ? eventsOf(tenant).map((e) => e?.version) : undefined),
      10_000,
    );
    expect(versions).toEqual([1, 2]);
  });

  it('projection - delete removes the KV entry and announces DELETED; rollback revives it', async () => {
    const tenant = uniqueTenant();
    await h.parts.registry.apply(operator(tenant), resourceDescriptor(tenant, 'es_orders'));
    await h.parts.registry.delete(operator(tenant), { name: 'es_orders' });
    await eventually(
      async () => ((await published(tenant, 'es_orders')) === undefined ? true : undefined),
      10_000,
    );
    const deleted = await eventually(
      () => eventsOf(tenant).find((e) => e?.change === ResourceChange.DELETED),
      10_000,
    );
    expect(deleted).toMatchObject({ version: 2, previousVersion: 1 });

    await h.parts.registry.rollback(operator(tenant), { name: 'es_orders', toVersion: 1 });
    const back = await eventually(() => published(tenant, 'es_orders'), 10_000);
    expect(back.version).toBe(3);
    await eventually(
      () => eventsOf(tenant).find((e) => e?.change === ResourceChange.ROLLED_BACK),
      10_000,
    );
  });

  it('projection - the reconciler restores a missing entry, a stale one and removes one no resource backs', async () => {
    const tenant = uniqueTenant();
    await h.parts.registry.apply(operator(tenant), resourceDescriptor(tenant, 'es_orders'));
    await h.parts.registry.apply(operator(tenant), resourceDescriptor(tenant, 'es_billing'));
    await eventually(() => published(tenant, 'es_billing'), 10_000);

    await h.parts.kv.delete(resourceKey(tenant, 'prod', 'es_orders'));
    const stale = { ...(await published(tenant, 'es_billing')), version: 1, hash: 'stale' };
    await h.parts.kv.put(resourceKey(tenant, 'prod', 'es_billing'), JSON.stringify(stale));
    await h.parts.kv.put(
      resourceKey(tenant, 'prod', 'es_ghost'),
      JSON.stringify({ ...stale, name: 'es_ghost' }),
    );
    await eventually(async () =>
      (await published(tenant, 'es_orders')) === undefined ? true : undefined,
    );

    // A pass repairs what the bucket watch has seen by then; poll until all three are repaired.
    await eventually(async () => {
      await h.parts.reconciler.runOnce();
      const [orders, billing, ghost] = await Promise.all(
        ['es_orders', 'es_billing', 'es_ghost'].map((name) => published(tenant, name)),
      );
      return orders !== undefined && billing?.hash !== 'stale' && ghost === undefined
        ? true
        : undefined;
    }, 10_000);
    expect((await published(tenant, 'es_orders'))?.version).toBe(1);
    expect((await published(tenant, 'es_billing'))?.hash).not.toBe('stale');
    expect(await published(tenant, 'es_ghost')).toBeUndefined();
    expect((await h.parts.reconciler.runOnce()).repaired).toBe(0);
  });

  it('projection - a change whose projection failed (NATS gone) converges through the reconciler', async () => {
    const tenant = uniqueTenant();
    const broken = await connectTestBus({ url: infra.natsUrl, name: 'registry-test-broken' });
    const kv = await openBucket(broken, h.bucket);
    const store = new ResourceStore(h.mongo.db);
    const projector = new Projector({ kv, events: new EventPublisher(broken), store });
    const logger = createLogger({ service: 'registry-test', level: 'silent' });
    const isolated = new Registry({
      store,
      catalog: new Catalog(),
      changes: announceChanges(projector, logger),
      credentialNamespaces: UNRESTRICTED_CREDENTIAL_NAMESPACES,
      egressRules: UNRESTRICTED_EGRESS_RULES,
      kinds: resourceKinds,
    });
    await broken.close();

    const { record } = await isolated.apply(
      operator(tenant),
      resourceDescriptor(tenant, 'es_orders'),
    );
    expect(record.version).toBe(1);
    expect(await published(tenant, 'es_orders')).toBeUndefined();

    await h.parts.reconciler.runOnce();
    expect((await published(tenant, 'es_orders'))?.version).toBe(1);
    await eventually(() => eventsOf(tenant).find((e) => e?.version === 1), 10_000);
  });

  it('projection - a change whose resource.changed publish failed after its KV write is announced by the next pass', async () => {
    const tenant = uniqueTenant();
    const store = new ResourceStore(h.mongo.db);
    /** JetStream refuses the event (a NATS outage between the KV write and the publish). */
    class RefusingPublisher extends EventPublisher {
      override publish(): never {
        throw new Error('TIMEOUT: JetStream did not acknowledge the publish');
      }
    }
    const projector = new Projector({
      kv: h.parts.kv,
      events: new RefusingPublisher(h.nc),
      store,
    });
    const isolated = new Registry({
      store,
      catalog: new Catalog(),
      changes: announceChanges(projector, createLogger({ service: 't', level: 'silent' })),
      credentialNamespaces: UNRESTRICTED_CREDENTIAL_NAMESPACES,
      egressRules: UNRESTRICTED_EGRESS_RULES,
      kinds: resourceKinds,
    });
    const { record } = await isolated.apply(
      operator(tenant),
      resourceDescriptor(tenant, 'es_orders'),
    );
    // The projection landed, the announcement did not.
    expect((await published(tenant, 'es_orders'))?.version).toBe(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(eventsOf(tenant)).toEqual([]);

    const pass = await eventually(async () => {
      const report = await h.parts.reconciler.runOnce();
      return eventsOf(tenant).length > 0 ? report : undefined;
    }, 10_000);
    expect(pass.repaired).toBe(0);
    const [event] = eventsOf(tenant);
    expect(event).toMatchObject({
      tenant,
      name: 'es_orders',
      version: 1,
      contentHash: record.hash,
    });
    // Announced once: the next passes find it recorded and publish nothing more.
    await h.parts.reconciler.runOnce();
    await new Promise((r) => setTimeout(r, 300));
    expect(eventsOf(tenant)).toHaveLength(1);
    expect(
      await store.unannounced([{ tenant, environment: 'prod', name: 'es_orders', version: 1 }]),
    ).toEqual([]);
  });

  it('projection - at start-up a version whose projection was lost (its instance died) is listed and projected', async () => {
    const tenant = uniqueTenant();
    const { record } = await h.parts.registry.apply(
      operator(tenant),
      resourceDescriptor(tenant, 'es_orders'),
    );
    await eventually(() => published(tenant, 'es_orders'), 10_000);
    // A change committed (its row written) by an instance that died before anything else.
    const metadata = { ...record.descriptor.metadata, description: 'committed, then crashed' };
    const crashed = {
      ...record,
      version: 2,
      previousVersion: 1,
      descriptor: { ...record.descriptor, metadata },
    };
    await h.mongo.db
      .collection(COLLECTIONS.versions)
      .insertOne(toVersionDocument(`${tenant}/prod/es_orders/2`, crashed) as never);

    const restarted = await h.startInstance();
    const listed = restarted.parts.registry.list(operator(tenant), {
      labels: {},
      type: undefined,
      includeDeleted: false,
      pageSize: 10,
      pageToken: '',
    });
    expect(listed.records.map((r) => r.version)).toEqual([2]);
    await eventually(
      async () => ((await published(tenant, 'es_orders'))?.version === 2 ? true : undefined),
      10_000,
    );
    expect((await published(tenant, 'es_orders'))?.descriptor.metadata.description).toBe(
      'committed, then crashed',
    );
  });

  it("catalog - a change made by another registry instance reaches this instance's List", async () => {
    const tenant = uniqueTenant();
    const other = await h.startInstance();
    await other.parts.registry.apply(operator(tenant), resourceDescriptor(tenant, 'es_orders'));
    const listed = () =>
      h.parts.registry
        .list(operator(tenant), {
          labels: {},
          type: undefined,
          includeDeleted: true,
          pageSize: 10,
          pageToken: '',
        })
        .records.map((r) => [r.name, r.version, r.deleted]);
    await eventually(() => (listed().length === 1 ? true : undefined), 10_000);
    await other.parts.registry.delete(operator(tenant), { name: 'es_orders' });
    await eventually(() => (listed()[0]?.[2] === true ? true : undefined), 10_000);
    expect(listed()).toEqual([['es_orders', 2, true]]);
  });
});
