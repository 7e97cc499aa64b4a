/**
 * The rule-based reading of "I have a database at <scheme>://db.internal:5432/shop, table
 * sales.orders, call it shop_orders, credential env://SHOP_DB, roles support; id is an integer,
 * total is a decimal": a partial Resource descriptor of a SQL kind, as a model filling the
 * descriptor's JSON Schema would produce. The scripted stand-in model uses it; deliberately
 * modest (discovery reads the real columns, the person confirms). Pure.
 */
import { readCommonMention, readMentionedFields } from '@tollgate/core';
import type { SqlFieldType } from './spec.js';

type JsonObject = Record<string, unknown>;

/** What tells one SQL kind's sentences apart. */
export interface SqlMention {
  type: string;
  /** The URL scheme the kind's connection strings use. */
  scheme: string;
  /** Words that say a sentence is about this kind (the scheme's URL counts too). */
  about: RegExp;
  /** The resource name's prefix when the sentence names none (`pg` → `pg_orders`). */
  namePrefix: string;
}

const TABLE =
  /(?:\b(?:table|view)(?:\s+is|\s+called|\s+named)?|表(?:是|为|叫|名为)?)\s*[:=：]?\s*[`"']?([A-Za-z_][A-Za-z0-9_$]{0,62})(?:\.([A-Za-z_][A-Za-z0-9_$]{0,62}))?/i;

const TYPES: Record<string, SqlFieldType> = {
  text: 'string',
  string: 'string',
  varchar: 'string',
  integer: 'integer',
  int: 'integer',
  bigint: 'integer',
  number: 'number',
  float: 'number',
  double: 'number',
  numeric: 'decimal',
  decimal: 'decimal',
  date: 'date',
  datetime: 'datetime',
  timestamp: 'datetime',
  boolean: 'boolean',
  bool: 'boolean',
  uuid: 'uuid',
  json: 'json',
};

/** Capabilities a declared column starts with (always returnable). */
function capabilities(type: SqlFieldType): JsonObject {
  switch (type) {
    case 'string':
    case 'uuid':
    case 'boolean':
      return { filterable: true, returnable: true };
    case 'json':
      return { returnable: true };
    default:
      return { filterable: true, range: true, sortable: true, returnable: true };
  }
}

const trimEnd = (s: string): string => s.replace(/[.,;:]+$/, '');

/** The reader of one SQL kind: undefined when the sentence is not about it. */
export function sqlMentionReader(kind: SqlMention): (text: string) => JsonObject | undefined {
  const url = new RegExp(
    `\\b${kind.scheme}(?:ql)?://([A-Za-z0-9.-]+)(?::([0-9]{1,5}))?(?:/([A-Za-z0-9_$-]{1,63}))?`,
    'i',
  );
  return (text) => {
    const at = url.exec(text);
    if (at === null && !kind.about.test(text)) return undefined;
    const port = at?.[2] === undefined ? undefined : Number(at[2]);
    const database = at?.[3] === undefined ? undefined : trimEnd(at[3]);
    const { name: explicitName, credentialRef, roles } = readCommonMention(text);
    const connection: JsonObject = {
      ...(at?.[1] ? { host: trimEnd(at[1]) } : {}),
      ...(port !== undefined && port >= 1 && port <= 65535 ? { port } : {}),
      ...(database ? { database } : {}),
      ...(credentialRef ? { credentialRef } : {}),
    };
    const table = TABLE.exec(text);
    const target: JsonObject | undefined =
      table === null
        ? undefined
        : table[2] === undefined
          ? { table: table[1] }
          : { schema: table[1], table: table[2] };
    const fields: JsonObject = {};
    for (const { name, type } of readMentionedFields(text, TYPES, {
      names: '[a-z_][a-z0-9_]*',
      notFields: ['table', 'view'],
    }))
      fields[name] = { type, ...capabilities(type as SqlFieldType) };
    const tableName = typeof target?.table === 'string' ? target.table : undefined;
    const name =
      explicitName ??
      (tableName ? `${kind.namePrefix}_${tableName.toLowerCase()}`.slice(0, 63) : undefined);
    return {
      ...(name ? { metadata: { name } } : {}),
      spec: {
        type: kind.type,
        ...(Object.keys(connection).length > 0 ? { connection } : {}),
        ...(target ? { target } : {}),
        ...(Object.keys(fields).length > 0 ? { schema: { fields } } : {}),
        ...(roles && roles.length > 0 ? { access: { allowedRoles: roles } } : {}),
      },
    };
  };
}
