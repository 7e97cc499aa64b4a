import {
  DEFAULT_MAX_BYTES,
  DROPPED,
  encodeCursor,
  fitToBytes,
  redactValue,
  TollgateError,
} from '@tollgate/core';
import type { CursorValue, RedactionMethod, ShapedResult } from '@tollgate/core';

import type { OutputColumn, SqlReadRequest, SqlRequest, SqlWriteRequest } from '../native.js';
import { decodeValue } from './decode.js';

/** What a statement returned, as the kind's driver reports it. */
export interface SqlResult {
  rows: Array<Record<string, unknown>>;
  /** Rows an UPDATE or INSERT changed. */
  affected?: number;
  /** Which write statement changed the row (`write` runs update, then insert). */
  wrote?: 'updated' | 'created';
  /** The key the server assigned on insert (RETURNING, or the insert id the server reports). */
  generatedKey?: Record<string, unknown>;
}

/** Everything shaping needs beyond the result: who sees what, the page, the budget. */
export interface SqlShapeContext {
  resource: string;
  /** Columns this principal may see (permission set); re-applied to every row. */
  visibleFields: readonly string[];
  /** The redactions that apply to this principal (role exemptions already applied). */
  redact?: Readonly<Record<string, RedactionMethod>>;
  /** search: rows asked for and the seal cursors are signed with. */
  page?: { limit: number; seal: string; continued: boolean };
  maxBytes?: number;
}

/**
 * Reduces a statement's result to what the agent may see: visible columns only, each decoded
 * to its JSON form and redacted, row and byte caps enforced, and a sealed cursor when more rows
 * follow.
 */
export function shapeSqlResult(
  request: SqlRequest,
  result: SqlResult,
  ctx: SqlShapeContext,
): ShapedResult {
  if (request.mode === 'write') return shapeWrite(request, result);
  const maxBytes = ctx.maxBytes ?? DEFAULT_MAX_BYTES;
  switch (request.result) {
    case 'rows':
      return shapeRows(request, result, ctx, maxBytes);
    case 'row': {
      const row = result.rows[0];
      if (row === undefined) {
        throw new TollgateError(
          'NOT_FOUND',
          `No row with that key in ${ctx.resource} (or it is outside what you may see).`,
        );
      }
      const fitted = fitToBytes(
        Object.entries(project(row, projectionOf(request.columns, ctx))),
        maxBytes,
        (entries) => Object.fromEntries(entries),
      );
      return {
        data: Object.fromEntries(fitted.items),
        returned: 1,
        truncated: fitted.truncated,
        bytes: fitted.bytes,
      };
    }
    case 'count': {
      const count = Number(result.rows[0]?.['count'] ?? Number.NaN);
      if (!Number.isInteger(count) || count < 0) throw badResponse(ctx.resource, 'count');
      const cap = request.countCap ?? Number.POSITIVE_INFINITY;
      const value = Math.min(count, cap);
      return sized(
        { count: value },
        {
          returned: 0,
          total: { value, relation: count > cap ? 'gte' : 'eq' },
          truncated: count > cap,
        },
      );
    }
    case 'aggregate':
      return shapeAggregate(request, result, maxBytes);
  }
}

/** What to do with each result column a principal may see: decode it, then redact it or not. */
type Projection = Array<{ column: OutputColumn; redact?: RedactionMethod }>;

/** The projection of `columns` for this principal, worked out once per result, not per row. */
function projectionOf(columns: readonly OutputColumn[], ctx: SqlShapeContext): Projection {
  const visible = new Set(ctx.visibleFields);
  const redact = ctx.redact ?? {};
  return columns
    .filter((column) => visible.has(column.name))
    .map((column) =>
      Object.hasOwn(redact, column.name)
        ? { column, redact: redact[column.name] as RedactionMethod }
        : { column },
    );
}

function project(row: Record<string, unknown>, projection: Projection): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { column, redact } of projection) {
    const value = decodeValue(row[column.name], column.type);
    const kept = redact === undefined ? value : redactValue(value, redact);
    if (kept === DROPPED) continue;
    // A column named `__proto__` must stay an own property, never set the prototype.
    if (column.name === '__proto__')
      Object.defineProperty(out, column.name, {
        value: kept,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[column.name] = kept;
  }
  return out;
}

function shapeRows(
  request: SqlReadRequest,
  result: SqlResult,
  ctx: SqlShapeContext,
  maxBytes: number,
): ShapedResult {
  const page = ctx.page;
  if (page === undefined)
    throw new TollgateError('INTERNAL', 'A search was compiled without paging.');
  const page1 = result.rows.slice(0, page.limit);
  const more = result.rows.length > page.limit;
  const projection = projectionOf(request.columns, ctx);
  const rows = page1.map((row) => project(row, projection));
  const fitted = fitToBytes(rows, maxBytes);
  const keys = request.keys ?? [];
  const keyTypes = new Map(request.columns.map((c) => [c.name, c.type]));
  // After a byte cut, continue right after the last row kept (or past a row too big to send).
  const last = page1[Math.max(fitted.items.length - 1, 0)];
  const cursor =
    (more || fitted.truncated) && last !== undefined && keys.length > 0
      ? encodeCursor(
          keys.map(
            (key) =>
              decodeValue(last[key], keyTypes.get(key) as OutputColumn['type']) as CursorValue,
          ),
          page.seal,
        )
      : undefined;
  const complete = !page.continued && !more;
  return {
    data: fitted.items,
    returned: fitted.items.length,
    ...(complete ? { total: { value: rows.length, relation: 'eq' as const } } : {}),
    truncated: more || fitted.truncated,
    ...(cursor === undefined ? {} : { cursor }),
    bytes: fitted.bytes,
  };
}

function shapeAggregate(
  request: SqlReadRequest,
  result: SqlResult,
  maxBytes: number,
): ShapedResult {
  const plan = request.aggregate;
  if (plan === undefined)
    throw new TollgateError('INTERNAL', 'An aggregate was compiled without a plan.');
  const metricsOf = (row: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(
      plan.metrics.map((m, i) => [
        plan.metricLabels[i] as string,
        decodeValue(row[m.name], m.type),
      ]),
    );
  if (plan.groups.length === 0) {
    const row = result.rows[0] ?? {};
    const metrics = metricsOf(row);
    const field = plan.metrics[0]?.column;
    if (plan.kind === 'cardinality')
      return sized(
        { kind: plan.kind, field, value: Number(Object.values(metrics)[0] ?? 0) },
        { returned: 1, truncated: false },
      );
    if (plan.kind === 'stats') {
      const stats = Object.fromEntries(
        plan.metrics.map((m) => [m.fn, decodeValue(row[m.name], m.type)]),
      );
      stats['count'] = Number(stats['count'] ?? 0);
      return sized({ kind: plan.kind, field, stats }, { returned: 1, truncated: false });
    }
    return sized(
      { kind: plan.kind, metrics: normalizeCounts(metrics) },
      { returned: 1, truncated: false },
    );
  }
  const capped = result.rows.slice(0, plan.bucketCap);
  const buckets = capped.map((row) => {
    const keys = plan.groups.map((g) => decodeValue(row[g.name], g.type));
    const key =
      plan.groups.length === 1
        ? keys[0]
        : Object.fromEntries(plan.labels.map((label, i) => [label, keys[i]]));
    const metrics = normalizeCounts(metricsOf(row));
    return plan.kind === 'group' ? { key, ...metrics } : { key, count: metrics['count'] };
  });
  const head =
    plan.kind === 'group'
      ? { kind: plan.kind, groupBy: plan.labels }
      : { kind: plan.kind, field: plan.labels[0] };
  const fitted = fitToBytes(buckets, maxBytes, (kept) => ({ ...head, buckets: kept }));
  return {
    data: { ...head, buckets: fitted.items },
    returned: fitted.items.length,
    truncated: fitted.truncated || result.rows.length > plan.bucketCap,
    bytes: fitted.bytes,
  };
}

/** Counts fit a JSON number; drivers hand them over as 64-bit strings. */
function normalizeCounts(metrics: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(metrics))
    if (key === 'count' || key.startsWith('count_')) metrics[key] = Number(metrics[key]);
  return metrics;
}

function shapeWrite(request: SqlWriteRequest, result: SqlResult): ShapedResult {
  if (result.wrote === undefined)
    throw new TollgateError('INTERNAL', 'A write finished without saying what it wrote.');
  const key: Record<string, unknown> = { ...request.key };
  for (const [name, value] of Object.entries(result.generatedKey ?? {}))
    if (value !== undefined && value !== null)
      key[name] = typeof value === 'bigint' ? value.toString() : value;
  return sized({ key, result: result.wrote }, { returned: 1, truncated: false });
}

function sized(data: unknown, meta: Omit<ShapedResult, 'data' | 'bytes'>): ShapedResult {
  return { data, ...meta, bytes: Buffer.byteLength(JSON.stringify(data), 'utf8') };
}

function badResponse(resource: string, what: string): TollgateError {
  return new TollgateError(
    'UPSTREAM_BAD_RESPONSE',
    `The database answered a ${what} for ${resource} with something unexpected.`,
  );
}
