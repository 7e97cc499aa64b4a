/**
 * The pure half shared by the SQL kinds: what can be declared, the operations and tools a
 * table or view offers. Each kind calls `sqlKind` with its name, title, schema and port.
 */
import {
  asRecord,
  joinPath,
  offerTableTools,
  problem,
  tableFieldRules,
  tableOperations,
} from '@tollgate/core';
import type {
  DescriptorProblem,
  JsonSchema,
  OperationSpec,
  ResourceDescriptor,
  ResourceKind,
  ResourceSpec,
} from '@tollgate/core';

import { primaryKeyOf, sqlFieldFamily, sqlTableModel } from './model.js';
import type { SqlConnection, SqlSchema, SqlTarget } from './spec.js';
import { sqlMentionReader } from './conversation.js';
import type { SqlMention } from './conversation.js';

/** What distinguishes one SQL kind's pure half from the other's. */
export interface SqlKindOptions {
  type: string;
  title: string;
  specSchema: JsonSchema;
  /** URL scheme of its endpoints (the kind's name, usually). */
  scheme: string;
  defaultPort: number;
  /** The schema a target without one lives in (`public`); undefined: the connection's database. */
  defaultSchema?: string;
  /** How a person names the kind in a sentence, for the scripted reading of a conversation. */
  mention: Pick<SqlMention, 'about' | 'namePrefix'>;
}

interface PartialSqlSpec {
  connection?: Partial<SqlConnection>;
  target?: Partial<SqlTarget>;
  schema?: Partial<SqlSchema>;
}

const asPartial = (spec: Partial<ResourceSpec>): PartialSqlSpec => spec as PartialSqlSpec;

/** The operations a SQL resource offers: the family's, without get/update when it has no key. */
export function sqlOperations(descriptor: ResourceDescriptor): OperationSpec[] {
  const operations = tableOperations(descriptor, sqlTableModel);
  const fields = descriptor.spec?.schema?.fields ?? {};
  if (primaryKeyOf(fields).length > 0) return operations;
  return operations.filter((op) => op.name !== 'get' && op.name !== 'update');
}

/** The family's rules plus the SQL ones: key positions unique and dense. */
function sqlRules(descriptor: unknown): DescriptorProblem[] {
  const problems = tableFieldRules(descriptor, sqlTableModel);
  const fields = asRecord(asRecord(asRecord(asRecord(descriptor)?.spec)?.schema)?.fields) ?? {};
  const positions = new Map<number, string>();
  for (const [name, raw] of Object.entries(fields)) {
    const position = asRecord(asRecord(raw)?.column)?.primaryKey;
    if (typeof position !== 'number') continue;
    const at = joinPath(joinPath('spec.schema.fields', name), 'column.primaryKey');
    const other = positions.get(position);
    if (other !== undefined) {
      problems.push(
        problem(at, `primary key position ${position} is already taken by "${other}"`, {
          expected: 'a position no other column has',
          found: String(position),
        }),
      );
    }
    positions.set(position, name);
  }
  const count = positions.size;
  for (const [position, name] of positions) {
    if (position > count) {
      problems.push(
        problem(
          joinPath(joinPath('spec.schema.fields', name), 'column.primaryKey'),
          `primary key positions must run 1 to ${count}`,
          { expected: `1 to ${count}`, found: String(position) },
        ),
      );
    }
  }
  return problems;
}

/** A SQL kind's `ResourceKind`. */
export function sqlKind(options: SqlKindOptions): ResourceKind {
  const target = (spec: PartialSqlSpec): string => {
    const table = spec.target?.table;
    if (typeof table !== 'string') return '(not given)';
    const schema = spec.target?.schema ?? options.defaultSchema;
    return `"${schema === undefined ? table : `${schema}.${table}`}"`;
  };
  const endpoint = (connection: Partial<SqlConnection> | undefined): string | undefined => {
    if (typeof connection?.host !== 'string') return undefined;
    const port = typeof connection.port === 'number' ? connection.port : options.defaultPort;
    return `${options.scheme}://${connection.host}:${port}`;
  };
  return {
    type: options.type,
    title: options.title,
    specSchema: options.specSchema,
    specRules: sqlRules,
    applyDefaults: () => undefined,
    credentialRefs: (spec) => {
      const ref = asPartial(spec).connection?.credentialRef;
      return typeof ref === 'string' ? [{ path: 'spec.connection.credentialRef', ref }] : [];
    },
    endpoints: (spec) => {
      const url = endpoint(asPartial(spec).connection);
      return url === undefined ? [] : [{ path: 'spec.connection.host', url }];
    },
    describeTarget: (spec) => {
      const partial = asPartial(spec);
      const url = endpoint(partial.connection);
      const database = partial.connection?.database;
      const at =
        url === undefined
          ? '(not given)'
          : typeof database === 'string'
            ? `${url}/${database}`
            : url;
      return `${target(partial)} at ${at}`;
    },
    discoveryPaths: ['spec.connection.host', 'spec.connection.database', 'spec.target.table'],
    fieldFamily: sqlFieldFamily,
    operations: sqlOperations,
    offerTools: (request) => offerTableTools(request, sqlTableModel),
    readFromText: sqlMentionReader({
      type: options.type,
      scheme: options.scheme,
      ...options.mention,
    }),
  };
}
