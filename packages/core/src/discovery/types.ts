import type { FieldSpec, FieldType } from '../descriptor/types.js';

/**
 * What a connector read from the live data system: typed fields, cross-index conflicts and
 * settings. Produced by `Connector.discover`, consumed by `mergeSchema`. Plain data.
 */
export interface DiscoveredSchema {
  /** The target as declared (index, alias or pattern). */
  target: string;
  /** Concrete indices (tables, …) the target resolved to, sorted by name. */
  indices: DiscoveredIndex[];
  /** Fields with one consistent type across all indices, sorted by path. */
  fields: DiscoveredField[];
  /** Paths mapped with different types in different indices; absent from `fields`. */
  conflicts: FieldConflict[];
  /** Things that work but not fully (nested, geo_point, unsupported types, settings). */
  warnings: DiscoveryWarning[];
}

/** One concrete index behind the target and the settings that affect what we can expose. */
export interface DiscoveredIndex {
  name: string;
  /** Mapping `dynamic` setting: `true` (default), `false`, `strict` or `runtime`. */
  dynamic: 'true' | 'false' | 'strict' | 'runtime';
  /** `_source.enabled`; when false, no document field can be returned. */
  sourceEnabled: boolean;
}

/** One field as the data system maps it, flattened to a dotted path. */
export interface DiscoveredField {
  /** Dotted path, e.g. `customer.email`, or `title.keyword` for a multi-field. */
  path: string;
  type: FieldType;
  /** The type as the data system names it (`date_nanos`, `match_only_text`, …). */
  nativeType: string;
  /** Date format as mapped (the data system's default when the mapping sets none). */
  format?: string;
  /** `scaled_float` scaling factor. */
  scalingFactor?: number;
  /** For a multi-field such as `title.keyword`: its parent field (`title`). */
  multiFieldOf?: string;
  /** Path of the enclosing `nested` field, when inside one. */
  nestedPath?: string;
  /** Queryable (mapping `index` is not false). */
  indexed: boolean;
  /** Sortable/aggregatable storage (mapping `doc_values` is not false). */
  docValues: boolean;
  /** Present in stored documents, so it can be returned (false for multi-fields). */
  inSource: boolean;
}

/** A path whose type differs between indices behind one target. */
export interface FieldConflict {
  path: string;
  /** Native type per index, sorted by index name. */
  types: Array<{ index: string; type: string }>;
}

export type DiscoveryWarningCode =
  | 'nested_unsupported'
  | 'geo_point_unsupported'
  | 'unsupported_type'
  | 'format_differs'
  | 'source_disabled';

export interface DiscoveryWarning {
  code: DiscoveryWarningCode;
  /** The field concerned, when the warning is about one. */
  field?: string;
  message: string;
}

export type SchemaIssueCode =
  | 'missing_in_index'
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
   * The effective schema: declared fields (discovered type and format, declared capabilities
   * and descriptions) plus every undeclared discovered field with all capabilities false.
   */
  fields: Record<string, FieldSpec>;
  /** Undeclared discovered fields with suggested capabilities, awaiting confirmation. */
  proposed: Record<string, FieldSpec>;
  issues: SchemaIssue[];
  /** No issue has severity `error`. */
  ok: boolean;
}
