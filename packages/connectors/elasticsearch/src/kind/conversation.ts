/**
 * The rule-based reading of "I have an ES at http://…, index orders, id is keyword, amount is
 * a number…": a partial Resource descriptor, as a model filling the descriptor's JSON Schema
 * would produce. The scripted stand-in model uses it; deliberately modest. Pure.
 */
type JsonObject = Record<string, unknown>;

/** Words that say a sentence is about an Elasticsearch resource. */
const ABOUT = /\b(?:es|elasticsearch|elastic|index)\b|索引/i;

const ENDPOINT = /\bhttps?:\/\/[^\s,;"'<>()，；。、（）]+/i;
const INDEX =
  /(?:\bindex(?:\s+is|\s+called|\s+named)?|索引(?:是|为|叫|名为)?)\s*[:=：]?\s*[`"']?([a-z0-9*][a-z0-9_.*-]{0,254})/i;
const NAME = /\b(?:call it|name it|named|resource name is)\s+[`"']?([a-z][a-z0-9_]{2,62})\b/i;
const CREDENTIAL = /\b((?:env|file|vault):\/\/[^\s,;"'<>()，；。、（）]+)/i;
const ROLES =
  /(?:\broles?\s+|角色\s*(?:是|为)?\s*)([a-z][a-z0-9_-]{1,62}(?:\s*(?:,|and|和|、)\s*[a-z][a-z0-9_-]{1,62})*)/i;
const FIELD =
  /\b([a-z_][a-z0-9_.]*)(?:\s+(?:is|are)\s+|\s*(?:是|为)\s*)(?:an?\s+)?(keyword|text|number|numeric|integer|int|long|double|float|date|datetime|timestamp|boolean|bool|ip)\b/gi;
const NOT_FIELDS = new Set(['index', 'it', 'this', 'that', 'name', 'endpoint', 'url', 'there']);

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
  const credentialRef = CREDENTIAL.exec(text)?.[1];
  const fields: JsonObject = {};
  for (const match of text.matchAll(FIELD)) {
    const name = match[1]!;
    const type = TYPES[match[2]!.toLowerCase()];
    if (type === undefined || NOT_FIELDS.has(name.toLowerCase())) continue;
    fields[name] = { type, ...capabilities(type) };
  }
  const explicitName = NAME.exec(text)?.[1];
  const name =
    explicitName ?? (index ? `es_${index.replace(/[^a-z0-9_]/g, '_')}`.slice(0, 63) : undefined);
  const roles = ROLES.exec(text)?.[1]
    ?.split(/\s*(?:,|and|和|、)\s*/)
    .filter((r) => r !== '');
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
