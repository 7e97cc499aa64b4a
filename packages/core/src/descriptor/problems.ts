/**
 * What descriptor validation reports: every problem at once, each with the path it is at,
 * a message (`expected …, found …`, `unknown key (allowed: …)`, …) and, where they apply,
 * what was expected and what was found. `found` never carries a secret.
 */
import type { Descriptor } from './types.js';
import { TollgateError } from '../errors/codes.js';
import { looksLikeSecret } from './secrets.js';

/** One problem in a descriptor; `path` is `''` for the document itself. */
export interface DescriptorProblem {
  /** Where: `spec.access.maxLimit`, `spec.grants[0].actions[1]`, `spec.schema.fields["a.b"]`. */
  path: string;
  /** What is wrong, without the path: `expected integer between 1 and 1000, found "ten"`. */
  message: string;
  expected?: string;
  found?: string;
  /** The file (or other source) the descriptor was read from, when known. */
  source?: string;
  /** 1-based position in the source text, when the descriptor was parsed from YAML or JSON. */
  line?: number;
  column?: number;
}

/** The outcome of validating one descriptor: the typed descriptor, or every problem found. */
export type ValidationResult =
  { ok: true; descriptor: Descriptor } | { ok: false; problems: DescriptorProblem[] };

/** A problem of the form `expected <expected>, found <found>`. */
export function mismatch(path: string, expected: string, found: string): DescriptorProblem {
  return { path, message: `expected ${expected}, found ${found}`, expected, found };
}

/** A problem with a free-form message and optional expected/found. */
export function problem(
  path: string,
  message: string,
  detail: { expected?: string; found?: string } = {},
): DescriptorProblem {
  return { path, message, ...detail };
}

const MAX_FOUND_LENGTH = 60;

/**
 * How a found value is shown: strings quoted (shortened past 60 characters), numbers and
 * booleans as written, containers by shape. A string that looks like a secret is never echoed.
 */
export function renderFound(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') {
    if (looksLikeSecret(value) !== undefined) return 'a value that looks like a secret';
    const shown = value.length > MAX_FOUND_LENGTH ? `${value.slice(0, MAX_FOUND_LENGTH)}…` : value;
    return JSON.stringify(shown);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return 'an empty list';
    return value.length === 1 ? 'a list of 1 item' : `a list of ${value.length} items`;
  }
  if (typeof value === 'object') return 'an object';
  return typeof value;
}

/**
 * One line per problem: `<path>: <message>`, preceded by `<source>:<line>:<column>: ` as far
 * as they are known. The document itself is shown as `(document)`.
 */
export function describeDescriptorProblems(problems: readonly DescriptorProblem[]): string {
  return problems.map(describeProblem).join('\n');
}

function describeProblem(p: DescriptorProblem): string {
  const position = p.line === undefined ? [] : [p.line, p.column ?? 1];
  const where = [p.source, ...position].filter((part) => part !== undefined).join(':');
  return `${where === '' ? '' : `${where}: `}${p.path === '' ? '(document)' : p.path}: ${p.message}`;
}

/** The error to throw (or send) when a descriptor is rejected; details list every problem. */
export function descriptorInvalid(problems: readonly DescriptorProblem[]): TollgateError {
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  const first = problems[0];
  const summary =
    first === undefined
      ? ''
      : `: ${first.path === '' ? '(document)' : first.path}: ${first.message}`;
  return new TollgateError('DESCRIPTOR_INVALID', `descriptor invalid (${count})${summary}`, {
    details: problems.map(({ path, message, expected, found }) => ({
      path,
      message,
      ...(expected === undefined ? {} : { expected }),
      ...(found === undefined ? {} : { found }),
    })),
  });
}
