import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import type { FieldReport, Proposal, ProposalKinds } from './proposal.js';

const VERBS: Record<string, string> = {
  filterable: 'filter',
  range: 'range',
  searchable: 'search',
  sortable: 'sort',
  aggregatable: 'aggregate',
  returnable: 'return',
};
const MAX_LISTED = 25;

/**
 * The proposal in plain language, for a person to read before confirming, e.g.:
 * `I understood: <kind title> "orders" at http://data:9200 (no credential), as resource
 * "es_orders" of team-a/prod. Enabled fields: id (keyword: filter, return), … Confirm?`
 */
export function echoProposal(proposal: Proposal, kinds: ProposalKinds): string {
  const d = proposal.descriptor;
  const metadata = objectAt(d, 'metadata');
  const spec = objectAt(d, 'spec');
  const connection = objectAt(spec, 'connection');
  const access = objectAt(spec, 'access');
  const kind = typeof spec.type === 'string' ? kinds.find(spec.type) : undefined;
  const fields = objectAt(objectAt(spec, 'schema'), 'fields');

  const lines: string[] = [];
  const what =
    kind === undefined
      ? `a ${text(spec.type)} resource`
      : `${kind.title} ${kind.describeTarget(spec as never)}`;
  const credential =
    typeof connection.credentialRef === 'string'
      ? `credential from a ${connection.credentialRef.split('://')[0]}:// reference`
      : 'no credential';
  lines.push(
    `I understood: ${what} (${credential}), ` +
      `as resource ${quoted(metadata.name)} of ${text(metadata.tenant)}/${text(metadata.environment)}` +
      (typeof metadata.description === 'string' ? ` — ${metadata.description}` : '') +
      '.',
  );

  const entries = Object.entries(fields).filter((entry): entry is [string, JsonObject] =>
    isObject(entry[1]),
  );
  const enabled = entries.filter(([, spec]) => capabilities(spec).length > 0);
  lines.push(
    enabled.length === 0
      ? 'Enabled fields: none yet.'
      : `Enabled fields: ${listed(enabled.map(([name, spec]) => `${name} (${text(spec.type)}: ${capabilities(spec).join(', ')})${typeof spec.description === 'string' ? ` — ${spec.description}` : ''}`))}.`,
  );
  const proposed = proposal.fields.filter((f) => !f.declared);
  if (proposed.length > 0) {
    lines.push(`Found but not enabled: ${listed(proposed.map(describeProposed))}.`);
  }

  if (Object.keys(access).length > 0) {
    const roles = Array.isArray(access.allowedRoles)
      ? access.allowedRoles.map(text).join(', ')
      : 'none named';
    const mode = access.readonly === false ? 'read-write' : 'read-only';
    const limit =
      typeof access.maxLimit === 'number' ? `; at most ${access.maxLimit} rows per call` : '';
    lines.push(`Access: roles ${roles}; ${mode}${limit}.`);
  }
  for (const warning of proposal.warnings.filter((w) => w.code !== 'FIELDS_NOT_ENABLED')) {
    lines.push(`${proposal.blocking.includes(warning) ? 'Blocking' : 'Note'}: ${warning.message}`);
  }
  lines.push(
    proposal.confirmable
      ? 'Confirm?'
      : proposal.blocking.length > 0
        ? 'This cannot be saved as proposed; fix the descriptor and draft it again.'
        : 'Supply what is still needed (Confirm with edits), then it can be saved.',
  );
  return lines.join('\n');
}

function describeProposed(field: FieldReport): string {
  const could = Object.keys(VERBS)
    .filter((capability) => (field.proposedCapabilities as string[]).includes(capability))
    .map((capability) => VERBS[capability] as string);
  return could.length === 0
    ? `${field.name} (${field.type})`
    : `${field.name} (${field.type}; could ${could.join(', ')})`;
}

function capabilities(spec: JsonObject): string[] {
  return Object.keys(VERBS)
    .filter((capability) => spec[capability] === true)
    .map((capability) => VERBS[capability] as string);
}

function listed(items: string[]): string {
  if (items.length <= MAX_LISTED) return items.join(', ');
  return `${items.slice(0, MAX_LISTED).join(', ')} and ${items.length - MAX_LISTED} more`;
}

function objectAt(value: JsonObject, key: string): JsonObject {
  const child = value[key];
  return isObject(child) ? child : {};
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: JsonValue | undefined): string {
  return typeof value === 'string' ? value : '(not given)';
}

function quoted(value: JsonValue | undefined): string {
  return typeof value === 'string' ? `"${value}"` : '(not given)';
}
