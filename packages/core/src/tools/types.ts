/**
 * What a principal may do on one resource version: the projection input for tool synthesis
 * and the contract the executor enforces. Produced by the policy engine (or, without one,
 * derived from the resource's `access` block).
 *
 * Optional arguments are nullable as well as omittable (OpenAI strict mode sends every key,
 * `null` for "not given"); validated arguments reach the compiler with every `null` removed.
 */
import type { ResourceDescriptor } from '../descriptor/types.js';

export type Operation = 'search' | 'get' | 'count' | 'aggregate' | 'write';

export interface PermissionSet {
  operations: Operation[];
  /** Fields the principal may see in results (sorted). */
  visibleFields: string[];
  /** Fields the principal may filter on (sorted). */
  filterableFields: string[];
  /** Upper bound for `limit`. */
  limitCap: number;
}

/** The operators a filter may use; which ones a field gets depends on its type and capabilities. */
export type FilterOp = 'eq' | 'in' | 'exists' | 'gt' | 'gte' | 'lt' | 'lte' | 'between' | 'match';

export type FilterValue = string | number | boolean | Array<string | number> | null;

/**
 * One condition; a call's filters all hold at once (AND). `value` by op: eq → a scalar of the
 * field's type (dates as ISO-8601 date-time strings); in → 1..100 strings; gt/gte/lt/lte → a
 * number or date; between → `[low, high]`, both inclusive, low ≤ high; match → text;
 * exists → no value (the field has one).
 */
export interface Filter {
  field: string;
  op: FilterOp;
  value?: FilterValue;
}

export interface SortSpec {
  field: string;
  order: 'asc' | 'desc';
}

/** Arguments of `<name>_search`, as the synthesized schema admits them. */
export interface SearchArgs {
  filters?: Filter[] | null;
  fields?: string[] | null;
  sort?: SortSpec[] | null;
  limit?: number | null;
  cursor?: string | null;
}

export interface GetArgs {
  id: string;
  fields?: string[] | null;
}

export interface CountArgs {
  filters?: Filter[] | null;
}

/**
 * terms: top values with counts (keyword, ip, boolean, numeric); date_histogram: counts per
 * calendar interval (date); stats: count/min/max/avg/sum (numeric); cardinality: distinct count.
 */
export type AggregationKind = 'terms' | 'date_histogram' | 'stats' | 'cardinality';

export interface AggregateArgs {
  filters?: Filter[] | null;
  aggregation: {
    kind: AggregationKind;
    field: string;
    /** terms: bucket count (capped); date_histogram: calendar interval. */
    size?: number | null;
    interval?: 'hour' | 'day' | 'week' | 'month' | 'year' | null;
  };
}

/**
 * Creates or updates the document `id`, setting the given declared fields; fields given as
 * `null` (or omitted) are left unchanged.
 */
export interface WriteArgs {
  id: string;
  document: Record<string, unknown>;
}

/** Any JSON value; tool schemas and rendered tools are plain JSON. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

export interface JsonObject {
  [key: string]: JsonValue;
}

/** A JSON Schema (draft 2020-12) as a plain JSON object. */
export type JsonSchema = JsonObject;

/** A resource descriptor as the registry stores it: one immutable, numbered version. */
export type VersionedResource = ResourceDescriptor & { version: number };

/**
 * One synthesized tool: a projection of (resource version × permission set), never code.
 * The executor validates calls against exactly this `inputSchema`.
 */
export interface ToolDefinition {
  /** `<resource>_<operation>`, at most 64 characters. */
  name: string;
  /** What the resource holds, when to use the tool and when not to. */
  description: string;
  operation: Operation;
  resource: { name: string; tenant: string; environment: string; version: number };
  /** JSON Schema 2020-12 for the arguments; `additionalProperties: false` at every level. */
  inputSchema: JsonSchema;
  /** sha256 (hex) over the canonical JSON of every other member: same inputs, same version. */
  version: string;
}

/** The export formats a tool can be rendered in. */
export type ToolFormat = 'json_schema' | 'openai' | 'anthropic' | 'mcp';
