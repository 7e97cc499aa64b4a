import type {
  SqlCapabilities,
  SqlColumn,
  SqlColumnType,
  SqlTable,
  SqlValueClass,
} from '../model.js';
import { isComparableClass, isNumericClass, isOrderedClass } from '../compile/operators.js';
import { columnCosts } from './catalog.js';
import type { CatalogColumn, CatalogTable, CatalogWarning } from './catalog.js';

/** A column as an operator declares it: a value class and capabilities. */
export interface DeclaredColumn extends SqlCapabilities {
  type: SqlValueClass;
  description?: string;
}

const CAPABILITY_NAMES: ReadonlyArray<keyof SqlCapabilities> = [
  'filterable',
  'returnable',
  'sortable',
  'range',
  'searchable',
  'aggregatable',
];

/** What a column's type makes possible at all (an upper bound on what may be granted). */
export function supportedCapabilities(type: SqlColumnType): Required<SqlCapabilities> {
  const c = type.class;
  return {
    filterable: isComparableClass(c),
    returnable: true,
    sortable: isOrderedClass(c),
    range: isOrderedClass(c) && c !== 'string' && c !== 'uuid' && c !== 'boolean',
    searchable: c === 'string' && type.enum === undefined,
    aggregatable: isComparableClass(c) || isNumericClass(c),
  };
}

/**
 * What discovery proposes for an undeclared column: everything its type supports, except that
 * binary columns are not returned (bytes mean nothing to a model and can be huge) and opaque
 * ones are returned only.
 */
export function suggestedCapabilities(column: CatalogColumn): Required<SqlCapabilities> {
  const caps = supportedCapabilities(column.type);
  if (column.type.class === 'binary') return { ...caps, returnable: false };
  return caps;
}

/** The merged model and what the operator should know about it. */
export interface SqlMergeResult {
  table: SqlTable;
  /** Undeclared columns with suggested capabilities, awaiting confirmation. */
  proposed: Record<string, DeclaredColumn>;
  issues: Array<CatalogWarning & { severity: 'error' | 'warning' }>;
  ok: boolean;
}

/**
 * Merges declared columns with the catalog. The catalog wins on types and nullability; the
 * declaration wins on capabilities and descriptions, except that a capability the type cannot
 * support is removed with a warning. A declared column missing from the table is an error (a
 * statement naming it would fail). Undeclared columns enter the model with every capability
 * false and `proposed` with suggestions: nothing is exposed implicitly.
 */
export function mergeCatalog(
  declared: Readonly<Record<string, DeclaredColumn>>,
  catalog: CatalogTable,
  declaredKey?: readonly string[],
): SqlMergeResult {
  const issues: SqlMergeResult['issues'] = catalog.warnings.map((w) => ({
    ...w,
    severity: 'warning' as const,
  }));
  const found = new Map(catalog.columns.map((column) => [column.name, column]));
  const costs = columnCosts(catalog);
  const columns = new Map<string, SqlColumn>();
  const proposed: Record<string, DeclaredColumn> = {};

  for (const name of Object.keys(declared).sort()) {
    const spec = Object.getOwnPropertyDescriptor(declared, name)?.value as DeclaredColumn;
    const column = found.get(name);
    if (column === undefined) {
      issues.push({
        severity: 'error',
        code: 'missing_in_table',
        column: name,
        message: `Declared column "${name}" is not in ${catalog.schema}.${catalog.name}.`,
      });
      continue;
    }
    if (spec.type !== column.type.class) {
      issues.push({
        severity: 'warning',
        code: 'type_mismatch',
        column: name,
        message: `Column "${name}" is declared as ${spec.type} but the table has ${column.type.native}; using ${column.type.class}.`,
      });
    }
    const supported = supportedCapabilities(column.type);
    const granted: SqlCapabilities = {};
    for (const capability of CAPABILITY_NAMES) {
      if (spec[capability] !== true) continue;
      if (!supported[capability]) {
        issues.push({
          severity: 'warning',
          code: 'capability_unsupported',
          column: name,
          message: `Column "${name}" (${column.type.native}) cannot be ${capability}; the capability is removed.`,
        });
      } else granted[capability] = true;
    }
    const cost = costs.get(name);
    if (
      catalog.kind === 'table' &&
      (granted.sortable === true || granted.range === true) &&
      cost === undefined
    ) {
      issues.push({
        severity: 'warning',
        code: 'not_indexed',
        column: name,
        message: `Column "${name}" is sortable or ranged but no index starts with it; such queries scan the table.`,
      });
    }
    const description = spec.description ?? column.description;
    columns.set(name, {
      name,
      type: column.type,
      nullable: column.nullable,
      ...granted,
      ...(description === undefined ? {} : { description }),
    });
  }
  for (const column of catalog.columns) {
    if (Object.hasOwn(declared, column.name)) continue;
    columns.set(column.name, {
      name: column.name,
      type: column.type,
      nullable: column.nullable,
      ...(column.description === undefined ? {} : { description: column.description }),
    });
    const caps = suggestedCapabilities(column);
    proposed[column.name] = {
      type: column.type.class,
      ...(column.description === undefined ? {} : { description: column.description }),
      ...caps,
    };
  }
  const primaryKey = catalog.primaryKey.length > 0 ? catalog.primaryKey : [...(declaredKey ?? [])];
  for (const name of primaryKey) {
    if (!columns.has(name))
      issues.push({
        severity: 'error',
        code: 'missing_in_table',
        column: name,
        message: `Key column "${name}" is not in ${catalog.schema}.${catalog.name}.`,
      });
  }
  const table: SqlTable = {
    schema: catalog.schema,
    name: catalog.name,
    kind: catalog.kind,
    columns,
    primaryKey,
  };
  return { table, proposed, issues, ok: issues.every((issue) => issue.severity !== 'error') };
}
