/**
 * A table kind for core's own tests: everything a real kind contributes, with no data system
 * behind it. Its dialect is the pattern/`is_null`/insert-and-update one, its keys columns.
 */
import { createRequire } from 'node:module';
import {
  createKindRegistry,
  offerTableTools,
  tableFieldRules,
  tableOperations,
} from '../../src/index.js';
import type {
  FieldSpec,
  FieldTraits,
  JsonSchema,
  ResourceKind,
  TableModel,
} from '../../src/index.js';
import type { SampleField, SampleFieldType, SampleSpec } from './sample-spec.js';

const require = createRequire(import.meta.url);

const TRAITS: Record<SampleFieldType, FieldTraits> = {
  string: { valueClass: 'exact' },
  text: { valueClass: 'text' },
  int32: { valueClass: 'integer', minimum: -2_147_483_648, maximum: 2_147_483_647 },
  int64: { valueClass: 'decimal' },
  float: { valueClass: 'number' },
  decimal: { valueClass: 'decimal' },
  timestamp: { valueClass: 'datetime' },
  date: { valueClass: 'date' },
  bool: { valueClass: 'boolean' },
  uuid: { valueClass: 'uuid' },
  json: { valueClass: 'json' },
  bytes: { valueClass: 'opaque' },
};

export const sampleModel: TableModel = {
  dialect: {
    record: 'row',
    textSearch: 'patterns',
    presence: 'is_null',
    writes: 'insert_update',
    writePayload: 'values',
  },
  traitsOf(field: FieldSpec) {
    const own = field as SampleField;
    if (!Object.hasOwn(TRAITS, own.type)) return undefined;
    const base = TRAITS[own.type];
    return {
      ...base,
      ...(own.nullable === true ? { nullable: true } : {}),
      ...(own.enum !== undefined ? { enum: own.enum } : {}),
    };
  },
  key(fields) {
    const columns = Object.entries(fields)
      .filter(([, spec]) => (spec as SampleField).key === true)
      .map(([name]) => name);
    return columns.length > 0 ? { kind: 'columns', columns } : { kind: 'record_id' };
  },
};

export const sampleKind: ResourceKind = {
  type: 'sample',
  title: 'sample table',
  specSchema: require('./sample-spec.schema.json') as JsonSchema,
  specRules: (descriptor) => tableFieldRules(descriptor, sampleModel),
  applyDefaults: () => undefined,
  credentialRefs: (spec) => {
    const ref = (spec as Partial<SampleSpec>).connection?.credentialRef;
    return typeof ref === 'string' ? [{ path: 'spec.connection.credentialRef', ref }] : [];
  },
  endpoints: (spec) => {
    const url = (spec as Partial<SampleSpec>).connection?.url;
    return typeof url === 'string' ? [{ path: 'spec.connection.url', url }] : [];
  },
  describeTarget: (spec) => {
    const table = (spec as Partial<SampleSpec>).target?.table;
    return typeof table === 'string' ? `"${table}"` : '(not given)';
  },
  discoveryPaths: ['spec.connection.url', 'spec.target.table'],
  fieldFamily: (type) =>
    type === 'int32' || type === 'int64' || type === 'float' ? 'number' : type,
  operations: (descriptor) => tableOperations(descriptor, sampleModel),
  offerTools: (request) => offerTableTools(request, sampleModel),
};

export const sampleKinds = createKindRegistry([sampleKind]);
