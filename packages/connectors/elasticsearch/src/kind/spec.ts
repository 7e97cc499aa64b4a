/**
 * The `spec` of an Elasticsearch resource. These types are the source of truth for the kind's
 * published schema (`schema/spec.schema.json`, generated with `pnpm gen:schema`, JSDoc tags
 * included).
 */
import type { AccessSpec, Description } from '@tollgate/core';

/** Field types an Elasticsearch resource declares; discovery maps mapping types onto these. */
export type ElasticsearchFieldType =
  | 'keyword'
  | 'text'
  | 'long'
  | 'integer'
  | 'short'
  | 'byte'
  | 'double'
  | 'float'
  | 'half_float'
  | 'scaled_float'
  | 'unsigned_long'
  | 'date'
  | 'boolean'
  | 'ip'
  | 'object'
  | 'nested'
  | 'geo_point';

/** A field as declared (and, after discovery, as merged). Capabilities default to false. */
export interface ElasticsearchField {
  type: ElasticsearchFieldType;
  description?: Description;
  /** May appear in `filters` (eq/in/exists on keywords and ips, eq/range on numbers and dates). */
  filterable?: boolean;
  /** May be returned to the agent. */
  returnable?: boolean;
  /** May be used in `sort`; not on text, object, nested or geo_point fields. */
  sortable?: boolean;
  /** Range operators (gt, gte, lt, lte, between); numeric and date fields only. */
  range?: boolean;
  /** Full-text `match`; text fields only. */
  searchable?: boolean;
  /** May be used in aggregations; keyword, numeric, date, boolean and ip fields only. */
  aggregatable?: boolean;
  /**
   * Date format as the index declares it (e.g. `strict_date_optional_time||epoch_millis`);
   * date fields only.
   * @minLength 1
   * @maxLength 200
   */
  format?: string;
}

export interface ElasticsearchConnection {
  /**
   * http(s) URL without user info, e.g. `http://es.internal:9200`.
   * @minLength 1
   */
  endpoint: string;
  /**
   * Where the credential lives: `env://VAR_NAME`, `file:///abs/path`, `file://relative/path`
   * or `vault://mount/path[#key]`; never a literal secret.
   * @minLength 1
   */
  credentialRef?: string;
  /**
   * Upstream timeout per call, ms (default 5000).
   * @asType integer
   * @minimum 100
   * @maximum 300000
   */
  timeoutMs?: number;
}

export interface ElasticsearchTarget {
  /**
   * An index, alias or pattern such as `orders-*`.
   * @pattern ^[a-z0-9*][a-z0-9_.*,-]{0,254}$
   */
  index: string;
}

/** Declared fields, keyed by name; dotted paths (`customer.email`) name object subfields. */
export interface ElasticsearchSchema {
  fields: Record<string, ElasticsearchField>;
}

/** An Elasticsearch index, alias or index pattern. */
export interface ElasticsearchSpec {
  /** The resource kind. */
  type: 'elasticsearch';
  connection: ElasticsearchConnection;
  target: ElasticsearchTarget;
  /** Merged with what discovery finds; discovery wins on types. */
  schema: ElasticsearchSchema;
  access: AccessSpec;
}

/** The spec of a validated Elasticsearch resource. */
export function esSpec(descriptor: { spec: unknown }): ElasticsearchSpec {
  return descriptor.spec as ElasticsearchSpec;
}
