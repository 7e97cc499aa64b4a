/**
 * The spec of the sample kind core's tests use: a table kind in neutral words (its types are
 * named for the value classes they map to), so the table family and the kind contract are
 * tested without any real kind. `sample-spec.schema.json` is generated from these types.
 */
import type { AccessSpec, Description } from '../../src/index.js';

export type SampleFieldType =
  | 'string'
  | 'text'
  | 'int32'
  | 'int64'
  | 'float'
  | 'decimal'
  | 'timestamp'
  | 'date'
  | 'bool'
  | 'uuid'
  | 'json'
  | 'bytes';

export interface SampleField {
  type: SampleFieldType;
  description?: Description;
  filterable?: boolean;
  returnable?: boolean;
  sortable?: boolean;
  range?: boolean;
  searchable?: boolean;
  aggregatable?: boolean;
  /** The field may hold null. */
  nullable?: boolean;
  /**
   * The only values a string field holds.
   * @minItems 1
   */
  enum?: string[];
  /** Part of the primary key, in declaration order. */
  key?: boolean;
}

export interface SampleSpec {
  /** The resource kind. */
  type: 'sample';
  connection: {
    /**
     * A sample URL.
     * @minLength 1
     */
    url: string;
    /** @minLength 1 */
    credentialRef?: string;
    /**
     * @asType integer
     * @minimum 100
     * @maximum 300000
     */
    timeoutMs?: number;
  };
  target: {
    /**
     * The table.
     * @pattern ^[a-z][a-z0-9_.]{0,62}$
     */
    table: string;
  };
  schema: { fields: Record<string, SampleField> };
  access: AccessSpec;
}
