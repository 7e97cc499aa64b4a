import { TollgateError } from '@tollgate/core';
import type { ErrorDetail } from '@tollgate/core';

/**
 * Bounds on the shape of any tool call's arguments, checked in one cheap pass before the schema
 * validator runs. No synthesized tool asks for more (the largest arrays are `in` values and
 * field lists, at most a few hundred; nesting is a few levels), so a call beyond them is refused
 * without paying for full validation: a 260 KB request of 65,000 empty filters would otherwise
 * have every entry checked and explained, holding the event loop for every other call.
 */
export const ARGUMENT_LIMITS = {
  /** Items in any one array. */
  maxArrayItems: 1_000,
  /** Objects and arrays nested inside each other, the arguments object being level 1. */
  maxDepth: 12,
  /** Values in all (objects, arrays, scalars). */
  maxValues: 20_000,
} as const;

/** Problems reported for one call at most; the message gives the full count. */
export const MAX_REPORTED_PROBLEMS = 20;

/** Refuses arguments whose shape is beyond ARGUMENT_LIMITS; stops at the first excess. */
export function refuseOversizedArguments(args: unknown): void {
  let values = 0;
  const walk = (value: unknown, path: string, depth: number): void => {
    values++;
    if (values > ARGUMENT_LIMITS.maxValues) {
      throw oversized(
        '',
        `more than ${ARGUMENT_LIMITS.maxValues} values in all`,
        `at most ${ARGUMENT_LIMITS.maxValues} values`,
        'more',
      );
    }
    if (value === null || typeof value !== 'object') return;
    if (depth > ARGUMENT_LIMITS.maxDepth) {
      throw oversized(
        path,
        'nested too deeply',
        `at most ${ARGUMENT_LIMITS.maxDepth} levels`,
        `level ${depth}`,
      );
    }
    if (Array.isArray(value)) {
      if (value.length > ARGUMENT_LIMITS.maxArrayItems) {
        throw oversized(
          path,
          'array too long',
          `at most ${ARGUMENT_LIMITS.maxArrayItems} items`,
          `${value.length} items`,
        );
      }
      for (let i = 0; i < value.length; i++) walk(value[i], `${path}[${i}]`, depth + 1);
      return;
    }
    for (const [key, inner] of Object.entries(value)) {
      walk(inner, path === '' ? key : `${path}.${key}`, depth + 1);
    }
  };
  walk(args, '', 1);
}

function oversized(path: string, message: string, expected: string, found: string): TollgateError {
  return new TollgateError(
    'ARGUMENTS_INVALID',
    `Arguments are larger than any tool takes (${message}${path === '' ? '' : ` at ${path}`}); send only what the tool's schema asks for.`,
    { details: [{ path: path.slice(0, 200), message, expected, found }] },
  );
}

/** At most MAX_REPORTED_PROBLEMS details, and the wording of how many there were. */
export function reportedProblems(details: readonly ErrorDetail[]): {
  details: ErrorDetail[];
  count: string;
} {
  const n = details.length;
  const shown = details.slice(0, MAX_REPORTED_PROBLEMS);
  const count =
    n > shown.length
      ? `${n} problems (the first ${shown.length} in details)`
      : `${n} problem${n === 1 ? '' : 's'}`;
  return { details: shown, count };
}
