/**
 * Input schemas of the synthesized tools, one builder per operation. Only what the projection
 * allows appears: enums of permitted fields, operators pruned per field, typed values, caps.
 * Optional arguments are nullable and not required; `additionalProperties: false` everywhere.
 */
import { canonicalJson } from '../canonical.js';
import { JSON_SCHEMA_DIALECT } from '../tools/types.js';
import type { JsonSchema } from '../tools/types.js';
import type { FilterOp } from './args.js';
import { CALENDAR_INTERVALS, FILTER_OPS } from './compile.js';
import { traitsOrOpaque } from './family.js';
import { nullable, scalarSchema } from './fields.js';
import type { FilterBranch, Projection } from './projection.js';

const OP_HELP: [FilterOp[], string][] = [
  [['eq'], 'eq equals'],
  [['in'], 'in any of a list'],
  [['gt', 'gte', 'lt', 'lte'], 'gt/gte/lt/lte compare'],
  [['between'], 'between [low, high] inclusive'],
  [['match'], 'match full-text'],
  [['prefix'], 'prefix starts with'],
  [['contains'], 'contains has the substring'],
  [['exists'], 'exists has a value'],
  [['is_null'], 'is_null true for no value, false for any'],
];

/** The arguments schema of `operation`, or undefined when the projection leaves nothing to do. */
export function inputSchema(operation: string, p: Projection): JsonSchema | undefined {
  switch (operation) {
    case 'search':
      if (p.visible.length === 0) return undefined;
      return root({
        ...filtersProperty(p),
        fields: fieldsProperty(p),
        ...sortProperty(p),
        limit: {
          type: ['integer', 'null'],
          description: `Most ${p.model.dialect.record}s to return.`,
          minimum: 1,
          maximum: p.limitCap,
        },
        cursor: {
          type: ['string', 'null'],
          description: 'Cursor from the previous page, to get the next one.',
          minLength: 1,
          maxLength: p.limits.maxCursorLength,
        },
      });
    case 'get': {
      if (p.visible.length === 0) return undefined;
      const key = keyProperty(p);
      if (key === undefined) return undefined;
      return root({ ...key.properties, fields: fieldsProperty(p) }, key.required);
    }
    case 'count':
      return root({ ...filtersProperty(p) });
    case 'aggregate':
      if (p.aggregations.size === 0) return undefined;
      return root({ ...filtersProperty(p), aggregation: aggregationProperty(p) }, ['aggregation']);
    case 'write':
    case 'insert':
    case 'update': {
      if (p.writable.length === 0) return undefined;
      const payload = p.model.dialect.writePayload;
      const values: JsonSchema = {
        type: 'object',
        description:
          operation === 'insert'
            ? 'Fields of the new record; null or omitted leaves a field unset.'
            : 'Fields to set; null leaves a field unchanged.',
        properties: Object.fromEntries(p.writable),
        additionalProperties: false,
      };
      if (operation === 'insert') return root({ [payload]: values }, [payload]);
      const key = keyProperty(p);
      if (key === undefined) return undefined;
      return root({ ...key.properties, [payload]: values }, [...key.required, payload]);
    }
    default:
      return undefined;
  }
}

function root(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return {
    $schema: JSON_SCHEMA_DIALECT,
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

// The tools of one projection share one filters schema object (same content, hashed once).
const sharedFilters = new WeakMap<Projection, Record<string, JsonSchema>>();

function filtersProperty(p: Projection): Record<string, JsonSchema> {
  let shared = sharedFilters.get(p);
  if (shared === undefined) {
    shared = buildFiltersProperty(p);
    sharedFilters.set(p, shared);
  }
  return shared;
}

function buildFiltersProperty(p: Projection): Record<string, JsonSchema> {
  if (p.filters.length === 0) return {};
  const present = new Set(p.filters.flatMap((branch) => branch.ops));
  const help = OP_HELP.filter(([ops]) => ops.some((op) => present.has(op))).map(([, text]) => text);
  const dates = p.filters.some((branch) => takesDates(branch.value));
  return {
    filters: {
      type: ['array', 'null'],
      description: `Conditions that must all hold. Ops: ${help.join('; ')}.${dates ? ' Dates are ISO-8601 date-times.' : ''}`,
      maxItems: p.limits.maxFilters,
      items: { anyOf: layoutBranches(p).map(filterBranchSchema) },
    },
  };
}

function takesDates(value: JsonSchema | undefined): boolean {
  const items = value?.items;
  const element =
    typeof items === 'object' && items !== null && !Array.isArray(items) ? items : value;
  return element?.format === 'date-time';
}

/** A filter branch as laid out: one field, or (grouped) every field sharing ops and value. */
interface LaidOutBranch extends Omit<FilterBranch, 'field'> {
  fields: string[];
}

function layoutBranches(p: Projection): LaidOutBranch[] {
  if (p.limits.filterLayout === 'per_field') {
    return p.filters.map(({ field, ...rest }) => ({ ...rest, fields: [field] }));
  }
  const groups = new Map<string, LaidOutBranch>();
  for (const { field, ops, value } of p.filters) {
    const key = canonicalJson({ ops, value });
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { ops, fields: [field], ...(value ? { value } : {}) });
    else group.fields.push(field);
  }
  // Ordered by operator, so each field's operators read as in per_field (eq, in, exists, …).
  return [...groups.values()].sort((a, b) => opRank(a.ops) - opRank(b.ops));
}

function opRank(ops: FilterOp[]): number {
  const [first] = ops;
  return first === undefined ? FILTER_OPS.length : FILTER_OPS.indexOf(first);
}

function filterBranchSchema(branch: LaidOutBranch): JsonSchema {
  const [only] = branch.ops;
  const op: JsonSchema =
    branch.ops.length === 1 && only !== undefined ? { const: only } : { enum: branch.ops };
  const [single] = branch.fields;
  const field: JsonSchema =
    branch.fields.length === 1 && single !== undefined
      ? { const: single }
      : { enum: branch.fields };
  return {
    type: 'object',
    properties: {
      field: { type: 'string', ...field },
      op: { type: 'string', ...op },
      ...(branch.value !== undefined ? { value: branch.value } : {}),
    },
    required: branch.value !== undefined ? ['field', 'op', 'value'] : ['field', 'op'],
    additionalProperties: false,
  };
}

function fieldsProperty(p: Projection): JsonSchema {
  return {
    type: ['array', 'null'],
    description: 'Fields to return; null for all.',
    items: { type: 'string', enum: p.visible },
    minItems: 1,
    maxItems: p.visible.length,
    uniqueItems: true,
  };
}

function sortProperty(p: Projection): Record<string, JsonSchema> {
  if (p.sortable.length === 0) return {};
  return {
    sort: {
      type: ['array', 'null'],
      description: 'Sort keys, most significant first.',
      maxItems: p.limits.maxSortKeys,
      items: {
        type: 'object',
        properties: {
          field: { type: 'string', enum: p.sortable },
          order: { type: 'string', enum: ['asc', 'desc'] },
        },
        required: ['field', 'order'],
        additionalProperties: false,
      },
    },
  };
}

/**
 * How `get` and `update` name a record: `id` (a record id string, or the single key column's
 * value), or `key` with every key column. Undefined when a key column is not a scalar.
 */
function keyProperty(
  p: Projection,
): { properties: Record<string, JsonSchema>; required: string[] } | undefined {
  const key = p.model.key(p.resource.spec.schema.fields);
  const record = p.model.dialect.record;
  if (key.kind === 'record_id') {
    return {
      properties: {
        id: {
          type: 'string',
          description: `${capitalised(record)} id.`,
          minLength: 1,
          maxLength: p.limits.maxIdLength,
        },
      },
      required: ['id'],
    };
  }
  const columns: [string, JsonSchema][] = [];
  for (const column of key.columns) {
    const spec = p.resource.spec.schema.fields[column];
    const schema =
      spec === undefined ? undefined : scalarSchema(traitsOrOpaque(p.model, spec), p.limits);
    if (schema === undefined) return undefined;
    columns.push([column, schema]);
  }
  const [only] = columns;
  if (columns.length === 1 && only !== undefined) {
    const [column, schema] = only;
    return {
      properties: { id: { ...schema, description: `The ${record}'s ${column}.` } },
      required: ['id'],
    };
  }
  return {
    properties: {
      key: {
        type: 'object',
        description: `The ${record}'s key: ${key.columns.join(', ')}.`,
        properties: Object.fromEntries(columns),
        required: [...key.columns],
        additionalProperties: false,
      },
    },
    required: ['key'],
  };
}

function capitalised(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function aggregationProperty(p: Projection): JsonSchema {
  const branches: JsonSchema[] = [];
  for (const [kind, fields] of p.aggregations) {
    const extra: Record<string, JsonSchema> = {};
    if (kind === 'terms') {
      extra.size = nullable({
        type: 'integer',
        description: 'Most buckets to return.',
        minimum: 1,
        maximum: p.limits.maxBuckets,
      });
    }
    if (kind === 'date_histogram') {
      extra.interval = { type: 'string', enum: [...CALENDAR_INTERVALS] };
    }
    branches.push({
      type: 'object',
      properties: {
        kind: { type: 'string', const: kind },
        field: { type: 'string', enum: fields },
        ...extra,
      },
      required: kind === 'date_histogram' ? ['kind', 'field', 'interval'] : ['kind', 'field'],
      additionalProperties: false,
    });
  }
  return { description: 'The one aggregation to compute.', anyOf: branches };
}
