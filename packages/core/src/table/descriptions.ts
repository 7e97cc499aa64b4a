/**
 * Tool descriptions: what the resource holds, what the tool does, when to use it and when a
 * sibling tool fits better, and the meaning of the fields (in the set's first tool, which names
 * every field the set touches; the others point to it). Short on purpose: every token is paid
 * on every model call. Only fields the principal may use are named.
 */
import { compareCodeUnits } from '../canonical.js';
import type { AggregationKind } from './args.js';
import type { Projection } from './projection.js';

const AGGREGATION_HELP: Record<AggregationKind, string> = {
  terms: 'terms (top values with counts)',
  date_histogram: 'date_histogram (counts per interval)',
  stats: 'stats (count, min, max, avg, sum)',
  cardinality: 'cardinality (distinct values)',
};

/** The description of `operation`'s tool; `names` maps each emitted sibling to its tool name. */
export function describeTool(
  operation: string,
  p: Projection,
  names: Partial<Record<string, string>>,
): string {
  // Field meanings are spelled out once per tool set, in its first tool, to save tokens.
  const first = Object.values(names)[0];
  const meanings =
    first === undefined || names[operation] === first
      ? glossary(operation, p)
      : `Field meanings: see ${first}.`;
  const sentences = [holds(p), ...purpose(operation, p, names), meanings];
  return sentences.filter((s) => s !== '').join(' ');
}

function holds(p: Projection): string {
  const text = oneLine(p.resource.metadata.description ?? '');
  return text === ''
    ? `${capitalised(p.model.dialect.record)}s of ${p.resource.metadata.name}.`
    : sentence(text);
}

function purpose(
  operation: string,
  p: Projection,
  names: Partial<Record<string, string>>,
): string[] {
  const record = p.model.dialect.record;
  const use = (op: string, what: string): string[] =>
    names[op] === undefined ? [] : [`${what} (use ${names[op]})`];
  switch (operation) {
    case 'search': {
      const not = [
        ...use('get', `one ${record} by known id`),
        ...use('count', 'totals only'),
        ...use('aggregate', 'breakdowns or statistics'),
      ];
      return [
        `Finds ${record}s matching all filters, at most ${p.limitCap} per call; pass the returned cursor to get the next page.`,
        ...(not.length > 0 ? [`Not for: ${not.join('; ')}.`] : []),
      ];
    }
    case 'get':
      return [
        `Fetches one ${record} by its id.`,
        ...(names.search !== undefined
          ? [`Use when the id is known; otherwise use ${names.search}.`]
          : []),
      ];
    case 'count':
      return [
        `Counts ${record}s matching all filters.`,
        `Use for how-many questions; not to list ${record}s${names.search !== undefined ? ` (use ${names.search})` : ''}.`,
      ];
    case 'aggregate': {
      const kinds = [...p.aggregations.keys()].map((kind) => AGGREGATION_HELP[kind]);
      return [
        `Computes one aggregation over ${record}s matching all filters: ${kinds.join(', ')}.`,
        `Use for breakdowns and statistics; not to list ${record}s${names.search !== undefined ? ` (use ${names.search})` : ''}.`,
      ];
    }
    case 'write':
      return [
        `Creates or updates the ${record} with this id, setting the given fields.`,
        'Changes data and may wait for human approval; use only when asked to change data.',
      ];
    case 'insert':
      return [
        `Adds a new ${record} with the given fields.`,
        'Changes data and may wait for human approval; use only when asked to change data.',
      ];
    case 'update':
      return [
        `Changes the given fields of the ${record} with this key.`,
        'Changes data and may wait for human approval; use only when asked to change data.',
      ];
    default:
      return [];
  }
}

/** "Fields: a: meaning; b: meaning." for the described fields the tool set touches. */
function glossary(operation: string, p: Projection): string {
  const touched = new Set<string>(p.filters.map((branch) => branch.field));
  if (operation !== 'count') p.visible.forEach((f) => touched.add(f));
  const fields = p.resource.spec.schema.fields;
  const entries = [...touched]
    .sort(compareCodeUnits)
    .map((field) => [field, oneLine(fields[field]?.description ?? '')] as const)
    .filter(([, text]) => text !== '')
    .map(([field, text]) => `${field}: ${text.replace(/[.;]+$/, '')}`);
  return entries.length > 0 ? `Fields: ${entries.join('; ')}.` : '';
}

function capitalised(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function sentence(text: string): string {
  return /[.!?。！？]$/.test(text) ? text : `${text}.`;
}
