import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TollgateError } from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import { COLLECTIONS, toVersionDocument } from '../src/index.js';
import type { Registry } from '../src/index.js';
import { resourceDescriptor, startHarness, uniqueTenant } from './harness.js';
import type { Harness } from './harness.js';

let h: Harness;
let registry: Registry;

beforeAll(async () => {
  h = await startHarness();
  registry = h.parts.registry;
});
afterAll(async () => {
  await h?.close();
});

function operator(tenant: string): Principal {
  return { tenant, agent: 'operator', environment: 'prod' };
}

async function codeOf(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (err) {
    if (err instanceof TollgateError) return err.code;
    throw err;
  }
  throw new Error('expected a TollgateError');
}

describe('versions', () => {
  it('versions - apply makes version 1; the same input is a no-op; a change makes version 2 with its diff', async () => {
    const tenant = uniqueTenant();
    const first = await registry.apply(operator(tenant), resourceDescriptor(tenant, 'es_orders'));
    expect(first.unchanged).toBe(false);
    expect(first.record).toMatchObject({
      version: 1,
      previousVersion: 0,
      change: 'applied',
      createdBy: 'operator',
    });
    expect(first.diff).toContainEqual({ path: 'spec.access.maxLimit', op: 'added', after: 100 });

    const again = await registry.apply(operator(tenant), resourceDescriptor(tenant, 'es_orders'));
    expect(again).toMatchObject({ unchanged: true, diff: [] });
    expect(again.record.version).toBe(1);

    const changed = resourceDescriptor(tenant, 'es_orders');
    (changed.spec as { access: Record<string, unknown> }).access.maxLimit = 50;
    const second = await registry.apply(operator(tenant), changed, { expectedVersion: 1 });
    expect(second.record.version).toBe(2);
    expect(second.diff).toEqual([
      { path: 'spec.access.maxLimit', op: 'changed', before: 100, after: 50 },
    ]);
    expect((await registry.get(operator(tenant), { name: 'es_orders', version: 0 })).version).toBe(
      2,
    );
    expect(
      (await registry.get(operator(tenant), { name: 'es_orders', version: 1 })).descriptor.spec
        .access.maxLimit,
    ).toBe(100);
  });

  it('versions - history lists every version newest first, page by page', async () => {
    const tenant = uniqueTenant();
    for (let i = 1; i <= 5; i++) {
      await registry.apply(
        operator(tenant),
        resourceDescriptor(tenant, 'es_orders', { description: `take ${i}` }),
      );
    }
    const seen: number[] = [];
    let pageToken = '';
    do {
      const page = await registry.history(operator(tenant), {
        name: 'es_orders',
        pageSize: 2,
        pageToken,
      });
      seen.push(...page.records.map((r) => r.version));
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
    expect(seen).toEqual([5, 4, 3, 2, 1]);
    const third = await registry.get(operator(tenant), { name: 'es_orders', version: 3 });
    expect(third.descriptor.metadata.description).toBe('take 3');
  });

  it('versions - of 10 concurrent applies from the same expected version exactly one wins', async () => {
    const tenant = uniqueTenant();
    await registry.apply(operator(tenant), resourceDescriptor(tenant, 'es_orders'));
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        registry.apply(
          operator(tenant),
          resourceDescriptor(tenant, 'es_orders', { description: `writer ${i}` }),
          {
            expectedVersion: 1,
          },
        ),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(9);
    for (const failure of lost)
      expect((failure.reason as TollgateError).code).toBe('VERSION_CONFLICT');
    const history = await registry.history(operator(tenant), {
      name: 'es_orders',
      pageSize: 50,
      pageToken: '',
    });
    expect(history.records.map((r) => r.version)).toEqual([2, 1]);
  });

  it('versions - of 10 concurrent creations (expected version 0) exactly one wins', async () => {
    const tenant = uniqueTenant();
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        registry.apply(
          operator(tenant),
          resourceDescriptor(tenant, 'es_orders', { description: `creator ${i}` }),
          {
            expectedVersion: 0,
          },
        ),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const head = await registry.get(operator(tenant), { name: 'es_orders', version: 0 });
    expect(head.version).toBe(1);
  });

  it('versions - a stale expected version is a conflict and stores nothing', async () => {
    const tenant = uniqueTenant();
    await registry.apply(operator(tenant), resourceDescriptor(tenant, 'es_orders'));
    const stale = registry.apply(
      operator(tenant),
      resourceDescriptor(tenant, 'es_orders', { description: 'late' }),
      {
        expectedVersion: 3,
      },
    );
    await expect(stale).rejects.toThrow(/is at version 1, not the expected version 3/);
    const exists = registry.apply(
      operator(tenant),
      resourceDescriptor(tenant, 'es_orders', { description: 'x' }),
      {
        expectedVersion: 0,
      },
    );
    await expect(exists).rejects.toThrow(
      /already exists \(version 1\); expected_version 0 means it must not exist/,
    );
    expect((await registry.get(operator(tenant), { name: 'es_orders', version: 0 })).version).toBe(
      1,
    );
  });

  it("versions - rollback to N makes a new version with N's descriptor, recorded as such", async () => {
    const tenant = uniqueTenant();
    await registry.apply(
      operator(tenant),
      resourceDescriptor(tenant, 'es_orders', { description: 'one' }),
    );
    await registry.apply(
      operator(tenant),
      resourceDescriptor(tenant, 'es_orders', { description: 'two' }),
    );
    const rolled = await registry.rollback(operator(tenant), {
      name: 'es_orders',
      toVersion: 1,
      expectedVersion: 2,
    });
    expect(rolled.record).toMatchObject({
      version: 3,
      previousVersion: 2,
      change: 'rolled_back',
      rolledBackFrom: 1,
    });
    expect(rolled.record.descriptor.metadata.description).toBe('one');
    expect(rolled.diff).toEqual([
      { path: 'metadata.description', op: 'changed', before: 'two', after: 'one' },
    ]);
    const v1 = await registry.get(operator(tenant), { name: 'es_orders', version: 1 });
    expect(rolled.record.hash).toBe(v1.hash);
    expect(
      await codeOf(registry.rollback(operator(tenant), { name: 'es_orders', toVersion: 9 })),
    ).toBe('NOT_FOUND');
    await expect(
      registry.rollback(operator(tenant), { name: 'es_orders', toVersion: 3 }),
    ).rejects.toThrow('to_version: 3 is already the current version of "es_orders".');
  });

  it('versions - delete writes a tombstone: reads say NOT_FOUND, history stays, apply revives it', async () => {
    const tenant = uniqueTenant();
    await registry.apply(operator(tenant), resourceDescriptor(tenant, 'es_orders'));
    const tombstone = await registry.delete(operator(tenant), {
      name: 'es_orders',
      expectedVersion: 1,
    });
    expect(tombstone).toMatchObject({ version: 2, deleted: true, change: 'deleted' });
    await expect(registry.get(operator(tenant), { name: 'es_orders', version: 0 })).rejects.toThrow(
      /was deleted \(version 2\); ask for a specific version/,
    );
    expect((await registry.get(operator(tenant), { name: 'es_orders', version: 1 })).deleted).toBe(
      false,
    );
    expect(await codeOf(registry.delete(operator(tenant), { name: 'es_orders' }))).toBe(
      'NOT_FOUND',
    );
    const listed = (includeDeleted: boolean) =>
      registry.list(operator(tenant), {
        labels: {},
        type: undefined,
        includeDeleted,
        pageSize: 10,
        pageToken: '',
      });
    expect(listed(false).records).toEqual([]);
    expect(listed(true).records.map((r) => r.version)).toEqual([2]);
    await expect(
      registry.rollback(operator(tenant), { name: 'es_orders', toVersion: 2 }),
    ).rejects.toThrow('Version 2 of "es_orders" is a deletion; roll back to a version before it.');

    const revived = await registry.apply(operator(tenant), resourceDescriptor(tenant, 'es_orders'));
    expect(revived).toMatchObject({
      unchanged: false,
      record: { version: 3, deleted: false, previousVersion: 2 },
    });
    expect(listed(false).records.map((r) => r.version)).toEqual([3]);
  });

  it('versions - a version committed elsewhere (e.g. by an instance that died right after) is seen by every read', async () => {
    const tenant = uniqueTenant();
    const { record } = await registry.apply(
      operator(tenant),
      resourceDescriptor(tenant, 'es_orders'),
    );
    const metadata = { ...record.descriptor.metadata, description: 'committed elsewhere' };
    const elsewhere = {
      ...record,
      version: 2,
      previousVersion: 1,
      descriptor: { ...record.descriptor, metadata },
    };
    await h.mongo.db
      .collection(COLLECTIONS.versions)
      .insertOne(toVersionDocument(`${tenant}/prod/es_orders/2`, elsewhere) as never);

    const current = await registry.get(operator(tenant), { name: 'es_orders', version: 0 });
    expect(current.descriptor.metadata.description).toBe('committed elsewhere');
    const history = await registry.history(operator(tenant), {
      name: 'es_orders',
      pageSize: 10,
      pageToken: '',
    });
    expect(history.records.map((r) => r.version)).toEqual([2, 1]);

    const stale = registry.apply(
      operator(tenant),
      resourceDescriptor(tenant, 'es_orders', { description: 'x' }),
      {
        expectedVersion: 1,
      },
    );
    await expect(stale).rejects.toThrow(/is at version 2, not the expected version 1/);
    await registry.apply(
      operator(tenant),
      resourceDescriptor(tenant, 'es_orders', { description: 'after' }),
      {
        expectedVersion: 2,
      },
    );
    const after = await registry.history(operator(tenant), {
      name: 'es_orders',
      pageSize: 10,
      pageToken: '',
    });
    expect(after.records.map((r) => [r.version, r.descriptor.metadata.description])).toEqual([
      [3, 'after'],
      [2, 'committed elsewhere'],
      [1, `Orders of ${tenant}`],
    ]);
  });

  it('versions - a dry run validates and diffs but stores nothing', async () => {
    const tenant = uniqueTenant();
    const dry = await registry.apply(operator(tenant), resourceDescriptor(tenant, 'es_orders'), {
      dryRun: true,
    });
    expect(dry.record.version).toBe(1);
    expect(dry.diff.length).toBeGreaterThan(0);
    expect(await codeOf(registry.get(operator(tenant), { name: 'es_orders', version: 0 }))).toBe(
      'NOT_FOUND',
    );
  });
});
