/**
 * Input schemas of the synthesized tools, one builder per operation. Only what the projection
 * allows appears: enums of permitted fields, operators pruned per field, typed values, caps.
 * Optional arguments are nullable and not required; `additionalProperties: false` everywhere.
 */
import { canonicalJson } from '../canonical.js';
import type { FilterOp, JsonSchema, Operation } from '../tools/types.js';
import { nullable } from './fields.js';
import type { FilterBranch, Projection } from './projection.js';

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

const OP_HELP: [FilterOp[], string][] = [
  [['eq'], 'eq equals'],
  [['in'], 'in any of a list'],
  [['gt', 'gte', 'lt', 'lte'], 'gt/gte/lt/lte compare'],
  [['between'], 'between [low, high] inclusive'],
  [['match'], 'match full-text'],
  [['exists'], 'exists has a value'],
];

/** The arguments schema of `operation`, or undefined when the projection leaves nothing to do. */
export function inputSchema(operation: Operation, p: Projection): JsonSchema | undefined {
  switch (operation) {
    case 'search':
      if (p.visible.length === 0) return undefined;
      return root({
        ...filtersProperty(p),
        fields: fieldsProperty(p),
        ...sortProperty(p),
        limit: {
          type: ['integer', 'null'],
          description: 'Most documents to return.',
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
    case 'get':
      if (p.visible.length === 0) return undefined;
      return root({ id: idProperty(p), fields: fieldsProperty(p) }, ['id']);
    case 'count':
      return root({ ...filtersProperty(p) });
    case 'aggregate':
      if (p.aggregations.size === 0) return undefined;
      return root({ ...filtersProperty(p), aggregation: aggregationProperty(p) }, ['aggregation']);
    case 'write':
      if (p.writable.length === 0) return undefined;
      return root(
        {
          id: idProperty(p),
          document: {
            type: 'object',
            description: 'Fields to set; null leaves a field unchanged.',
            properties: Object.fromEntries(p.writable),
            additionalProperties: false,
          },
        },
        ['id', 'document'],
      );
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
  return [...groups.values()];
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

function idProperty(p: Projection): JsonSchema {
  return {
    type: 'string',
    description: 'Document id.',
    minLength: 1,
    maxLength: p.limits.maxIdLength,
  };
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
      extra.interval = { type: 'string', enum: ['hour', 'day', 'week', 'month', 'year'] };
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
