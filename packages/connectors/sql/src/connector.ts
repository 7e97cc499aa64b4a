/**
 * A SQL kind's connector from its pure half and its driver: compile and shape are the SQL
 * core's, discovery reads the kind's catalog, execute runs on the kind's pools. The executor
 * wires the five steps without knowing which kind it has.
 */
import { createHash } from 'node:crypto';

import { TollgateError, callerLimits } from '@tollgate/core';
import type {
  CompileContext,
  CompiledRequest,
  Connector,
  CredentialResolver,
  DiscoverOptions,
  ExecuteContext,
  ResourceDescriptor,
  ResourceKind,
  ShapeContext,
  ShapedResult,
  UpstreamResponse,
} from '@tollgate/core';
import { effectiveRedactions } from '@tollgate/core';

import { compileSql } from './compile/compile.js';
import type { SqlDialect } from './dialect.js';
import type { CatalogTable } from './discovery/catalog.js';
import { toDiscoveredSchema } from './discovery/schema.js';
import type { SqlConnection, SqlTarget } from './kind/spec.js';
import type { SqlRequest } from './native.js';
import { sqlSpec } from './resource.js';
import { shapeSqlResult } from './shape/shape.js';
import type { SqlResult } from './shape/shape.js';

/** One execution as a driver sees it. */
export interface SqlExecuteOptions {
  /** Names the pool: one per resource version (tenant, environment, name, connection). */
  poolKey: string;
  /** Resource name, for messages. */
  resource: string;
  connection: SqlConnection;
  credentials: CredentialResolver;
  deadline?: number;
  signal?: AbortSignal;
  maxAttempts?: number;
  backoffMs?: number;
}

/** What a kind brings to the SQL core: its dialect, catalog reads and pooled execution. */
export interface SqlDriver {
  /** The dialect (built on the driver's escaping; loaded on first use). */
  dialect(): SqlDialect;
  discover(
    connection: SqlConnection,
    target: SqlTarget,
    credentials: CredentialResolver,
    options: DiscoverOptions,
  ): Promise<CatalogTable>;
  execute(
    request: SqlRequest,
    options: SqlExecuteOptions,
  ): Promise<{ result: SqlResult; attempts: number; latencyMs: number }>;
  close(): Promise<void>;
}

/** What a kind's driver module exports: the parts of `SqlDriver` that need the driver loaded. */
export interface SqlRuntime {
  discover: SqlDriver['discover'];
  execute: SqlDriver['execute'];
  closePools(): Promise<void>;
  openPools(): number;
}

/**
 * A driver whose module (`load`, e.g. `() => import('./runtime.js')`) loads with the first
 * discovery or call, so reading the kind stays cheap; closing loads nothing that is not open.
 */
export function lazySqlDriver(
  dialect: SqlDriver['dialect'],
  load: () => Promise<SqlRuntime>,
): SqlDriver {
  return {
    dialect,
    discover: async (connection, target, credentials, options) =>
      (await load()).discover(connection, target, credentials, options),
    execute: async (request, options) => (await load()).execute(request, options),
    close: async () => {
      const { closePools, openPools } = await load();
      if (openPools() > 0) await closePools();
    },
  };
}

/** The pool of a resource version: who owns it and where it points, never a secret. */
export function poolKeyOf(descriptor: ResourceDescriptor): string {
  const { tenant, environment, name } = descriptor.metadata;
  const spec = sqlSpec(descriptor);
  const digest = createHash('sha256')
    .update(JSON.stringify([spec.connection, spec.target]))
    .digest('hex')
    .slice(0, 16);
  return `${tenant}/${environment}/${name}/${digest}`;
}

/** The SQL result an execute left in an upstream response. */
function resultOf(upstream: UpstreamResponse, resource: string): SqlResult {
  const body = upstream.body as Partial<SqlResult> | null;
  if (body === null || typeof body !== 'object' || !Array.isArray(body.rows)) {
    throw new TollgateError(
      'UPSTREAM_BAD_RESPONSE',
      `The database answered ${resource} with something unexpected.`,
    );
  }
  return body as SqlResult;
}

/** The connector of a SQL kind. */
export function sqlConnector(kind: ResourceKind, driver: SqlDriver): Connector<SqlRequest> {
  // A resource version's operations are worked out once, not on every call.
  const operations = new WeakMap<ResourceDescriptor, readonly string[]>();
  const offered = (ctx: CompileContext): readonly string[] => {
    let names = operations.get(ctx.descriptor);
    if (names === undefined) {
      names = kind.operations(ctx.descriptor).map((op) => op.name);
      operations.set(ctx.descriptor, names);
    }
    return names;
  };
  return {
    ...kind,
    async discover(spec, credentials, options = {}) {
      const { connection, target, schema } = spec as unknown as ReturnType<typeof sqlSpec>;
      const catalog = await driver.discover(connection, target, credentials, options);
      return toDiscoveredSchema(catalog, schema?.fields ?? {});
    },
    compile: (operation, args, ctx) =>
      compileSql(kind.type, driver.dialect(), offered, operation, args, ctx),
    async execute(request: CompiledRequest<SqlRequest>, ctx: ExecuteContext) {
      const spec = sqlSpec(ctx.descriptor);
      const { result, attempts, latencyMs } = await driver.execute(request.native, {
        poolKey: poolKeyOf(ctx.descriptor),
        resource: ctx.descriptor.metadata.name,
        connection: spec.connection,
        credentials: ctx.credentials,
        ...callerLimits(ctx),
      });
      return { status: 200, body: result, attempts, latencyMs };
    },
    shape(_operation: string, upstream: UpstreamResponse, ctx: ShapeContext): ShapedResult {
      const request = ctx.request as CompiledRequest<SqlRequest>;
      const spec = sqlSpec(ctx.descriptor);
      const visible = new Set(ctx.permissions.visibleFields);
      const redact = effectiveRedactions(spec.access, ctx.permissions);
      return shapeSqlResult(request.native, resultOf(upstream, request.resource), {
        resource: request.resource,
        visibleFields: request.fields.filter((field) => visible.has(field)),
        ...(Object.keys(redact).length === 0 ? {} : { redact }),
        ...(request.page === undefined ? {} : { page: request.page }),
        ...(ctx.maxBytes === undefined ? {} : { maxBytes: ctx.maxBytes }),
      });
    },
    close: () => driver.close(),
  };
}
