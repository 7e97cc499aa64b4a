/**
 * From the catalog a kind read to core's `DiscoveredSchema`: each column with its field type,
 * what the catalog is authoritative for (`column`: native type, bounds, enum values,
 * nullability, key position, whether an index makes it cheap), its comment, what its type
 * supports and what discovery proposes. Core's `mergeSchema` does the merging.
 */
import { isOrderedClass, isScalarClass } from '@tollgate/core';
import type {
  CapabilitySet,
  DiscoveredField,
  DiscoveredSchema,
  DiscoveryWarning,
  JsonValue,
} from '@tollgate/core';

import { sqlFieldFamily, traitsOfType } from '../kind/model.js';
import type { SqlColumnFacts, SqlField } from '../kind/spec.js';
import type { SqlColumnType } from '../model.js';
import { columnCosts } from './catalog.js';
import type { CatalogColumn, CatalogTable } from './catalog.js';

/** What a column's type makes possible at all (an upper bound on what may be granted). */
export function supportedCapabilities(type: SqlColumnType): CapabilitySet {
  const traits = traitsOfType(type, false);
  const comparable = isScalarClass(traits);
  return {
    filterable: comparable,
    returnable: true,
    sortable: comparable,
    range: isOrderedClass(traits),
    searchable: type.class === 'string' && type.enum === undefined,
    aggregatable: comparable,
  };
}

/**
 * What discovery proposes for an undeclared column: everything its type supports, except that
 * binary columns are not returned (bytes mean nothing to a model and can be huge).
 */
export function suggestedCapabilities(column: CatalogColumn): CapabilitySet {
  const caps = supportedCapabilities(column.type);
  if (column.type.class === 'binary') return { ...caps, returnable: false };
  return caps;
}

const REASONS: Partial<Record<keyof CapabilitySet, string>> = {
  filterable: 'its values cannot be compared',
  sortable: 'its values have no order',
  range: 'ranges are for numbers, decimals and dates',
  searchable: 'patterns are for string columns that are not enums',
  aggregatable: 'its values cannot be grouped',
};

/** The catalog's facts about a column, as the field's `column` member. */
export function columnFacts(
  column: CatalogColumn,
  keyPosition: number,
  indexed: boolean,
): SqlColumnFacts {
  const { class: _class, element, ...type } = column.type;
  const facts: SqlColumnFacts = { ...type, nullable: column.nullable };
  if (element !== undefined) {
    const { element: _nested, class: cls, ...rest } = element;
    facts.element = { ...rest, class: cls === 'array' ? 'other' : cls };
  }
  if (keyPosition > 0) facts.primaryKey = keyPosition;
  if (indexed) facts.indexed = true;
  return facts;
}

/**
 * The discovered schema of one table or view. Declared filterable or sortable columns no
 * index starts with are warned about (they work, but scan the table).
 */
export function toDiscoveredSchema(
  catalog: CatalogTable,
  declared: Readonly<Record<string, SqlField>> = {},
): DiscoveredSchema {
  const costs = columnCosts(catalog);
  const fields: DiscoveredField[] = catalog.columns.map((column) => {
    // A view has no key of its own: the one its declaration states is kept.
    const declaredKey =
      catalog.kind === 'view' && Object.hasOwn(declared, column.name)
        ? declared[column.name]?.column?.primaryKey
        : undefined;
    const position = declaredKey ?? catalog.primaryKey.indexOf(column.name) + 1;
    const indexed = costs.get(column.name)?.filter === true;
    const supported = supportedCapabilities(column.type);
    const unsupportedReasons = Object.fromEntries(
      Object.entries(REASONS).filter(
        ([capability]) => !supported[capability as keyof CapabilitySet],
      ),
    );
    const attributes: Record<string, JsonValue> = {
      column: columnFacts(column, position, indexed) as unknown as JsonValue,
    };
    if (column.description !== undefined) attributes['description'] = column.description;
    return {
      path: column.name,
      type: column.type.class,
      nativeType: column.type.native,
      attributes,
      supported,
      suggested: suggestedCapabilities(column),
      unsupportedReasons,
      family: sqlFieldFamily(column.type.class),
      notes: [
        ...(position > 0 ? ['primary key'] : []),
        ...(indexed ? ['indexed'] : []),
        ...(column.nullable ? [] : ['not null']),
      ],
    };
  });
  const warnings: DiscoveryWarning[] = catalog.warnings.map((warning) => ({
    code: warning.code,
    ...(warning.column === undefined ? {} : { field: warning.column }),
    message: warning.message,
  }));
  for (const name of Object.keys(declared).sort()) {
    const field = Object.getOwnPropertyDescriptor(declared, name)?.value as SqlField;
    const column = catalog.columns.find((c) => c.name === name);
    if (column === undefined || costs.get(name)?.filter === true) continue;
    const uses = [
      ...(field.filterable === true || field.range === true ? ['filters'] : []),
      ...(field.sortable === true ? ['sorts'] : []),
    ];
    if (uses.length > 0) {
      warnings.push({
        code: 'not_indexed',
        field: name,
        message: `No index starts with "${name}": ${uses.join(' and ')} on it scan ${catalog.schema}.${catalog.name}.`,
      });
    }
  }
  if (catalog.kind === 'view') {
    warnings.push({
      code: 'view',
      message: `${catalog.schema}.${catalog.name} is a view: it has no primary key of its own, so get and update are not offered unless a column declares column.primaryKey.`,
    });
  }
  return {
    target: `${catalog.schema}.${catalog.name}`,
    sources: [{ name: `${catalog.schema}.${catalog.name}`, objectType: catalog.kind }],
    fields: fields.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    conflicts: [],
    warnings,
    sourceNoun: { one: catalog.kind, many: `${catalog.kind}s` },
  };
}
