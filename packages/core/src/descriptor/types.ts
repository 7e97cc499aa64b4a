/**
 * The declarative kinds an operator applies: Resource, Agent and Policy. They share one
 * envelope (apiVersion, kind, metadata, spec). These types are the source of truth; the
 * published JSON Schema is generated from them.
 */

export const API_VERSION = 'tollgate.dev/v1';

/** Field types Tollgate understands. Discovery maps native types onto these. */
export type FieldType =
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
export interface FieldSpec {
  type: FieldType;
  description?: string;
  /** May appear in `filters` (eq/in/exists on keywords, eq/range on numbers and dates). */
  filterable?: boolean;
  /** May be returned to the agent. */
  returnable?: boolean;
  /** May be used in `sort`. */
  sortable?: boolean;
  /** Range operators (gt, gte, lt, lte, between); numeric and date fields only. */
  range?: boolean;
  /** Full-text `match`; text fields only. */
  searchable?: boolean;
  /** May be used in aggregations. */
  aggregatable?: boolean;
  /** Date format as the index declares it (e.g. `strict_date_optional_time||epoch_millis`). */
  format?: string;
}

export interface ResourceMetadata {
  /** `[a-z][a-z0-9_]{2,62}`; tool names derive from it. */
  name: string;
  tenant: string;
  environment: string;
  description?: string;
  labels?: Record<string, string>;
}

export interface ElasticsearchConnection {
  /** http(s) URL without user info. */
  endpoint: string;
  /** `env://VAR`, `file://path` or `vault://path`; never a literal secret. */
  credentialRef?: string;
  /** Upstream timeout per call, ms (default 5000). */
  timeoutMs?: number;
}

export interface ElasticsearchTarget {
  /** An index, alias or pattern such as `orders-*`. */
  index: string;
}

export type RedactionRule = 'mask' | 'hash' | 'drop' | 'last4';

/** Pins every query to a row subset, added server-side whatever the model asks. */
export interface RowFilter {
  field: string;
  /** The principal attribute the field must equal. */
  equals: 'principal.tenant' | 'principal.agent' | 'principal.user';
}

export interface AccessSpec {
  allowedRoles: string[];
  /** Default true: writes need an explicit `readonly: false`. */
  readonly?: boolean;
  /** Default 100. */
  maxLimit?: number;
  /** Fields only some roles may filter on or see. */
  fieldRoles?: Record<string, string[]>;
  /** Shaping rules applied to results. */
  redact?: Record<string, RedactionRule>;
  rowFilter?: RowFilter;
}

export interface ResourceSpec {
  type: 'elasticsearch';
  connection: ElasticsearchConnection;
  target: ElasticsearchTarget;
  schema: { fields: Record<string, FieldSpec> };
  access: AccessSpec;
}

export interface ResourceDescriptor {
  apiVersion: typeof API_VERSION;
  kind: 'Resource';
  metadata: ResourceMetadata;
  spec: ResourceSpec;
}

export interface AgentDescriptor {
  apiVersion: typeof API_VERSION;
  kind: 'Agent';
  metadata: { name: string; tenant: string; description?: string; labels?: Record<string, string> };
  spec: { roles: string[]; description?: string; user?: string };
}

export type GrantEffect = 'allow' | 'deny' | 'require_approval';

export interface GrantConditions {
  /** Caller IP must fall in one of these CIDRs. */
  ipCidr?: string[];
  /** `HH:MM-HH:MM Area/City`; may cross midnight. */
  timeWindow?: string;
  /** Only in these environments. */
  environment?: string[];
}

export interface Grant {
  effect: GrantEffect;
  principals: { roles?: string[]; agents?: string[] };
  /** `<resource>.<operation>`; `*` wildcards allowed on either side (`es_orders.*`, `*.search`). */
  actions: string[];
  conditions?: GrantConditions;
  /** Rate limit for matching principal × tool, e.g. `{ requests: 60, perSeconds: 60 }`. */
  rateLimit?: { requests: number; perSeconds: number };
}

export interface PolicyDescriptor {
  apiVersion: typeof API_VERSION;
  kind: 'Policy';
  metadata: { name: string; tenant: string; description?: string; labels?: Record<string, string> };
  spec: { grants?: Grant[]; cedar?: string };
}

export type Descriptor = ResourceDescriptor | AgentDescriptor | PolicyDescriptor;
export type DescriptorKind = Descriptor['kind'];
