import type { FieldSpec, FieldType } from '../descriptor/types.js';
import type { JsonValue } from '../tools/types.js';
import type { Capability, CapabilitySet } from './capabilities.js';

/**
 * What a kind's discovery read from the live data system: typed fields, conflicts between the
 * objects behind the target, and warnings. Produced by `Connector.discover`, consumed by
 * `mergeSchema`. Plain data; every kind reports in the same shape.
 */
export interface DiscoveredSchema {
  /** The target as declared, for people (`orders-*`, `shop.orders`). */
  target: string;
  /** The concrete objects the target resolved to (indices, tables, views, …), sorted by name. */
  sources: DiscoveredSource[];
  /** Fields with one consistent type across all sources, sorted by path. */
  fields: DiscoveredField[];
  /** Paths typed differently in different sources; absent from `fields`. */
  conflicts: FieldConflict[];
  /** Things that work but not fully (unsupported types, settings). */
  warnings: DiscoveryWarning[];
  /** What the data system calls one source and several, for messages (`index`, `indices`). */
  sourceNoun?: { one: string; many: string };
  /**
   * Parts of `spec` discovery is authoritative for beside the fields (e.g. an API's own
   * description of each selected operation): each value replaces what the proposal's spec
   * holds at its path (objects on the way are created).
   */
  specValues?: DiscoveredSpecValue[];
}

/** One part of `spec` as discovery read it. */
export interface DiscoveredSpecValue {
  /** Keys from `spec` down, e.g. `['operations', 'list_tickets', 'request']`. */
  path: string[];
  value: JsonValue;
}

/** One concrete object behind the target. */
export interface DiscoveredSource {
  name: string;
  /** What kind of object it is, in the data system's words (`index`, `table`, `view`). */
  objectType: string;
}

/** One field as the data system defines it, flattened to a dotted path. */
export interface DiscoveredField {
  /** Dotted path, e.g. `customer.email`, or a column name. */
  path: string;
  /** The kind's field type the native type maps to. */
  type: FieldType;
  /** The type as the data system names it (`date_nanos`, `timestamp with time zone`, …). */
  nativeType: string;
  /**
   * Members of the field spec discovery is authoritative for, beside `type` (a date format,
   * enum values, nullability, …); merged into the declared field as they are.
   */
  attributes?: Partial<Record<string, JsonValue>>;
  /** What the data system makes possible at all: an upper bound on what may be granted. */
  supported: CapabilitySet;
  /** What discovery proposes for the field when nobody declared it. */
  suggested: CapabilitySet;
  /** Why a capability is not supported, for an operator-facing message. */
  unsupportedReasons?: Partial<Record<Capability, string>>;
  /** Type family: a declared/discovered type difference within one family is only a warning. */
  family: string;
  /** Extra facts for people (`primary key`, `indexed`, `multi-field of title`). */
  notes?: string[];
}

/** A path whose type differs between the sources behind one target. */
export interface FieldConflict {
  path: string;
  /** Native type per source, sorted by source name. */
  types: Array<{ source: string; type: string }>;
}

/** A warning code; kinds add their own (`nested_unsupported`, `source_disabled`, …). */
export type DiscoveryWarningCode = string;

export interface DiscoveryWarning {
  code: DiscoveryWarningCode;
  /** The field concerned, when the warning is about one. */
  field?: string;
  message: string;
}

export type SchemaIssueCode =
  | 'missing_in_source'
  | 'type_mismatch'
  | 'type_conflict'
  | 'capability_unsupported'
  | DiscoveryWarningCode;

/** A difference between the declared and discovered schema, for the operator to act on. */
export interface SchemaIssue {
  /** `error`: the resource should not be saved as is; `warning`: saved, but look at it. */
  severity: 'error' | 'warning';
  code: SchemaIssueCode;
  field?: string;
  message: string;
}

/** Result of merging a declared schema with a discovered one. */
export interface MergeResult {
  /**
   * The effective schema: declared fields (discovered type and attributes, declared
   * capabilities and descriptions) plus every undeclared discovered field with all
   * capabilities false.
   */
  fields: Record<string, FieldSpec>;
  /** Undeclared discovered fields with suggested capabilities, awaiting confirmation. */
  proposed: Record<string, FieldSpec>;
  issues: SchemaIssue[];
  /** No issue has severity `error`. */
  ok: boolean;
}
