/**
 * The rule-based reading of "I have an ES at http://…, index orders, id is keyword, amount is
 * a number…": a partial Resource descriptor, as a model filling the descriptor's JSON Schema
 * would produce. The scripted stand-in model uses it; deliberately modest. Pure.
 */
import { readCommonMention, readMentionedFields } from '@tollgate/core';

type JsonObject = Record<string, unknown>;

/** Words that say a sentence is about an Elasticsearch resource. */
const ABOUT = /\b(?:es|elasticsearch|elastic|index)\b|索引/i;

const ENDPOINT = /\bhttps?:\/\/[^\s,;"'<>()，；。、（）]+/i;
const INDEX =
  /(?:\bindex(?:\s+is|\s+called|\s+named)?|索引(?:是|为|叫|名为)?)\s*[:=：]?\s*[`"']?([a-z0-9*][a-z0-9_.*-]{0,254})/i;

const TYPES: Record<string, string> = {
  keyword: 'keyword',
  text: 'text',
  number: 'double',
  numeric: 'double',
  double: 'double',
  float: 'double',
  integer: 'long',
  int: 'long',
  long: 'long',
  date: 'date',
  datetime: 'date',
  timestamp: 'date',
  boolean: 'boolean',
  bool: 'boolean',
  ip: 'ip',
};

/** Capabilities a field of each type starts with (filter/range/search; always returnable). */
function capabilities(type: string): JsonObject {
  switch (type) {
    case 'keyword':
    case 'boolean':
    case 'ip':
      return { filterable: true, returnable: true };
    case 'text':
      return { searchable: true, returnable: true };
    default:
      return { range: true, sortable: true, returnable: true };
  }
}

export function readElasticsearchMention(text: string): JsonObject | undefined {
  if (!ABOUT.test(text)) return undefined;
  const endpoint = ENDPOINT.exec(text)?.[0]?.replace(/[.,;:]+$/, '');
  const index = INDEX.exec(text)?.[1]?.replace(/[.,;:]+$/, '');
  const { name: explicitName, credentialRef, roles } = readCommonMention(text);
  const fields: JsonObject = {};
  for (const { name, type } of readMentionedFields(text, TYPES, {
    names: '[a-z_][a-z0-9_.]*',
    notFields: ['index', 'endpoint'],
  }))
    fields[name] = { type, ...capabilities(type) };
  const name =
    explicitName ?? (index ? `es_${index.replace(/[^a-z0-9_]/g, '_')}`.slice(0, 63) : undefined);
  return {
    ...(name ? { metadata: { name } } : {}),
    spec: {
      type: 'elasticsearch',
      ...(endpoint
        ? { connection: { endpoint, ...(credentialRef ? { credentialRef } : {}) } }
        : {}),
      ...(index ? { target: { index } } : {}),
      ...(Object.keys(fields).length > 0 ? { schema: { fields } } : {}),
      ...(roles && roles.length > 0 ? { access: { allowedRoles: roles } } : {}),
    },
  };
}
