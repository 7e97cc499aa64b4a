/**
 * The declarative kinds an operator applies: Resource, Agent and Policy. They share one
 * envelope (apiVersion, kind, metadata, spec). These types are the source of truth; the
 * published JSON Schema (packages/core/schema) is generated from them, JSDoc tags included
 * (`pnpm --filter @tollgate/core gen:schema`).
 */

export const API_VERSION = 'tollgate.dev/v1';

/**
 * Name of a resource: lowercase letter, then lowercase letters, digits or `_` (3-63 chars).
 * Tool names derive from it.
 * @pattern ^[a-z][a-z0-9_]{2,62}$
 */
export type ResourceName = string;

/**
 * Name of an agent or policy: lowercase letter, then lowercase letters, digits, `_` or `-`.
 * @pattern ^[a-z][a-z0-9_-]{2,62}$
 */
export type PrincipalName = string;

/**
 * Tenant: the isolation boundary. Lowercase letters, digits and `-`.
 * @pattern ^[a-z0-9][a-z0-9-]{0,62}$
 */
export type TenantName = string;

/**
 * Environment such as `prod` or `staging`. Lowercase letters, digits and `-`.
 * @pattern ^[a-z0-9][a-z0-9-]{0,62}$
 */
export type EnvironmentName = string;

/**
 * A role a principal can hold.
 * @pattern ^[a-z][a-z0-9_-]{1,62}$
 */
export type RoleName = string;

/**
 * Human-readable text shown to operators and, for resources and fields, to the model.
 * @minLength 1
 * @maxLength 2000
 */
export type Description = string;

/**
 * Free-form labels used for recall and grouping; keys like `domain` or `team.owner`.
 * @propertyNames {"pattern": "^[a-z][a-z0-9_./-]{0,62}$"}
 */
export type Labels = Record<string, LabelValue>;

/**
 * A label value: one line (no control characters), at most 256 characters.
 * @maxLength 256
 */
export type LabelValue = string;

/**
 * A field's type in its kind's own vocabulary; each kind's spec
 * schema lists the types it knows and maps them onto the value classes tools are built from.
 */
export type FieldType = string;

/**
 * A field as declared (and, after discovery, as merged); kinds extend it with what their types
 * need (a date format, enum values, …). Capabilities default to false; which ones fit a type
 * is the kind's rule.
 */
export interface FieldSpec {
  type: FieldType;
  description?: Description;
  /** May appear in `filters` (exact values and, where the type allows, ranges or presence). */
  filterable?: boolean;
  /** May be returned to the agent. */
  returnable?: boolean;
  /** May be used in `sort`. */
  sortable?: boolean;
  /** Range operators (gt, gte, lt, lte, between) on ordered types. */
  range?: boolean;
  /** Text search (full-text match, or prefix/contains patterns, as the kind offers). */
  searchable?: boolean;
  /** May be used in aggregations. */
  aggregatable?: boolean;
}

export interface ResourceMetadata {
  /** `[a-z][a-z0-9_]{2,62}`; tool names derive from it. */
  name: ResourceName;
  /** Isolation boundary: nothing is recalled across tenants. */
  tenant: TenantName;
  /** Nothing is recalled across environments either. */
  environment: EnvironmentName;
  /** What the resource holds; the model reads it when choosing tools. */
  description?: Description;
  labels?: Labels;
}

/** What every kind's `connection` has; kinds add where and how to connect. */
export interface ConnectionSpec {
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

/** How a field's values are shaped before they reach the agent. */
export type RedactionMethod = 'mask' | 'hash' | 'drop' | 'last4';

/** A redaction for everyone but the listed roles (who see the value as stored). */
export interface RoleExemptRedaction {
  rule: RedactionMethod;
  /**
   * Roles that see the field unredacted; each must be in `allowedRoles`.
   * @minItems 1
   * @uniqueItems true
   */
  exceptRoles: RoleName[];
}

/** A redaction method for everyone, or one with roles exempt from it. */
export type RedactionRule = RedactionMethod | RoleExemptRedaction;

/** Pins every query to a row subset, added server-side whatever the model asks. */
export interface RowFilter {
  /** A declared field holding exact string values. */
  field: string;
  /** The principal attribute the field must equal. */
  equals: 'principal.tenant' | 'principal.agent' | 'principal.user';
}

export interface AccessSpec {
  /**
   * Roles that may use the resource at all.
   * @minItems 1
   * @uniqueItems true
   */
  allowedRoles: RoleName[];
  /** Default true: writes need an explicit `readonly: false`. */
  readonly?: boolean;
  /**
   * Upper bound for `limit` in any call (default 100).
   * @asType integer
   * @minimum 1
   * @maximum 1000
   */
  maxLimit?: number;
  /** Fields only some roles may filter on or see: declared field name → roles. */
  fieldRoles?: Record<string, FieldRoles>;
  /** Shaping rules applied to results: declared field name → rule. */
  redact?: Record<string, RedactionRule>;
  rowFilter?: RowFilter;
  /**
   * Business idempotency of write operations, by operation name: the key is built from the
   * call's arguments (and the day), not from the caller, so the same business request from
   * two agents, sessions or retries runs once.
   */
  idempotency?: Record<string, IdempotencyRule>;
}

/**
 * How one write operation's business key is built: the values at `key` (JSON Pointers into
 * the call's arguments, `/body/requester_email`), plus the UTC `window` the call falls in. A
 * second call with the same key in the window gets the first call's outcome; the same key with
 * other arguments is IDEMPOTENCY_CONFLICT.
 */
export interface IdempotencyRule {
  /**
   * @minItems 1
   * @maxItems 10
   * @uniqueItems true
   */
  key: ArgumentPointer[];
  /** `day` (default): the key holds the UTC date; `hour`: date and hour; `none`: for 24 h. */
  window?: 'day' | 'hour' | 'none';
}

/**
 * A JSON Pointer into a tool call's arguments.
 * @pattern ^(/[^/~]+)+$
 * @maxLength 200
 */
export type ArgumentPointer = string;

/**
 * Roles allowed to use one field; each must also be in `allowedRoles`.
 * @minItems 1
 * @uniqueItems true
 */
export type FieldRoles = RoleName[];

/** Declared fields, keyed by name; dotted paths (`customer.email`) name object subfields. */
export interface ResourceSchema {
  fields: Record<string, FieldSpec>;
}

/**
 * What every kind's `spec` has. `type` names the kind and decides which schema the rest is
 * read with (two-step decoding); kinds add their target and whatever else they need.
 */
export interface ResourceSpec {
  /** The resource kind: one of the registered kinds' types. */
  type: string;
  connection: ConnectionSpec;
  /** Merged with what discovery finds; discovery wins on types. */
  schema: ResourceSchema;
  access: AccessSpec;
}

/** A data system agents may use, of one of the registered kinds. */
export interface ResourceDescriptor<Spec extends ResourceSpec = ResourceSpec> {
  apiVersion: typeof API_VERSION;
  kind: 'Resource';
  metadata: ResourceMetadata;
  spec: Spec;
}

/** Metadata of the kinds that are not bound to one environment (Agent, Policy). */
export interface PrincipalMetadata {
  name: PrincipalName;
  tenant: TenantName;
  description?: Description;
  labels?: Labels;
}

export interface AgentSpec {
  /**
   * Roles the agent holds; at least one.
   * @minItems 1
   * @uniqueItems true
   */
  roles: RoleName[];
  description?: Description;
  /**
   * The human the agent acts for, when there is one (matched by `principal.user`).
   * @minLength 1
   * @maxLength 200
   */
  user?: string;
}

/** A principal; tokens are issued for it. */
export interface AgentDescriptor {
  apiVersion: typeof API_VERSION;
  kind: 'Agent';
  metadata: PrincipalMetadata;
  spec: AgentSpec;
}

export type GrantEffect = 'allow' | 'deny' | 'require_approval';

/**
 * `HH:MM-HH:MM Area/City`, e.g. `08:00-20:00 Asia/Shanghai`; may cross midnight.
 * @minLength 1
 */
export type TimeWindow = string;

export interface GrantConditions {
  /**
   * Caller IP must fall in one of these IPv4 or IPv6 CIDRs, e.g. `10.0.0.0/8`.
   * @minItems 1
   */
  ipCidr?: string[];
  timeWindow?: TimeWindow;
  /**
   * Only in these environments.
   * @minItems 1
   * @uniqueItems true
   */
  environment?: EnvironmentName[];
}

/**
 * `<resource>.<operation>`; `*` wildcards allowed on either side (`orders.*`, `*.search`).
 * @pattern ^(\*|[a-z][a-z0-9_]{2,62})\.(\*|[a-z][a-z0-9_]{0,62})$
 */
export type GrantAction = string;

/** Who a grant applies to: at least one of roles or agents. */
export interface GrantPrincipals {
  /**
   * @minItems 1
   * @uniqueItems true
   */
  roles?: RoleName[];
  /**
   * @minItems 1
   * @uniqueItems true
   */
  agents?: PrincipalName[];
}

/** Rate limit for matching principal × tool: `requests` per `perSeconds`. */
export interface RateLimit {
  /**
   * @asType integer
   * @minimum 1
   * @maximum 1000000
   */
  requests: number;
  /**
   * @asType integer
   * @minimum 1
   * @maximum 86400
   */
  perSeconds: number;
}

export interface Grant {
  effect: GrantEffect;
  principals: GrantPrincipals;
  /**
   * @minItems 1
   * @uniqueItems true
   */
  actions: GrantAction[];
  conditions?: GrantConditions;
  rateLimit?: RateLimit;
}

/** Grants (compiled to Cedar) and/or raw Cedar text; at least one of the two. */
export interface PolicySpec {
  grants?: Grant[];
  /**
   * Raw Cedar policies, validated against the Tollgate Cedar schema by the policy service.
   * @minLength 1
   */
  cedar?: string;
}

/** Who may do what, under which conditions. */
export interface PolicyDescriptor {
  apiVersion: typeof API_VERSION;
  kind: 'Policy';
  metadata: PrincipalMetadata;
  spec: PolicySpec;
}

/**
 * Any declarative kind; `kind` discriminates.
 * @discriminator kind
 */
export type Descriptor = ResourceDescriptor | AgentDescriptor | PolicyDescriptor;
export type DescriptorKind = Descriptor['kind'];
