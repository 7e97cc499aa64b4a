/**
 * What the executor does with a withdrawal a connector reports (the mcp kind's sessions report
 * them when a pinned tool changes upstream): it records and announces it for the version whose
 * spec the session pinned, and for nothing newer. A session of an older spec can notice the
 * change after the operator confirmed a version that pins the tool again; that version must not
 * be withdrawn (and, with the record kept, withdrawn for good).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalHash, createConnectorRegistry } from '@tollgate/core';
import type { OperationWithdrawal } from '@tollgate/core';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  EVENTS_STREAM,
  EventPublisher,
  EventTypes,
  ResourceCatalog,
  buckets,
  createLogger,
  ensureEventStream,
  openBucket,
  withdrawalKey,
} from '@tollgate/kit';
import type { KV } from '@tollgate/kit';
import { elasticsearchConnector } from '@tollgate/connector-elasticsearch';
import { ordersResource } from '../../../test/fixtures/orders.js';
import { eventually } from '../../../test/support/infra.js';
import { announceWithdrawals } from '../src/withdrawals.js';
import { ENV, ES_URL, TENANT, startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';

let h: Harness;
let store: KV;
let catalog: ResourceCatalog;
let report: ((w: OperationWithdrawal) => void) | undefined;
let stop: () => void;

const v1 = ordersResource({ endpoint: ES_URL, index: 'tg_withdrawals', timeoutMs: 4_000 });
const v2 = ordersResource({ endpoint: ES_URL, index: 'tg_withdrawals', timeoutMs: 5_000 });

beforeAll(async () => {
  h = await startHarness({ noExecutor: true });
  // Withdrawals are stored in the events stream (audit reads them there).
  await ensureEventStream(h.nc);
  await h.publishResource(v1, 1);
  await h.publishResource(v2, 2);
  const logger = createLogger({ service: 'withdrawals-test', level: 'silent' });
  catalog = await ResourceCatalog.follow(h.resourcesKv, logger);
  store = await openBucket(h.nc, buckets.withdrawals);
  // The resource's own connector, reporting a changed pin when the test says so (as the mcp
  // kind's sessions do when an upstream redefines a pinned tool).
  const tap = {
    ...elasticsearchConnector,
    onWithdrawal: (listener: ((w: OperationWithdrawal) => void) | undefined) => {
      report = listener;
    },
  };
  stop = announceWithdrawals({
    connectors: createConnectorRegistry([tap]),
    resources: catalog,
    events: new EventPublisher(h.nc),
    store,
    logger,
  });
  await eventually(
    () =>
      catalog.get({ tenant: TENANT, environment: ENV }, 'es_orders')?.version === 2
        ? true
        : undefined,
    10_000,
  );
});

afterAll(async () => {
  stop?.();
  catalog?.stop();
  await h?.stop();
});

const withdrawal = (spec: unknown, operation: string): OperationWithdrawal => ({
  tenant: TENANT,
  environment: ENV,
  resource: 'es_orders',
  operation,
  specHash: canonicalHash(spec),
  changes: [{ part: 'description', pinned: 'a', live: 'b' }],
});

const announced = (operation: string) =>
  h.events.filter(
    (e) => e.payload.case === 'toolWithdrawn' && e.payload.value.operation === operation,
  );

describe('withdrawals', () => {
  it('withdrawals - one reported for the current spec is recorded and announced with its version', async () => {
    report!(withdrawal(v2.spec, 'search'));
    const recorded = await eventually(
      async () => (await store.get(withdrawalKey(TENANT, ENV, 'es_orders', 'search')))?.json(),
      10_000,
    );
    expect(recorded).toMatchObject({ resourceVersion: 2, parts: ['description'] });
    const [event] = await eventually(
      () => (announced('search').length > 0 ? announced('search') : undefined),
      10_000,
    );
    expect(event?.type).toBe(EventTypes.toolWithdrawn);
  });

  it('withdrawals - the same withdrawal reported twice (every executor of the resource notices it) is stored in the stream once', async () => {
    const jsm = await jetstreamManager(h.nc);
    const stored = async () => (await jsm.streams.info(EVENTS_STREAM)).state.messages;
    report!(withdrawal(v2.spec, 'aggregate'));
    await eventually(() => (announced('aggregate').length === 1 ? true : undefined), 10_000);
    const before = await stored();
    report!(withdrawal(v2.spec, 'aggregate'));
    const [first, second] = await eventually(
      () => (announced('aggregate').length === 2 ? announced('aggregate') : undefined),
      10_000,
    );
    expect(second!.eventId).toBe(first!.eventId);
    // JetStream keeps one message per event id; audit keys its record by it too.
    expect(await stored()).toBe(before);
  });

  it('withdrawals - one reported by a session of a superseded spec withdraws nothing', async () => {
    report!(withdrawal(v1.spec, 'count'));
    // The current one, reported after it, shows the first was handled (in order) and dropped.
    report!(withdrawal(v2.spec, 'get'));
    await eventually(
      async () => (await store.get(withdrawalKey(TENANT, ENV, 'es_orders', 'get')))?.json(),
      10_000,
    );
    expect(await store.get(withdrawalKey(TENANT, ENV, 'es_orders', 'count'))).toBeNull();
    expect(announced('count')).toEqual([]);
  });
});
