/**
 * Argument validation against a tool's own `inputSchema`: compiled once with Ajv (strict,
 * 2020-12; discriminated anyOfs dispatched by lookup, see dispatch.ts), explained precisely on
 * failure, then checked for what a schema cannot say. Valid arguments come back with every
 * `null` removed.
 */
import type { ValidateFunction } from 'ajv';
import type { ErrorDetail } from '../errors/codes.js';
import { createStrictAjv } from './ajv.js';
import type { StrictAjv } from './ajv.js';
import { candidates, splitDiscriminated, valuesAt } from './dispatch.js';
import type { DiscriminatedAnyOf } from './dispatch.js';
import { ROOT, dedupe, explainAnyOf, explainErrors, joinPath, locate } from './explain.js';
import type { BranchCompiler } from './explain.js';
import type { JsonSchema, ToolDefinition } from './types.js';

/** The outcome of validating one call's arguments. */
export type ArgumentValidation =
  { ok: true; args: Record<string, unknown> } | { ok: false; details: ErrorDetail[] };

/** A tool's compiled validator. Build once per tool, call per request. */
export interface ToolValidator {
  readonly tool: ToolDefinition;
  /** The compiled schema check alone (the fast path): true when `args` match the schema. */
  readonly matches: (args: unknown) => boolean;
  /** Schema and semantic checks; details name each offending path and what was allowed. */
  validate(args: unknown): ArgumentValidation;
}

let sharedAjv: StrictAjv | undefined;

/** Compiles `schema`; the Ajv instance keeps no reference, the returned function owns it. */
function compile(schema: JsonSchema): ValidateFunction {
  sharedAjv ??= createStrictAjv();
  try {
    return sharedAjv.compile(schema);
  } finally {
    sharedAjv.removeSchema(schema);
  }
}

export function compileToolValidator(tool: ToolDefinition): ToolValidator {
  const { root, anyOfs } = splitDiscriminated(tool.inputSchema);
  const check = compile(root);
  const branchValidators = new Map<JsonSchema, ValidateFunction>();
  const compileBranch: BranchCompiler = (branch) => {
    let validate = branchValidators.get(branch);
    if (validate === undefined) {
      validate = compile(branch);
      branchValidators.set(branch, validate);
    }
    return validate;
  };
  const admitted = (anyOf: DiscriminatedAnyOf, value: unknown): boolean =>
    candidates(anyOf, value).some((i) => compileBranch(anyOf.branches[i] as JsonSchema)(value));
  const matches = (args: unknown): boolean =>
    check(args) &&
    anyOfs.every((anyOf) => valuesAt(args, anyOf.at).every(([value]) => admitted(anyOf, value)));
  return {
    tool,
    matches,
    validate(args) {
      if (!matches(args)) return { ok: false, details: explain(args) };
      const details = semanticProblems(args as Record<string, unknown>);
      if (details.length > 0) return { ok: false, details };
      return { ok: true, args: withoutNulls(args) as Record<string, unknown> };
    },
  };

  function explain(args: unknown): ErrorDetail[] {
    const details = check(args) ? [] : explainErrors(check.errors ?? [], root, args, compileBranch);
    for (const anyOf of anyOfs) {
      for (const [value, pointer] of valuesAt(args, anyOf.at)) {
        if (admitted(anyOf, value)) continue;
        const at = locate(args, pointer, ROOT);
        details.push(...explainAnyOf(anyOf.branches, value, at, compileBranch));
      }
    }
    return dedupe(details);
  }
}

const compiledByTool = new WeakMap<ToolDefinition, ToolValidator>();

/**
 * Validates `args` for `tool`, compiling its validator on first use for this tool object
 * (held weakly). Services keying by resource version and permissions use `ToolValidatorCache`.
 */
export function validateToolArguments(tool: ToolDefinition, args: unknown): ArgumentValidation {
  let validator = compiledByTool.get(tool);
  if (validator === undefined) {
    validator = compileToolValidator(tool);
    compiledByTool.set(tool, validator);
  }
  return validator.validate(args);
}

/**
 * What the schema cannot say: between bounds in order, sort keys distinct, integers exact
 * (within ±2^53), a write setting at least one field.
 */
function semanticProblems(args: Record<string, unknown>): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const problem = (path: string, expected: string, found: string): void => {
    details.push({ path, message: `expected ${expected}; found ${found}`, expected, found });
  };
  const filters = Array.isArray(args.filters) ? (args.filters as Record<string, unknown>[]) : [];
  filters.forEach((filter, index) => {
    if (filter.op !== 'between' || !Array.isArray(filter.value)) return;
    const [low, high] = filter.value as unknown[];
    const order = (v: unknown): number => (typeof v === 'string' ? Date.parse(v) : Number(v));
    if (order(low) > order(high)) {
      problem(
        `filters[${index}].value`,
        '[low, high] with low <= high',
        JSON.stringify(filter.value),
      );
    }
  });
  const sort = Array.isArray(args.sort) ? (args.sort as Record<string, unknown>[]) : [];
  sort.forEach((key, index) => {
    if (sort.findIndex((other) => other.field === key.field) < index) {
      problem(`sort[${index}].field`, 'each field at most once', JSON.stringify(key.field));
    }
  });
  for (const [path, value] of inexactIntegers(args, [])) {
    problem(path, 'an integer between -(2^53 - 1) and 2^53 - 1', String(value));
  }
  const document = args.document;
  if (typeof document === 'object' && document !== null) {
    if (Object.values(document).every((value) => value === null)) {
      problem('document', 'at least one field to set (not null)', 'none');
    }
  }
  return details;
}

/** Integers beyond ±2^53 in `value` (JSON cannot carry them exactly), with readable paths. */
function inexactIntegers(value: unknown, at: (string | number)[]): [string, number][] {
  if (!hasInexactInteger(value)) return [];
  if (typeof value === 'number') return [[formatPath(at), value]];
  const found: [string, number][] = [];
  for (const [key, item] of Object.entries(value as object)) {
    found.push(...inexactIntegers(item, [...at, Array.isArray(value) ? Number(key) : key]));
  }
  return found;
}

function hasInexactInteger(value: unknown): boolean {
  if (typeof value === 'number') return Number.isInteger(value) && !Number.isSafeInteger(value);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (hasInexactInteger(item)) return true;
    return false;
  }
  for (const key in value) {
    if (hasInexactInteger((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

function formatPath(at: (string | number)[]): string {
  return at.reduce<string>(
    (path, s) => (typeof s === 'number' ? `${path}[${s}]` : joinPath(path, s)),
    '',
  );
}

/** A copy of validated (plain JSON) arguments without `null` members. */
function withoutNulls(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(withoutNulls);
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== null) copy[key] = withoutNulls(item);
  }
  return copy;
}
