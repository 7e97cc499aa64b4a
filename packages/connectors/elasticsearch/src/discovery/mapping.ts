import { TollgateError } from '@tollgate/core';
import type { DiscoveredSchema, DiscoveryWarning } from '@tollgate/core';

import type { ElasticsearchFieldType } from '../kind/spec.js';
import { toDiscoveredField } from './capabilities.js';
import type { MappedField } from './capabilities.js';

/** One concrete index behind the target and the settings that affect what we can expose. */
export interface MappedIndex {
  name: string;
  /** Mapping `dynamic` setting: `true` (default), `false`, `strict` or `runtime`. */
  dynamic: 'true' | 'false' | 'strict' | 'runtime';
  /** `_source.enabled`; when false, no document field can be returned. */
  sourceEnabled: boolean;
}

/** The date format Elasticsearch uses when a mapping sets none. */
export const DEFAULT_DATE_FORMAT = 'strict_date_optional_time||epoch_millis';

const TYPES: Readonly<Record<string, ElasticsearchFieldType>> = {
  keyword: 'keyword',
  constant_keyword: 'keyword',
  wildcard: 'keyword',
  text: 'text',
  match_only_text: 'text',
  long: 'long',
  integer: 'integer',
  short: 'short',
  byte: 'byte',
  double: 'double',
  float: 'float',
  half_float: 'half_float',
  scaled_float: 'scaled_float',
  unsigned_long: 'unsigned_long',
  date: 'date',
  date_nanos: 'date',
  boolean: 'boolean',
  ip: 'ip',
  geo_point: 'geo_point',
  object: 'object',
  nested: 'nested',
};

/** Fields and warnings read from one index's mapping. */
interface IndexFields {
  index: MappedIndex;
  fields: Map<string, MappedField>;
  warnings: DiscoveryWarning[];
}

/** A mapping read across the indices behind a target, in Elasticsearch's own terms. */
export interface MappedSchema {
  target: string;
  indices: MappedIndex[];
  fields: MappedField[];
  conflicts: Array<{ path: string; types: Array<{ index: string; type: string }> }>;
  warnings: DiscoveryWarning[];
}

/** The mapping as core's kind-neutral discovered schema. */
export function readMappings(target: string, response: unknown): DiscoveredSchema {
  return toDiscoveredSchema(readMappingFields(target, response));
}

/** A mapping read across indices, in core's kind-neutral terms. */
export function toDiscoveredSchema(mapped: MappedSchema): DiscoveredSchema {
  const { target } = mapped;
  return {
    target,
    sources: mapped.indices.map((index) => ({ name: index.name, objectType: 'index' })),
    fields: mapped.fields.map(toDiscoveredField),
    conflicts: mapped.conflicts.map(({ path, types }) => ({
      path,
      types: types.map(({ index, type }) => ({ source: index, type })),
    })),
    warnings: mapped.warnings,
    sourceNoun: { one: 'index', many: 'indices' },
  };
}

/**
 * Turns a `GET <target>/_mapping` answer into the mapped fields: flattened to dotted paths
 * (multi-fields as their own paths), merged across indices, with type conflicts and
 * unsupported features reported rather than failing. Checks the answer's structure first.
 */
export function readMappingFields(target: string, response: unknown): MappedSchema {
  const root = record(response, 'the mapping response');
  const names = Object.keys(root).sort();
  if (names.length === 0) {
    throw new TollgateError('NOT_FOUND', `No index matches "${target}".`);
  }
  const perIndex = names.map((name) =>
    readIndex(name, record(root[name], `the mapping of ${name}`)),
  );
  const byPath = new Map<string, Array<{ index: string; field: MappedField }>>();
  for (const { index, fields } of perIndex) {
    for (const field of fields.values()) {
      const list = byPath.get(field.path) ?? [];
      list.push({ index: index.name, field });
      byPath.set(field.path, list);
    }
  }
  const fields: MappedField[] = [];
  const conflicts: MappedSchema['conflicts'] = [];
  const warnings = new Map<string, DiscoveryWarning>();
  for (const { warnings: list } of perIndex) {
    for (const warning of list) warnings.set(warningKey(warning), warning);
  }
  for (const path of [...byPath.keys()].sort()) {
    const entries = byPath.get(path) ?? [];
    const first = entries[0]?.field as MappedField;
    if (entries.some(({ field }) => field.type !== first.type)) {
      conflicts.push({
        path,
        types: entries.map(({ index, field }) => ({ index, type: field.nativeType })),
      });
      continue;
    }
    if (entries.some(({ field }) => field.format !== first.format)) {
      const warning: DiscoveryWarning = {
        code: 'format_differs',
        field: path,
        message: `Field "${path}" has different date formats across indices; using "${first.format ?? ''}".`,
      };
      warnings.set(warningKey(warning), warning);
    }
    fields.push({
      ...first,
      indexed: entries.every(({ field }) => field.indexed),
      docValues: entries.every(({ field }) => field.docValues),
      inSource: entries.every(({ field }) => field.inSource),
    });
  }
  const ordered = [...warnings.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    target,
    indices: perIndex.map(({ index }) => index),
    fields,
    conflicts,
    warnings: ordered.map(([, warning]) => warning),
  };
}

function readIndex(name: string, entry: Record<string, unknown>): IndexFields {
  const mappings = record(entry['mappings'] ?? {}, `the mappings of ${name}`);
  const source =
    mappings['_source'] === undefined ? {} : record(mappings['_source'], `_source of ${name}`);
  const index: MappedIndex = {
    name,
    dynamic: dynamicSetting(mappings['dynamic']),
    sourceEnabled: source['enabled'] !== false,
  };
  const out: IndexFields = { index, fields: new Map(), warnings: [] };
  if (!index.sourceEnabled) {
    out.warnings.push({
      code: 'source_disabled',
      message: `Index "${name}" has _source disabled; no field can be returned from it.`,
    });
  }
  const properties = mappings['properties'];
  if (properties !== undefined)
    readProperties(record(properties, `properties of ${name}`), '', undefined, out);
  return out;
}

function readProperties(
  properties: Record<string, unknown>,
  prefix: string,
  nestedPath: string | undefined,
  out: IndexFields,
): void {
  for (const name of Object.keys(properties)) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    const def = record(properties[name], `the mapping of "${path}"`);
    const nativeType = typeof def['type'] === 'string' ? def['type'] : 'object';
    const field = readField(path, nativeType, def, nestedPath, out);
    if (field === undefined) continue;
    out.fields.set(path, field);
    if (field.type === 'object' || field.type === 'nested') {
      if (field.type === 'nested') {
        out.warnings.push({
          code: 'nested_unsupported',
          field: path,
          message: `Field "${path}" is nested; its subfields can be returned but not yet filtered, sorted or aggregated.`,
        });
      }
      const children = def['properties'];
      const inner = field.type === 'nested' ? path : nestedPath;
      if (children !== undefined)
        readProperties(record(children, `properties of "${path}"`), path, inner, out);
      continue;
    }
    const multi = def['fields'];
    if (multi === undefined) continue;
    const subfields = record(multi, `multi-fields of "${path}"`);
    for (const sub of Object.keys(subfields)) {
      const subDef = record(subfields[sub], `the mapping of "${path}.${sub}"`);
      const subType = typeof subDef['type'] === 'string' ? subDef['type'] : 'object';
      const subField = readField(`${path}.${sub}`, subType, subDef, nestedPath, out);
      if (subField !== undefined)
        out.fields.set(subField.path, { ...subField, multiFieldOf: path, inSource: false });
    }
  }
}

function readField(
  path: string,
  nativeType: string,
  def: Record<string, unknown>,
  nestedPath: string | undefined,
  out: IndexFields,
): MappedField | undefined {
  const type = Object.hasOwn(TYPES, nativeType) ? TYPES[nativeType] : undefined;
  if (type === undefined) {
    out.warnings.push({
      code: 'unsupported_type',
      field: path,
      message: `Field "${path}" has type ${nativeType}, which Tollgate does not support yet; it is left out.`,
    });
    return undefined;
  }
  if (type === 'geo_point') {
    out.warnings.push({
      code: 'geo_point_unsupported',
      field: path,
      message: `Field "${path}" is a geo_point; it can be returned but not yet filtered.`,
    });
  }
  const structural = type === 'object' || type === 'nested';
  const field: MappedField = {
    path,
    type,
    nativeType,
    indexed: !structural && def['index'] !== false && def['enabled'] !== false,
    docValues: !structural && type !== 'text' && def['doc_values'] !== false,
    inSource: out.index.sourceEnabled,
  };
  if (type === 'date')
    field.format = typeof def['format'] === 'string' ? def['format'] : DEFAULT_DATE_FORMAT;
  if (typeof def['scaling_factor'] === 'number') field.scalingFactor = def['scaling_factor'];
  if (nestedPath !== undefined) field.nestedPath = nestedPath;
  return field;
}

/** Same warning on the same field from several indices is reported once. */
function warningKey(warning: DiscoveryWarning): string {
  return `${warning.field ?? ''}\n${warning.code}\n${warning.field === undefined ? warning.message : ''}`;
}

function dynamicSetting(value: unknown): MappedIndex['dynamic'] {
  const text = value === undefined ? 'true' : String(value);
  if (text === 'true' || text === 'false' || text === 'strict' || text === 'runtime') return text;
  throw new TollgateError(
    'UPSTREAM_BAD_RESPONSE',
    `Elasticsearch returned an unknown dynamic setting "${text.slice(0, 40)}".`,
  );
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value))
    return value as Record<string, unknown>;
  throw new TollgateError(
    'UPSTREAM_BAD_RESPONSE',
    `Elasticsearch returned an unexpected mapping: ${what} is not an object.`,
  );
}
