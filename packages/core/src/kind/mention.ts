/**
 * What every kind's rule-based reading of a sentence shares (`ResourceKind.readFromText`, the
 * scripted stand-in model's reading): the resource's name when the person gives one, the
 * credential reference, the roles, and the "<field> is <type>" phrases in the kind's own type
 * words. Each kind adds where its resource lives. Pure.
 */

const NAME = /\b(?:call it|name it|named|resource name is)\s+[`"']?([a-z][a-z0-9_]{2,62})\b/i;
const CREDENTIAL = /\b((?:env|file|vault):\/\/[^\s,;"'<>()，；。、（）]+)/i;
const ROLES =
  /(?:\broles?\s+|角色\s*(?:是|为)?\s*)([a-z][a-z0-9_-]{1,62}(?:\s*(?:,|and|和|、)\s*[a-z][a-z0-9_-]{1,62})*)/i;
const NOT_FIELDS = new Set(['it', 'this', 'that', 'name', 'url', 'there']);

/** The parts of a sentence no kind reads differently. */
export interface CommonMention {
  name?: string;
  credentialRef?: string;
  roles?: string[];
}

export function readCommonMention(text: string): CommonMention {
  const name = NAME.exec(text)?.[1];
  const credentialRef = CREDENTIAL.exec(text)?.[1];
  const roles = ROLES.exec(text)?.[1]
    ?.split(/\s*(?:,|and|和|、)\s*/)
    .filter((r) => r !== '');
  return {
    ...(name ? { name } : {}),
    ...(credentialRef ? { credentialRef } : {}),
    ...(roles && roles.length > 0 ? { roles } : {}),
  };
}

/**
 * The fields a sentence types ("amount is a number", "金额 是 number"): each name with its type
 * word mapped through `types` (the kind's words; unknown words are skipped). `names` is the
 * pattern of a field name; words that name the resource's own parts are never fields.
 */
export function readMentionedFields(
  text: string,
  types: Readonly<Record<string, string>>,
  options: { names: string; notFields?: readonly string[] },
): Array<{ name: string; type: string }> {
  const words = Object.keys(types).sort((a, b) => b.length - a.length);
  const field = new RegExp(
    `\\b(${options.names})(?:\\s+(?:is|are)\\s+|\\s*(?:是|为)\\s*)(?:an?\\s+)?(${words.join('|')})\\b`,
    'gi',
  );
  const skip = new Set([...NOT_FIELDS, ...(options.notFields ?? [])]);
  const found: Array<{ name: string; type: string }> = [];
  for (const match of text.matchAll(field)) {
    const name = match[1]!;
    const type = types[match[2]!.toLowerCase()];
    if (type === undefined || skip.has(name.toLowerCase())) continue;
    found.push({ name, type });
  }
  return found;
}
