import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toJson } from '@bufbuild/protobuf';
import { RpcError, RpcStatus } from '@tollgate/contracts';
import { DiffOperation } from '@tollgate/contracts/common/v1';
import { DraftSchema, DraftStatus } from '@tollgate/contracts/registry/v1';
import type { Principal } from '@tollgate/core';
import { infra, startHarness, uniqueName, uniqueTenant } from './harness.js';
import type { Harness, RegistryInstance } from './harness.js';

const CANARY = `canary-${Math.random().toString(36).slice(2)}`;
const index = uniqueName('reg_orders');
let h: Harness;
let now = Date.now();
let timed: RegistryInstance;

async function es(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${infra.esUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok && res.status !== 404)
    throw new Error(`${method} ${path}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

beforeAll(async () => {
  await es('PUT', `/${index}`, {
    mappings: {
      properties: {
        id: { type: 'keyword' },
        amount: { type: 'double' },
        note: { type: 'text' },
        created_at: { type: 'date' },
      },
    },
  });
  h = await startHarness({
    env: { REG_TEST_ES_CREDENTIAL: JSON.stringify({ username: 'elastic', password: CANARY }) },
  });
  timed = await h.startInstance({ clock: () => new Date(now), draftTtlMs: 60_000 });
});
afterAll(async () => {
  await h?.close();
  await es('DELETE', `/${index}`);
});

const operator = (tenant: string): Principal => ({
  tenant,
  agent: 'operator',
  environment: 'prod',
});
const connection = { endpoint: infra.esUrl, credentialRef: 'env://REG_TEST_ES_CREDENTIAL' };

async function failure(call: Promise<unknown>): Promise<RpcError> {
  try {
    await call;
  } catch (err) {
    if (err instanceof RpcError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

describe('drafts', () => {
  it('drafts - Discover reads the real mapping and merges it; the credential never comes back; nothing is stored', async () => {
    const tenant = uniqueTenant();
    const descriptor = {
      apiVersion: 'tollgate.dev/v1',
      kind: 'Resource',
      metadata: { name: 'es_orders', tenant, environment: 'prod' },
      spec: {
        type: 'elasticsearch',
        connection,
        target: { index },
        schema: {
          fields: {
            id: { type: 'keyword', filterable: true, returnable: true },
            amount: { type: 'long', range: true, returnable: true },
            gone: { type: 'keyword', returnable: true },
          },
        },
        access: { allowedRoles: ['support'] },
      },
    };
    const found = await h.client.discover({ descriptor }, await h.as(operator(tenant)));
    expect(found.fields.map((f) => [f.name, f.type, f.declared, f.declaredType])).toEqual([
      ['amount', 'double', true, 'long'],
      ['created_at', 'date', false, ''],
      ['id', 'keyword', true, ''],
      ['note', 'text', false, ''],
    ]);
    expect(found.fields.find((f) => f.name === 'note')?.proposedCapabilities).toEqual([
      'returnable',
      'searchable',
    ]);
    expect(found.warnings.map((w) => [w.code, w.path])).toEqual([
      ['TYPE_MISMATCH', 'spec.schema.fields.amount'],
      ['MISSING_IN_SOURCE', 'spec.schema.fields.gone'],
      ['FIELDS_NOT_ENABLED', 'spec.schema.fields'],
    ]);
    const fields = (
      found.descriptor as { spec: { schema: { fields: Record<string, Record<string, unknown>> } } }
    ).spec.schema.fields;
    expect(fields.amount).toMatchObject({ type: 'double', range: true, returnable: true });
    expect(fields.note).toMatchObject({ type: 'text', searchable: false, returnable: false });
    expect(JSON.stringify(found)).not.toContain(CANARY);
    expect(await h.mongo.db.collection('resource_drafts').countDocuments({ tenant })).toBe(0);

    const missing = await failure(
      h.client.discover(
        {
          descriptor: {
            ...descriptor,
            spec: { ...descriptor.spec, target: { index: `${index}_absent` } },
          },
        },
        await h.as(operator(tenant)),
      ),
    );
    expect(missing.code).toBe(RpcStatus.NOT_FOUND);
    expect(missing.message).not.toContain(CANARY);
  });

  it('drafts - Discover of a saved resource shows what saving the draft would change: none, then a mapping change; nothing is saved', async () => {
    const tenant = uniqueTenant();
    const target = `${index}_since`;
    await es('PUT', `/${target}`, {
      mappings: { properties: { id: { type: 'keyword' }, amount: { type: 'double' } } },
    });
    try {
      const as = await h.as(operator(tenant));
      const descriptor = {
        apiVersion: 'tollgate.dev/v1',
        kind: 'Resource',
        metadata: { name: 'es_since', tenant, environment: 'prod' },
        spec: {
          type: 'elasticsearch',
          connection,
          target: { index: target },
          schema: {
            fields: {
              id: { type: 'keyword', filterable: true, returnable: true },
              amount: { type: 'double', range: true, returnable: true },
            },
          },
          access: { allowedRoles: ['support'] },
        },
      };
      const fresh = await h.client.discover({ descriptor }, as);
      expect([fresh.currentVersion, fresh.changes]).toEqual([0, []]);
      const saved = await h.client.apply({ descriptor: fresh.descriptor as never }, as);
      expect(saved.resource?.version).toBe(1);

      const same = await h.client.discover({ descriptor }, as);
      expect([same.currentVersion, same.changes]).toEqual([1, []]);

      await es('PUT', `/${target}/_mapping`, {
        properties: { shipped_at: { type: 'date' }, amount: { type: 'double' } },
      });
      const changed = await h.client.discover({ descriptor }, as);
      expect(changed.currentVersion).toBe(1);
      const paths = changed.changes.map((c) => [c.path, c.operation]);
      expect(paths).toContainEqual(['spec.schema.fields.shipped_at.type', DiffOperation.ADDED]);
      expect(
        paths.every(([path]) => String(path).startsWith('spec.schema.fields.shipped_at')),
      ).toBe(true);
      expect(JSON.stringify(changed)).not.toContain(CANARY);
      // Discovery saved nothing: version 1 is still current.
      expect((await h.client.get({ name: 'es_since' }, as)).resource?.version).toBe(1);
      // Applying the draft makes exactly the change discovery showed.
      const applied = await h.client.apply({ descriptor: changed.descriptor as never }, as);
      expect(applied.resource?.version).toBe(2);
      expect(applied.diff.map((c) => [c.path, c.operation])).toEqual(paths);
    } finally {
      await es('DELETE', `/${target}`);
    }
  });

  it('drafts - a partial descriptor is discovered, echoed and kept pending until Confirm supplies what is missing', async () => {
    const tenant = uniqueTenant();
    const as = await h.as(operator(tenant));
    const partial = { metadata: { name: 'es_orders' }, spec: { connection, target: { index } } };
    const { draft } = await h.client.draft(
      { descriptor: partial, sessionId: 'conversation-1' },
      as,
    );
    expect(draft).toMatchObject({
      tenant,
      environment: 'prod',
      name: 'es_orders',
      status: DraftStatus.PENDING,
      confirmable: false,
      sessionId: 'conversation-1',
      createdBy: 'operator',
      version: 0,
    });
    expect(draft!.fields.map((f) => f.name)).toEqual(['amount', 'created_at', 'id', 'note']);
    expect(draft!.warnings.map((w) => [w.code, w.path])).toEqual([
      ['FIELDS_NOT_ENABLED', 'spec.schema.fields'],
      ['INPUT_NEEDED', 'spec.access'],
    ]);
    expect(draft!.echo).toContain(
      `I understood: Elasticsearch index "${index}" at ${infra.esUrl} (credential from a env:// reference), as resource "es_orders" of ${tenant}/prod.`,
    );
    expect(draft!.echo).toContain('Enabled fields: none yet.');
    expect(draft!.echo).toContain(
      'Found but not enabled: amount (double; could filter, range, sort, aggregate, return)',
    );
    expect(draft!.echo).toContain('Still needed: who may use the resource');
    expect(JSON.stringify(toJson(DraftSchema, draft!))).not.toContain(CANARY);
    const ttl = Number(draft!.expiresAt!.seconds - draft!.createdAt!.seconds);
    expect(ttl).toBe(3600);

    const incomplete = await failure(h.client.confirm({ draftId: draft!.id }, as));
    expect(incomplete.code).toBe(RpcStatus.INVALID_ARGUMENT);
    expect(incomplete.message).toMatch(
      /^descriptor invalid \(1 problem\): spec\.access: required key missing/,
    );
    const renamed = await failure(
      h.client.confirm({ draftId: draft!.id, edits: { metadata: { name: 'es_other' } } }, as),
    );
    expect(renamed.message).toBe(
      "edits.metadata.name: a draft's name cannot be edited; draft the resource again instead",
    );

    const edits = {
      spec: {
        access: { allowedRoles: ['support'] },
        schema: { fields: { amount: { range: true, returnable: true } } },
      },
    };
    const confirmed = await h.client.confirm({ draftId: draft!.id, edits, expectedVersion: 0 }, as);
    expect(confirmed.resource).toMatchObject({ name: 'es_orders', version: 1 });
    expect(confirmed.draft).toMatchObject({
      status: DraftStatus.CONFIRMED,
      version: 1,
      decidedBy: 'operator',
    });
    const stored = await h.client.get({ name: 'es_orders' }, as);
    const fields = (
      stored.resource!.descriptor as {
        spec: { schema: { fields: Record<string, Record<string, unknown>> } };
      }
    ).spec.schema.fields;
    expect(fields.amount).toMatchObject({
      type: 'double',
      range: true,
      returnable: true,
      filterable: false,
    });
    expect(fields.id).toMatchObject({ type: 'keyword', filterable: false, returnable: false });

    const again = await failure(h.client.confirm({ draftId: draft!.id }, as));
    expect(again.code).toBe(RpcStatus.FAILED_PRECONDITION);
    expect(again.message).toBe(`Draft ${draft!.id} was already confirmed.`);
    expect((await failure(h.client.reject({ draftId: draft!.id }, as))).code).toBe(
      RpcStatus.FAILED_PRECONDITION,
    );
  });

  it('drafts - of two concurrent confirms exactly one decides; Reject discards; an expired draft is refused', async () => {
    const tenant = uniqueTenant();
    const as = await h.as(operator(tenant));
    const complete = {
      metadata: { name: 'es_orders' },
      spec: { connection, target: { index }, access: { allowedRoles: ['support'] } },
    };
    const { draft } = await timed.client.draft({ descriptor: complete }, as);
    expect(draft?.confirmable).toBe(true);
    expect(draft?.echo.endsWith('Confirm?')).toBe(true);
    const results = await Promise.allSettled([
      timed.client.confirm({ draftId: draft!.id }, as),
      timed.client.confirm({ draftId: draft!.id }, as),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);

    const rejected = (await timed.client.draft({ descriptor: complete }, as)).draft!;
    const reply = await timed.client.reject({ draftId: rejected.id, reason: 'wrong index' }, as);
    expect(reply.draft).toMatchObject({
      status: DraftStatus.REJECTED,
      reason: 'wrong index',
      decidedBy: 'operator',
    });
    expect((await failure(timed.client.confirm({ draftId: rejected.id }, as))).message).toBe(
      `Draft ${rejected.id} was already rejected.`,
    );

    const stale = (await timed.client.draft({ descriptor: complete }, as)).draft!;
    now += 61_000;
    const expired = await failure(timed.client.confirm({ draftId: stale.id }, as));
    expect(expired.code).toBe(RpcStatus.FAILED_PRECONDITION);
    expect(expired.message).toMatch(
      new RegExp(`^Draft ${stale.id} expired at .*; propose the resource again with Draft\\.$`),
    );
  });

  it('drafts - when discovery fails the draft says so and keeps the declaration', async () => {
    const tenant = uniqueTenant();
    const partial = {
      metadata: { name: 'es_orders' },
      spec: {
        connection: { endpoint: 'http://127.0.0.1:1' },
        target: { index },
        schema: { fields: { id: { type: 'keyword', returnable: true } } },
        access: { allowedRoles: ['support'] },
      },
    };
    const { draft } = await h.client.draft({ descriptor: partial }, await h.as(operator(tenant)));
    expect(draft!.warnings.map((w) => w.code)).toEqual(['DISCOVERY_FAILED']);
    expect(draft!.warnings[0]!.message).toMatch(/^Discovery failed \(UPSTREAM_UNAVAILABLE\)/);
    expect(draft!.fields).toEqual([]);
    expect(draft!.confirmable).toBe(true);
    expect(
      Object.keys(
        (draft!.descriptor as { spec: { schema: { fields: object } } }).spec.schema.fields,
      ),
    ).toEqual(['id']);
  });
});
