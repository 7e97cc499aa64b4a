import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toJson } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { RpcError, RpcStatus } from '@tollgate/contracts';
import { DiffOperation } from '@tollgate/contracts/common/v1';
import { generateIssuerKeys, issuePrincipalToken } from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import { resourceKey } from '@tollgate/kit';
import { COLLECTIONS } from '../src/index.js';
import { resourceDescriptor, startHarness, uniqueTenant } from './harness.js';
import type { Harness } from './harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const operator = (tenant: string, environment = 'prod'): Principal => ({
  tenant,
  agent: 'operator',
  environment,
});

async function failure(call: Promise<unknown>): Promise<RpcError> {
  try {
    await call;
  } catch (err) {
    if (err instanceof RpcError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

/** Everything stored for a tenant: versions, drafts (decisions need one) and KV entries. */
async function storedFor(tenant: string): Promise<number> {
  const db = h.mongo.db;
  const counts = await Promise.all(
    [COLLECTIONS.versions, 'resource_drafts'].map((c) =>
      db.collection(c).countDocuments({ tenant }),
    ),
  );
  const keys: string[] = [];
  for await (const key of await h.parts.kv.keys(`${tenant}.>`)) keys.push(key);
  return counts.reduce((a, b) => a + b, 0) + keys.length;
}

describe('api', () => {
  it('api - every method rejects bad requests with INVALID_ARGUMENT, a specific message, and stores nothing', async () => {
    const tenant = uniqueTenant();
    const as = await h.as(operator(tenant));
    const c = h.client;
    const valid = resourceDescriptor(tenant, 'es_orders');
    const badDescriptor = structuredClone(valid) as {
      spec: Record<string, Record<string, unknown>>;
    };
    badDescriptor.spec.access!.maxLimit = 'ten';
    badDescriptor.spec.access!.colour = 'blue';
    const secret = structuredClone(valid) as { spec: Record<string, Record<string, unknown>> };
    secret.spec.connection!.password = 'hunter2-hunter2-hunter2';
    const agent = {
      apiVersion: 'tollgate.dev/v1',
      kind: 'Agent',
      metadata: { name: 'bot', tenant },
      spec: { roles: ['support'] },
    };

    const cases: Array<[string, () => Promise<unknown>, string | RegExp]> = [
      ['Apply without descriptor', () => c.apply({}, as), 'descriptor: required'],
      [
        'Apply invalid descriptor',
        () => c.apply({ descriptor: badDescriptor as never }, as),
        /^descriptor invalid \(2 problems\): spec\.access/,
      ],
      [
        'Apply secret',
        () => c.apply({ descriptor: secret as never }, as),
        /^descriptor invalid \(2 problems\): spec\.connection\.password: unknown key/,
      ],
      [
        'Apply an Agent',
        () => c.apply({ descriptor: agent }, as),
        /^descriptor\.kind: the registry stores Resource descriptors/,
      ],
      ['Get without name', () => c.get({}, as), 'name: required'],
      [
        'Get bad name',
        () => c.get({ name: 'Orders!' }, as),
        'name: expected a resource name matching [a-z][a-z0-9_]{2,62}, found "Orders!"',
      ],
      [
        'Get bad tenant',
        () => c.get({ name: 'es_orders', tenant: 'Team A' }, as),
        'tenant: expected a name matching [a-z0-9][a-z0-9-]{0,62}, found "Team A"',
      ],
      [
        'List bad label',
        () => c.list({ labels: { 'Not A Key': 'x' } }, as),
        /^labels\["Not A Key"\]: expected a label key/,
      ],
      [
        'List unknown type',
        () => c.list({ type: 'postgres' }, as),
        'type: expected one of elasticsearch, found "postgres"',
      ],
      [
        'List bad page token',
        () => c.list({ pageToken: 'garbage' }, as),
        /^page_token: not a token from the previous page/,
      ],
      ['History without name', () => c.history({}, as), 'name: required'],
      [
        'Rollback to 0',
        () => c.rollback({ name: 'es_orders', toVersion: 0 }, as),
        'to_version: expected a version number of 1 or more, found 0',
      ],
      [
        'Rollback, two problems',
        () => c.rollback({ toVersion: 0 }, as),
        'name: required (and 1 more)',
      ],
      [
        'Delete bad name',
        () => c.delete({ name: 'x' }, as),
        'name: expected a resource name matching [a-z][a-z0-9_]{2,62}, found "x"',
      ],
      ['Discover without descriptor', () => c.discover({}, as), 'descriptor: required'],
      [
        'Discover without target',
        () => c.discover({ descriptor: { metadata: { name: 'es_orders' } } }, as),
        /^descriptor invalid \(2 problems\): spec\.connection: required key missing/,
      ],
      ['Draft without descriptor', () => c.draft({}, as), 'descriptor: required'],
      [
        'Draft without a name',
        () => c.draft({ descriptor: { spec: { target: { index: 'orders' } } } }, as),
        /^descriptor invalid \(1 problem\): metadata\.name: required key missing/,
      ],
      [
        'Draft malformed',
        () =>
          c.draft(
            { descriptor: { metadata: { name: 'es_orders' }, spec: { access: { maxLimit: 0 } } } },
            as,
          ),
        /spec\.access\.maxLimit: expected integer between 1 and 1000/,
      ],
      [
        'Draft long session id',
        () =>
          c.draft(
            { descriptor: { metadata: { name: 'es_orders' } }, sessionId: 's'.repeat(201) },
            as,
          ),
        'session_id: expected at most 200 characters, found 201 characters',
      ],
      ['Confirm without id', () => c.confirm({}, as), 'draft_id: required'],
      [
        'Confirm bad id',
        () => c.confirm({ draftId: 'draft-1' }, as),
        'draft_id: expected a draft id (a lowercase UUID), found "draft-1"',
      ],
      [
        'Reject long reason',
        () =>
          c.reject(
            { draftId: '00000000-0000-4000-8000-000000000000', reason: 'r'.repeat(1001) },
            as,
          ),
        'reason: expected at most 1000 characters, found 1001 characters',
      ],
    ];
    for (const [label, call, message] of cases) {
      const error = await failure(call());
      expect.soft(error.code, label).toBe(RpcStatus.INVALID_ARGUMENT);
      if (typeof message === 'string') expect.soft(error.message, label).toBe(message);
      else expect.soft(error.message, label).toMatch(message);
      expect.soft(error.details.length, label).toBeGreaterThan(0);
    }
    expect(await storedFor(tenant)).toBe(0);

    const invalid = await failure(c.apply({ descriptor: badDescriptor as never }, as));
    expect(invalid.tollgateCode).toBe('DESCRIPTOR_INVALID');
    expect(invalid.details.map((d) => d.path)).toEqual([
      'spec.access.colour',
      'spec.access.maxLimit',
    ]);
    const leaked = await failure(c.apply({ descriptor: secret as never }, as));
    expect(leaked.details.map((d) => d.message)).toContainEqual(
      expect.stringMatching(/^looks like a secret/),
    );
    expect(JSON.stringify(leaked.details)).not.toContain('hunter2');
  });

  it('api - apply, get, list and history over gRPC; diffs carry JSON values', async () => {
    const tenant = uniqueTenant();
    const as = await h.as(operator(tenant));
    const created = await h.client.apply(
      { descriptor: resourceDescriptor(tenant, 'es_orders') as never, expectedVersion: 0 },
      as,
    );
    expect(created.resource).toMatchObject({
      tenant,
      environment: 'prod',
      name: 'es_orders',
      version: 1,
      createdBy: 'operator',
    });
    expect(created.unchanged).toBe(false);

    const changed = resourceDescriptor(tenant, 'es_orders');
    (changed.spec as { access: Record<string, unknown> }).access.maxLimit = 25;
    const updated = await h.client.apply({ descriptor: changed as never, expectedVersion: 1 }, as);
    expect(
      updated.diff.map((d) => [
        d.path,
        d.operation,
        toJson(ValueSchema, d.before!),
        toJson(ValueSchema, d.after!),
      ]),
    ).toEqual([['spec.access.maxLimit', DiffOperation.CHANGED, 100, 25]]);
    const same = await h.client.apply({ descriptor: changed as never }, as);
    expect(same).toMatchObject({ unchanged: true, diff: [] });
    expect(same.resource?.version).toBe(2);

    const conflict = await failure(
      h.client.apply({ descriptor: changed as never, expectedVersion: 1 }, as),
    );
    expect(conflict.code).toBe(RpcStatus.ABORTED);
    expect(conflict.tollgateCode).toBe('VERSION_CONFLICT');

    const got = await h.client.get({ name: 'es_orders', version: 1 }, as);
    expect(
      (got.resource?.descriptor as { spec: { access: { maxLimit: number } } }).spec.access.maxLimit,
    ).toBe(100);
    const history = await h.client.history({ name: 'es_orders' }, as);
    expect(history.versions.map((v) => v.version)).toEqual([2, 1]);
    const missing = await failure(h.client.get({ name: 'es_nothing' }, as));
    expect(missing.code).toBe(RpcStatus.NOT_FOUND);
    expect(missing.message).toBe(`Resource "es_nothing" in ${tenant}/prod does not exist.`);

    const dropped = await h.client.delete({ name: 'es_orders', expectedVersion: 2 }, as);
    expect(dropped.resource).toMatchObject({ version: 3, deleted: true });
    const rolled = await failure(h.client.rollback({ name: 'es_orders', toVersion: 3 }, as));
    expect(rolled.code).toBe(RpcStatus.FAILED_PRECONDITION);
  });

  it('api - list filters by labels and type and pages with tokens bound to the filters', async () => {
    const tenant = uniqueTenant();
    const as = await h.as(operator(tenant));
    for (let i = 0; i < 30; i++) {
      const labels = { domain: i % 3 === 0 ? 'billing' : 'orders' };
      await h.client.apply(
        {
          descriptor: resourceDescriptor(tenant, `res_${String(i).padStart(2, '0')}`, {
            labels,
          }) as never,
        },
        as,
      );
    }
    const names: string[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const page = await h.client.list(
        { labels: { domain: 'orders' }, type: 'elasticsearch', pageSize: 7, pageToken },
        as,
      );
      names.push(...page.resources.map((r) => r.name));
      pageToken = page.nextPageToken;
      pages += 1;
    } while (pageToken !== '');
    expect(names).toHaveLength(20);
    expect(pages).toBe(3);
    expect(names).toEqual([...names].sort());
    expect(names.every((n) => Number(n.slice(4)) % 3 !== 0)).toBe(true);

    const first = await h.client.list({ labels: { domain: 'orders' }, pageSize: 7 }, as);
    const replayed = await failure(
      h.client.list(
        { labels: { domain: 'billing' }, pageSize: 7, pageToken: first.nextPageToken },
        as,
      ),
    );
    expect(replayed.code).toBe(RpcStatus.INVALID_ARGUMENT);
    expect((await h.client.list({}, as)).resources).toHaveLength(30);
  });

  it("api - no call reads, lists or changes another tenant's or environment's resources", async () => {
    const owner = uniqueTenant();
    const intruder = uniqueTenant();
    const ownerAs = await h.as(operator(owner));
    await h.client.apply({ descriptor: resourceDescriptor(owner, 'es_orders') as never }, ownerAs);
    const draft = await h.client.draft(
      { descriptor: { metadata: { name: 'es_drafted' } } },
      ownerAs,
    );
    const draftId = draft.draft!.id;

    const as = await h.as(operator(intruder));
    const denied = async (label: string, call: Promise<unknown>) => {
      const error = await failure(call);
      expect.soft(error.code, label).toBe(RpcStatus.PERMISSION_DENIED);
      expect.soft(error.tollgateCode, label).toBe('TENANT_MISMATCH');
    };
    const notFound = async (label: string, call: Promise<unknown>) => {
      expect.soft((await failure(call)).code, label).toBe(RpcStatus.NOT_FOUND);
    };
    const c = h.client;
    await denied(
      'Apply',
      c.apply(
        {
          descriptor: resourceDescriptor(owner, 'es_orders', { description: 'mine now' }) as never,
        },
        as,
      ),
    );
    await denied('Get', c.get({ tenant: owner, name: 'es_orders' }, as));
    await notFound('Get own tenant', c.get({ name: 'es_orders' }, as));
    await denied('List', c.list({ tenant: owner }, as));
    expect((await c.list({}, as)).resources).toEqual([]);
    await denied('History', c.history({ tenant: owner, name: 'es_orders' }, as));
    await notFound('History own tenant', c.history({ name: 'es_orders' }, as));
    await denied('Rollback', c.rollback({ tenant: owner, name: 'es_orders', toVersion: 1 }, as));
    await notFound('Rollback own tenant', c.rollback({ name: 'es_orders', toVersion: 1 }, as));
    await denied('Delete', c.delete({ tenant: owner, name: 'es_orders' }, as));
    await notFound('Delete own tenant', c.delete({ name: 'es_orders' }, as));
    await denied(
      'Discover',
      c.discover({ descriptor: resourceDescriptor(owner, 'es_orders') as never }, as),
    );
    await denied(
      'Draft',
      c.draft({ descriptor: { metadata: { name: 'es_orders', tenant: owner } } }, as),
    );
    await notFound('Confirm', c.confirm({ draftId }, as));
    await notFound('Reject', c.reject({ draftId }, as));

    const staging = await h.as(operator(owner, 'staging'));
    await denied(
      'Get other environment',
      c.get({ environment: 'prod', name: 'es_orders' }, staging),
    );
    await notFound('Get in own environment', c.get({ name: 'es_orders' }, staging));
    expect((await c.list({}, staging)).resources).toEqual([]);
    await denied(
      'Apply into another environment',
      c.apply({ descriptor: resourceDescriptor(owner, 'es_orders') as never }, staging),
    );
    await notFound('Confirm from another environment', c.confirm({ draftId }, staging));

    const untouched = await c.get({ name: 'es_orders' }, ownerAs);
    expect(untouched.resource?.version).toBe(1);
    expect((await c.reject({ draftId, reason: 'not needed' }, ownerAs)).draft?.reason).toBe(
      'not needed',
    );
    const keys: string[] = [];
    for await (const key of await h.parts.kv.keys(`${intruder}.>`)) keys.push(key);
    expect(keys).toEqual([]);
    expect(await h.parts.kv.get(resourceKey(owner, 'prod', 'es_orders'))).not.toBeNull();
  });

  it('api - calls without a valid token are UNAUTHENTICATED', async () => {
    const tenant = uniqueTenant();
    const noToken = await failure(h.client.list({}));
    expect(noToken.code).toBe(RpcStatus.UNAUTHENTICATED);
    expect(noToken.message).toBe('Not authenticated: no principal token was presented.');
    const stranger = await generateIssuerKeys('stranger');
    const forged = await issuePrincipalToken(stranger, operator(tenant));
    const error = await failure(
      h.client.apply(
        { descriptor: resourceDescriptor(tenant, 'es_orders') as never },
        { metadata: { authorization: `Bearer ${forged}` } },
      ),
    );
    expect(error.code).toBe(RpcStatus.UNAUTHENTICATED);
    expect(await storedFor(tenant)).toBe(0);
  });
});
