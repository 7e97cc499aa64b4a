import {
  checkAggregationField,
  checkAggregationKind,
  checkBucketSize,
  checkInterval,
  checkKeys,
  isNumericClass,
  isScalarClass,
  MAX_BUCKETS,
  oneOf,
  own,
  Violations,
} from '@tollgate/core';
import type { AggregationKind, CalendarInterval } from '@tollgate/core';

import type { SqlColumn, SqlColumnType } from '../model.js';
import type { AggregateFunction, AggregatePlan, OutputColumn, SqlReadRequest } from '../native.js';
import { columnOf, redactionOf } from './context.js';
import type { SqlCompileContext } from './context.js';
import { compileFilters } from './filters.js';
import { traitsOfColumn } from './operators.js';
import { whereClause } from './read.js';
import { qualifiedName, StatementBuilder } from './statement.js';

export const MAX_GROUP_BY = 2;
export const MAX_METRICS = 5;
const FUNCTIONS: readonly Exclude<AggregateFunction, 'count_distinct'>[] = [
  'count',
  'sum',
  'avg',
  'min',
  'max',
];

interface Group {
  column: SqlColumn;
  interval?: CalendarInterval;
}
interface Metric {
  fn: AggregateFunction;
  column?: SqlColumn;
}
interface Plan {
  kind: AggregationKind | 'group';
  groups: Group[];
  metrics: Metric[];
  size: number;
  /** Buckets ordered by count (terms, groups) or by key (histograms). */
  byCount: boolean;
}

/**
 * Columns this principal may aggregate with `fn` (or group by, for `group`): declared
 * aggregatable, visible to them (an aggregate reveals values), not redacted at all, and of a
 * class the function accepts. Sorted.
 */
export function aggregatableColumns(
  ctx: SqlCompileContext,
  use: 'group' | 'histogram' | AggregateFunction,
): string[] {
  return [...new Set(ctx.permissions.visibleFields)]
    .filter((name) => {
      const column = columnOf(ctx, name);
      if (column?.aggregatable !== true || redactionOf(ctx, name) !== undefined) return false;
      const traits = traitsOfColumn(column);
      switch (use) {
        case 'group':
        case 'count_distinct':
        case 'count':
          return isScalarClass(traits);
        case 'histogram':
          return traits.valueClass === 'date' || traits.valueClass === 'datetime';
        case 'sum':
        case 'avg':
          return isNumericClass(traits);
        case 'min':
        case 'max':
          return isScalarClass(traits) && traits.valueClass !== 'boolean';
      }
    })
    .sort();
}

/**
 * `<name>_aggregate` → one grouped statement under the row filter and the agent's filters.
 * `aggregation` is either a single-field aggregation (`{kind: terms|date_histogram|stats|
 * cardinality, field, size?, interval?}`) or a grouping (`{groupBy: [columns], metrics: [{fn:
 * count|sum|avg|min|max, field?}], size?}`). Buckets are capped; one more is asked for to tell
 * whether any were left out.
 */
export function compileAggregate(args: unknown, ctx: SqlCompileContext): SqlReadRequest {
  const violations = new Violations();
  if (!checkKeys(args, ['filters', 'aggregation'], '', violations))
    violations.throwIfAny('aggregate');
  const input = args as Record<string, unknown>;
  const sql = new StatementBuilder(ctx.dialect);
  const conditions = whereClause(
    ctx,
    sql,
    compileFilters(own(input, 'filters'), ctx, sql, violations),
  );
  const spec = own(input, 'aggregation');
  const plan = checkKeys(
    spec,
    ['kind', 'field', 'size', 'interval', 'groupBy', 'metrics'],
    'aggregation',
    violations,
  )
    ? own(spec, 'kind') === undefined || own(spec, 'kind') === null
      ? groupingPlan(spec, ctx, violations)
      : fieldPlan(spec, ctx, violations)
    : undefined;
  violations.throwIfAny('aggregate');
  return renderPlan(plan as Plan, conditions, ctx, sql);
}

function fieldPlan(
  spec: Record<string, unknown>,
  ctx: SqlCompileContext,
  violations: Violations,
): Plan | undefined {
  const kind = checkAggregationKind(own(spec, 'kind'), violations);
  if (kind === undefined) return undefined;
  for (const key of ['groupBy', 'metrics']) {
    if (own(spec, key) !== undefined && own(spec, key) !== null) {
      violations.add(`aggregation.${key}`, `${key} goes without "kind"`, 'null', own(spec, key));
    }
  }
  const use =
    kind === 'terms'
      ? 'group'
      : kind === 'date_histogram'
        ? 'histogram'
        : kind === 'stats'
          ? 'min'
          : 'count_distinct';
  const allowed =
    kind === 'stats' ? aggregatableColumns(ctx, 'sum') : aggregatableColumns(ctx, use);
  const field = checkAggregationField(own(spec, 'field'), kind, allowed, violations);
  const column = field === undefined ? undefined : columnOf(ctx, field);
  const size = checkBucketSize(own(spec, 'size'), kind === 'terms', NO_BUCKETS, violations);
  const interval = checkInterval(own(spec, 'interval'), kind, violations);
  if (column === undefined) return undefined;
  switch (kind) {
    case 'terms':
      return {
        kind: 'terms',
        groups: [{ column }],
        metrics: [{ fn: 'count' }],
        size,
        byCount: true,
      };
    case 'date_histogram':
      return {
        kind: 'date_histogram',
        groups: [{ column, interval: interval as CalendarInterval }],
        metrics: [{ fn: 'count' }],
        size: MAX_BUCKETS,
        byCount: false,
      };
    case 'stats':
      return {
        kind: 'stats',
        groups: [],
        metrics: [
          { fn: 'count', column },
          ...(['min', 'max', 'avg', 'sum'] as const).map((fn) => ({ fn, column })),
        ],
        size: 1,
        byCount: false,
      };
    case 'cardinality':
      return {
        kind: 'cardinality',
        groups: [],
        metrics: [{ fn: 'count_distinct', column }],
        size: 1,
        byCount: false,
      };
  }
}

function groupingPlan(
  spec: Record<string, unknown>,
  ctx: SqlCompileContext,
  violations: Violations,
): Plan | undefined {
  for (const key of ['field', 'interval']) {
    if (own(spec, key) !== undefined && own(spec, key) !== null) {
      violations.add(
        `aggregation.${key}`,
        `${key} needs "kind"; a grouping names groupBy and metrics`,
        'null',
        own(spec, key),
      );
    }
  }
  const groups: Group[] = [];
  const rawGroups = own(spec, 'groupBy') ?? [];
  const groupable = aggregatableColumns(ctx, 'group');
  if (!Array.isArray(rawGroups) || rawGroups.length > MAX_GROUP_BY) {
    violations.add(
      'aggregation.groupBy',
      `expected at most ${MAX_GROUP_BY} columns`,
      oneOf(groupable),
      rawGroups,
    );
  } else {
    rawGroups.forEach((name: unknown, index) => {
      const column =
        typeof name === 'string' && groupable.includes(name) ? columnOf(ctx, name) : undefined;
      if (column === undefined || groups.some((g) => g.column.name === name)) {
        violations.add(
          `aggregation.groupBy[${index}]`,
          typeof name === 'string' ? `cannot group by "${name}"` : 'expected a field name',
          oneOf(groupable),
          name,
        );
      } else groups.push({ column });
    });
  }
  const metrics: Metric[] = [];
  const rawMetrics = own(spec, 'metrics') ?? [{ fn: 'count' }];
  if (!Array.isArray(rawMetrics) || rawMetrics.length < 1 || rawMetrics.length > MAX_METRICS) {
    violations.add(
      'aggregation.metrics',
      `expected 1 to ${MAX_METRICS} metrics`,
      `array of 1 to ${MAX_METRICS} {fn, field}`,
      rawMetrics,
    );
  } else {
    rawMetrics.forEach((entry: unknown, index) => {
      const path = `aggregation.metrics[${index}]`;
      if (!checkKeys(entry, ['fn', 'field'], path, violations)) return;
      const fn = own(entry, 'fn');
      if (typeof fn !== 'string' || !FUNCTIONS.includes(fn as (typeof FUNCTIONS)[number])) {
        violations.add(`${path}.fn`, 'unknown aggregate function', oneOf(FUNCTIONS), fn);
        return;
      }
      const field = own(entry, 'field');
      if (fn === 'count' && (field === undefined || field === null)) {
        metrics.push({ fn: 'count' });
        return;
      }
      const allowed = aggregatableColumns(ctx, fn as AggregateFunction);
      const column =
        typeof field === 'string' && allowed.includes(field) ? columnOf(ctx, field) : undefined;
      if (column === undefined) {
        violations.add(
          `${path}.field`,
          typeof field === 'string'
            ? `field "${field}" cannot be used with ${fn}`
            : `${fn} needs a field`,
          oneOf(allowed),
          field,
        );
        return;
      }
      metrics.push({ fn: fn as AggregateFunction, column });
    });
  }
  const names = metrics.map(metricName);
  if (new Set(names).size !== names.length)
    violations.add(
      'aggregation.metrics',
      'a metric is listed twice',
      'distinct metrics',
      rawMetrics,
    );
  const size = checkBucketSize(own(spec, 'size'), groups.length > 0, NO_BUCKETS, violations);
  return { kind: 'group', groups, metrics, size: groups.length === 0 ? 1 : size, byCount: true };
}

const NO_BUCKETS = 'size applies to aggregations with buckets only';

/** `count`, `count_distinct_<col>`, `sum_<col>`, …: the key a metric has in a bucket. */
export function metricName(metric: Metric): string {
  return metric.column === undefined ? metric.fn : `${metric.fn}_${metric.column.name}`;
}

const COUNT_TYPE: SqlColumnType = { class: 'integer', native: 'bigint', bits: 64 };

function metricType(metric: Metric): SqlColumnType {
  const type = metric.column?.type;
  if (metric.fn === 'count' || metric.fn === 'count_distinct' || type === undefined)
    return COUNT_TYPE;
  if (metric.fn === 'min' || metric.fn === 'max') return type;
  // Sums and means of exact numbers stay exact (decimal strings); of floats, floats.
  return type.class === 'number' ? type : { class: 'decimal', native: 'numeric' };
}

function renderPlan(
  plan: Plan,
  conditions: string[],
  ctx: SqlCompileContext,
  sql: StatementBuilder,
): SqlReadRequest {
  const groupExpressions = plan.groups.map((group) =>
    group.interval === undefined
      ? sql.id(group.column.name)
      : ctx.dialect.truncateDate(sql.id(group.column.name), group.interval, group.column.type),
  );
  const groups: OutputColumn[] = plan.groups.map((group, i) => ({
    name: `g${i}`,
    type: group.column.type,
  }));
  const metrics: AggregatePlan['metrics'] = plan.metrics.map((metric, i) => ({
    name: `m${i}`,
    fn: metric.fn,
    ...(metric.column === undefined ? {} : { column: metric.column.name }),
    type: metricType(metric),
  }));
  const select = [
    ...groupExpressions.map((expression, i) => `${expression} AS ${sql.id(`g${i}`)}`),
    ...plan.metrics.map((metric, i) => `${metricExpression(metric, sql)} AS ${sql.id(`m${i}`)}`),
  ];
  let text = `SELECT ${select.join(', ')} FROM ${qualifiedName(ctx.dialect, ctx.table)}`;
  if (conditions.length > 0) text += ` WHERE ${conditions.join(' AND ')}`;
  if (groupExpressions.length > 0) {
    text += ` GROUP BY ${groupExpressions.join(', ')}`;
    const byKey = groups.map((g) => ctx.dialect.orderKey(sql.id(g.name), 'asc', true));
    const countIndex = plan.metrics.findIndex((m) => m.fn === 'count' && m.column === undefined);
    const order =
      plan.byCount && countIndex >= 0 ? [`${sql.id(`m${countIndex}`)} DESC`, ...byKey] : byKey;
    text += ` ORDER BY ${order.join(', ')} LIMIT ${plan.size + 1}`;
  }
  return {
    mode: 'read',
    result: 'aggregate',
    statement: sql.build(text),
    columns: [...groups, ...metrics.map((m) => ({ name: m.name, type: m.type }))],
    aggregate: {
      groups,
      metrics,
      bucketCap: plan.size,
      kind: plan.kind,
      labels: plan.groups.map((g) => g.column.name),
      metricLabels: plan.metrics.map(metricName),
    },
  };
}

function metricExpression(metric: Metric, sql: StatementBuilder): string {
  if (metric.column === undefined) return 'COUNT(*)';
  const id = sql.id(metric.column.name);
  switch (metric.fn) {
    case 'count':
      return `COUNT(${id})`;
    case 'count_distinct':
      return `COUNT(DISTINCT ${id})`;
    default:
      return `${metric.fn.toUpperCase()}(${id})`;
  }
}
