/**
 * The conformance suite every table-family connector must pass against its real data system. A
 * connector's integration test calls `runConnectorConformance(connector, env)` inside its own
 * file; the environment provisions the shared fixture (same logical fields, same rows) in a
 * fresh collection, declaring each field with its kind's own type for the fixture's value class.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Connector, CompileContext, CallPrincipal } from '../src/connector/types.js';
import type { CredentialResolver } from '../src/connector/credential.js';
import type { FieldSpec, ResourceDescriptor, ResourceSpec } from '../src/descriptor/types.js';
import { mergeSchema } from '../src/discovery/merge.js';
import type { TollgateError } from '../src/errors/codes.js';
import type { ValueClass } from '../src/table/family.js';
import type { Operation, PermissionSet } from '../src/tools/types.js';

/** One fixture field: its value class and capabilities; the kind names the type. */
export type ConformanceField = Omit<FieldSpec, 'type'> & { valueClass: ValueClass };

/** The dataset every connector is tested with. */
export interface ConformanceFixture {
  fields: Record<string, ConformanceField>;
  /** Rows keyed by `id` (the record key); `tenant` is the row-filter column. */
  rows: Array<Record<string, unknown>>;
}

/** What a connector's test provides: its real system, provisioned with the fixture. */
export interface ConformanceEnv {
  /** The kind's field spec for a fixture field (its type for the class, and anything it needs). */
  field(name: string, field: ConformanceField): FieldSpec;
  /**
   * Creates a fresh collection holding `fixture.rows` with the fields as `field` declares them,
   * searchable on return; gives the spec's connection and target (and any other spec member).
   */
  provision(
    fixture: ConformanceFixture,
    fields: Record<string, FieldSpec>,
  ): Promise<Omit<ResourceSpec, 'type' | 'schema' | 'access'>>;
  /** Removes whatever `provision` created. */
  cleanup(): Promise<void>;
  /** The same connection pointed at a port where nothing listens. */
  unreachable(connection: ResourceSpec['connection']): ResourceSpec['connection'];
  credentials: CredentialResolver;
  /** A credential reference whose secret is `CONFORMANCE_CANARY`, usable with `unreachable`. */
  canaryRef: string;
}

/** The secret the canary reference resolves to; it must never surface anywhere. */
export const CONFORMANCE_CANARY = 'tollgate-canary-6f1d2c';

const row = (
  id: string,
  tenant: string,
  status: string,
  amount: number,
  day: number,
): Record<string, unknown> => ({
  id,
  tenant,
  status,
  amount,
  created_at: `2024-05-${String(day).padStart(2, '0')}T10:00:00Z`,
  email: `${id}@example.com`,
  secret: `secret-${id}`,
});

export const CONFORMANCE_FIXTURE: ConformanceFixture = {
  fields: {
    id: {
      valueClass: 'exact',
      filterable: true,
      returnable: true,
      sortable: true,
      aggregatable: true,
    },
    tenant: { valueClass: 'exact', filterable: true, returnable: true },
    status: {
      valueClass: 'exact',
      filterable: true,
      returnable: true,
      aggregatable: true,
      sortable: true,
    },
    amount: {
      valueClass: 'number',
      filterable: true,
      range: true,
      returnable: true,
      sortable: true,
      aggregatable: true,
    },
    created_at: {
      valueClass: 'datetime',
      filterable: true,
      range: true,
      returnable: true,
      sortable: true,
    },
    email: { valueClass: 'exact', returnable: true },
    secret: { valueClass: 'exact', returnable: false },
  },
  rows: [
    row('a1', 'alpha', 'paid', 10, 1),
    row('a2', 'alpha', 'paid', 20, 2),
    row('a3', 'alpha', 'open', 30, 3),
    row('a4', 'alpha', 'open', 40, 4),
    row('a5', 'alpha', 'paid', 50, 5),
    row('a6', 'alpha', 'void', 60, 6),
    row('a7', 'alpha', 'paid', 70, 7),
    row('b1', 'beta', 'paid', 15, 1),
    row('b2', 'beta', 'open', 25, 2),
    row('b3', 'beta', 'paid', 35, 3),
  ],
};

const ALPHA: CallPrincipal = { tenant: 'alpha', agent: 'conformance' };
const BETA: CallPrincipal = { tenant: 'beta', agent: 'conformance' };
const VISIBLE = ['amount', 'created_at', 'email', 'id', 'status', 'tenant'];

/** Declares the conformance suite for `connector` in the calling test file. */
export function runConnectorConformance(connector: Connector, env: ConformanceEnv): void {
  let descriptor: ResourceDescriptor;
  const fields = Object.fromEntries(
    Object.entries(CONFORMANCE_FIXTURE.fields).map(([name, field]) => [
      name,
      env.field(name, field),
    ]),
  );
  const names = () => connector.operations(descriptor).map((op) => op.name);

  const permissions = (operations: Operation[] = names()): PermissionSet => ({
    operations,
    visibleFields: VISIBLE,
    filterableFields: ['amount', 'created_at', 'id', 'status', 'tenant'],
    limitCap: 5,
  });
  const ctx = (
    principal: CallPrincipal = ALPHA,
    d: ResourceDescriptor = descriptor,
  ): CompileContext => ({
    descriptor: d,
    permissions: permissions(),
    principal,
    cursorKey: 'conformance',
  });
  const call = async (operation: Operation, args: unknown, principal: CallPrincipal = ALPHA) => {
    const compileContext = ctx(principal);
    const request = connector.compile(operation, args, compileContext);
    const upstream = await connector.execute(request, {
      descriptor,
      credentials: env.credentials,
      deadline: Date.now() + 20_000,
    });
    return connector.shape(operation, upstream, {
      descriptor,
      permissions: compileContext.permissions,
      request,
    });
  };
  // Compared by shape, not instanceof: the connector under test imports the built package.
  const failure = async (promise: Promise<unknown>): Promise<TollgateError> => {
    try {
      await promise;
    } catch (err) {
      expect(err).toMatchObject({
        name: expect.stringMatching(/^(TollgateError|UpstreamError)$/) as unknown,
      });
      expect(err).toEqual(
        expect.objectContaining({
          code: expect.any(String) as unknown,
          category: expect.any(String) as unknown,
        }),
      );
      return err as TollgateError;
    }
    throw new Error('expected a failure');
  };

  describe(`connector conformance: ${connector.type}`, () => {
    beforeAll(async () => {
      const spec = await env.provision(CONFORMANCE_FIXTURE, fields);
      descriptor = {
        apiVersion: 'tollgate.dev/v1',
        kind: 'Resource',
        metadata: { name: 'conformance_orders', tenant: 'team-a', environment: 'test' },
        spec: {
          ...spec,
          type: connector.type,
          schema: { fields },
          access: {
            allowedRoles: ['conformance'],
            readonly: false,
            maxLimit: 5,
            redact: { email: 'mask' },
            rowFilter: { field: 'tenant', equals: 'principal.tenant' },
          },
        },
      };
    });
    afterAll(async () => {
      await env.cleanup();
      await connector.close();
    });

    it('conformance - operations: reads always, writes only when not read-only, classes declared', () => {
      const operations = connector.operations(descriptor);
      expect(operations.some((op) => op.class !== 'read')).toBe(true);
      expect(new Set(operations.map((op) => op.name)).size).toBe(operations.length);
      const readonly = structuredClone(descriptor);
      readonly.spec.access.readonly = true;
      const reads = connector.operations(readonly);
      expect(reads.every((op) => op.class === 'read' && op.idempotent)).toBe(true);
      expect(reads.map((op) => op.name)).toEqual(
        expect.arrayContaining(['search', 'get', 'count']),
      );
    });

    it('conformance - discovery finds every fixture field with its type and merges cleanly', async () => {
      const schema = await connector.discover(descriptor.spec, env.credentials);
      const types = Object.fromEntries(schema.fields.map((field) => [field.path, field.type]));
      for (const [name, spec] of Object.entries(fields)) expect(types[name]).toBe(spec.type);
      const merged = mergeSchema(fields, schema, connector.fieldFamily);
      expect(merged.issues.filter((issue) => issue.severity === 'error')).toEqual([]);
      expect(merged.fields['secret']?.returnable).toBe(false);
    });

    it('conformance - compile is pure and serialisable', () => {
      const args = {
        filters: [{ field: 'status', op: 'eq', value: 'paid' }],
        sort: [{ field: 'id', order: 'asc' }],
        limit: 2,
      };
      const first = connector.compile('search', args, ctx());
      expect(connector.compile('search', args, ctx())).toEqual(first);
      expect(JSON.parse(JSON.stringify(first))).toEqual(first);
      expect(first).toMatchObject({ kind: connector.type, operation: 'search', idempotent: true });
    });

    it('conformance - compile rejects fields outside the schema and limits over the cap', () => {
      for (const [args, path] of [
        [{ filters: [{ field: 'secret', op: 'eq', value: 'x' }] }, 'filters[0].field'],
        [{ filters: [{ field: 'email', op: 'eq', value: 'x' }] }, 'filters[0].field'],
        [{ fields: ['secret'] }, 'fields[0]'],
        [{ limit: 6 }, 'limit'],
      ] as const) {
        expect(() => connector.compile('search', args, ctx())).toThrow(
          expect.objectContaining({
            code: 'ARGUMENTS_INVALID',
            details: [expect.objectContaining({ path })],
          }),
        );
      }
    });

    it('conformance - paging visits every row of the principal exactly once, visible fields only', async () => {
      const seen: Array<Record<string, unknown>> = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page += 1) {
        const result = await call('search', {
          sort: [{ field: 'id', order: 'asc' }],
          limit: 3,
          cursor: cursor ?? null,
        });
        seen.push(...(result.data as Array<Record<string, unknown>>));
        expect(result.returned).toBe((result.data as unknown[]).length);
        cursor = result.cursor;
        if (cursor === undefined) break;
      }
      expect(seen.map((r) => r['id'])).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7']);
      for (const r of seen) {
        expect(Object.keys(r).filter((key) => !VISIBLE.includes(key) && key !== '_id')).toEqual([]);
        expect(r['email']).toBe('***');
        expect(r['tenant']).toBe('alpha');
      }
    });

    it('conformance - filters select exactly the matching rows', async () => {
      const result = await call('search', {
        filters: [
          { field: 'status', op: 'eq', value: 'paid' },
          { field: 'amount', op: 'between', value: [15, 60] },
        ],
        sort: [{ field: 'amount', order: 'desc' }],
        fields: ['id', 'amount'],
      });
      expect(result.data).toEqual([
        expect.objectContaining({ id: 'a5', amount: 50 }),
        expect.objectContaining({ id: 'a2', amount: 20 }),
      ]);
      expect(result.total).toEqual({ value: 2, relation: 'eq' });
    });

    it('conformance - count honours filters and the row filter', async () => {
      expect(
        (await call('count', { filters: [{ field: 'status', op: 'eq', value: 'paid' }] })).data,
      ).toEqual({ count: 4 });
      expect((await call('count', {}, BETA)).data).toEqual({ count: 3 });
    });

    it('conformance - get returns a row of the principal and hides rows of others', async () => {
      const found = await call('get', { id: 'a3', fields: null });
      expect(found.data).toMatchObject({ id: 'a3', status: 'open', email: '***' });
      expect(found.data).not.toHaveProperty('secret');
      expect((await failure(call('get', { id: 'b1' }))).code).toBe('NOT_FOUND');
    });

    it('conformance - aggregations count the principal rows only', async () => {
      const result = await call('aggregate', {
        aggregation: { kind: 'terms', field: 'status', size: null, interval: null },
      });
      expect(result.data).toMatchObject({
        buckets: [
          { key: 'paid', count: 4 },
          { key: 'open', count: 2 },
          { key: 'void', count: 1 },
        ],
      });
    });

    it('conformance - writes land in the principal scope and cannot take over other rows', async () => {
      const upsert = names().includes('write');
      const written = upsert
        ? await call('write', { id: 'a8', document: { status: 'open', amount: 80 } })
        : await call('insert', { values: { id: 'a8', status: 'open', amount: 80 } });
      expect(written.returned).toBe(1);
      expect((await call('get', { id: 'a8' })).data).toMatchObject({
        tenant: 'alpha',
        status: 'open',
        amount: 80,
      });
      const takeover = await failure(
        upsert
          ? call('write', { id: 'b1', document: { status: 'void' } })
          : call('update', { id: 'b1', values: { status: 'void' } }),
      );
      expect(['ALREADY_EXISTS', 'POLICY_DENIED', 'NOT_FOUND']).toContain(takeover.code);
      expect((await call('get', { id: 'b1' }, BETA)).data).toMatchObject({
        status: 'paid',
        tenant: 'beta',
      });
    });

    it('conformance - an unreachable upstream is UPSTREAM_UNAVAILABLE, retryable, after the allowed attempts', async () => {
      const offline = {
        ...descriptor,
        spec: { ...descriptor.spec, connection: env.unreachable(descriptor.spec.connection) },
      };
      const request = connector.compile('count', {}, ctx(ALPHA, offline));
      const error = await failure(
        connector.execute(request, {
          descriptor: offline,
          credentials: env.credentials,
          maxAttempts: 2,
          backoffMs: 10,
          deadline: Date.now() + 10_000,
        }),
      );
      expect(error).toMatchObject({
        name: 'UpstreamError',
        code: 'UPSTREAM_UNAVAILABLE',
        category: 'retryable',
        attempts: 2,
      });
    });

    it('conformance - the credential never appears in errors', async () => {
      const offline = structuredClone(descriptor);
      offline.spec.connection = {
        ...env.unreachable(descriptor.spec.connection),
        credentialRef: env.canaryRef,
      };
      const request = connector.compile('search', {}, ctx(ALPHA, offline));
      const error = await failure(
        connector.execute(request, {
          descriptor: offline,
          credentials: env.credentials,
          maxAttempts: 1,
        }),
      );
      const cause =
        error.cause instanceof Error
          ? `${error.cause.message} ${error.cause.stack ?? ''}`
          : String(error.cause);
      const rendered = [
        error.message,
        error.stack ?? '',
        JSON.stringify(error),
        JSON.stringify(error.details),
        cause,
      ].join('\n');
      expect(rendered).not.toContain(CONFORMANCE_CANARY);
      expect(rendered).not.toContain(
        Buffer.from(`conformance:${CONFORMANCE_CANARY}`).toString('base64'),
      );
    });
  });
}
