/**
 * Turns Ajv's errors into details a model can act on: each names the offending path in
 * JavaScript notation (`filters[0].field`) and what would have been accepted there. Ajv's raw
 * `anyOf` output (every branch's complaints) is replaced by a summary: the branch whose
 * discriminators (`field`, then `op`; `kind`, then `field`) match is checked and its errors
 * reported, and when none matches the allowed values are listed.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { compareCodeUnits } from '../canonical.js';
import type { ErrorDetail } from '../errors/codes.js';
import { discriminatorKeys, pinnedValues } from './dispatch.js';
import { isJsonObject } from './schema-walk.js';
import type { JsonSchema, JsonValue } from './types.js';

/** Compiles (once) the validator of one anyOf branch. */
export type BranchCompiler = (branch: JsonSchema) => ValidateFunction;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MAX_LISTED = 100;

/** The arguments themselves. */
export const ROOT: Location = { pointer: '', path: '' };

/** Details for `errors` that `schema` raised on `data`, data-relative pointers under `base`. */
export function explainErrors(
  errors: readonly ErrorObject[],
  schema: JsonSchema,
  data: unknown,
  compileBranch: BranchCompiler,
  base: Location = ROOT,
): ErrorDetail[] {
  const anyOfs = errors.filter((e) => e.keyword === 'anyOf');
  const inBranch = (e: ErrorObject): boolean =>
    anyOfs.some((a) => e !== a && e.schemaPath.startsWith(`${a.schemaPath}/`));
  const details: ErrorDetail[] = [];
  for (const error of errors) {
    if (inBranch(error)) continue;
    const at = locate(data, error.instancePath, base);
    if (error.keyword === 'anyOf') {
      const branches = resolve(schema, error.schemaPath);
      const value = valueAt(data, error.instancePath);
      details.push(
        ...explainAnyOf(Array.isArray(branches) ? branches : [], value, at, compileBranch),
      );
    } else {
      details.push(describe(error, schema, valueAt(data, error.instancePath), at));
    }
  }
  return dedupe(details);
}

/** Where an error sits: the JSON pointer into the arguments and its readable path. */
export interface Location {
  pointer: string;
  path: string;
}

/** Details for `value`, which no branch of an anyOf admits, found at `at`. */
export function explainAnyOf(
  branches: JsonValue[],
  value: unknown,
  at: Location,
  compileBranch: BranchCompiler,
): ErrorDetail[] {
  const shapes = branches.filter(isJsonObject);
  const objects = shapes.every((shape) => shape.type === 'object');
  if (objects && !isPlainObject(value)) return [detail(at.path, 'an object', found(value))];
  const discriminators = discriminatorKeys(shapes);
  if (discriminators.length === 0) {
    return [detail(at.path, shapes.map(shapeName).join(' or '), found(value))];
  }
  let candidates = shapes;
  const context: string[] = [];
  const record = isPlainObject(value) ? value : {};
  for (const key of discriminators) {
    const given = record[key];
    const matching = candidates.filter((shape) =>
      pinnedValues(shape, key).includes(given as JsonValue),
    );
    if (matching.length === 0) {
      const allowed = unique(candidates.flatMap((shape) => pinnedValues(shape, key)));
      // Field names sorted, whichever layout spread them over branches.
      if (key === 'field') allowed.sort((a, b) => compareCodeUnits(String(a), String(b)));
      const where = context.length > 0 ? ` for ${context.join(', ')}` : '';
      const path = joinPath(at.path, key);
      return [
        detail(
          path,
          `one of ${list(allowed)}${where}`,
          given === undefined ? 'nothing' : found(given),
        ),
      ];
    }
    candidates = matching;
    context.push(`${key} ${JSON.stringify(given)}`);
  }
  let best: ErrorDetail[] | undefined;
  for (const shape of candidates) {
    const validate = compileBranch(shape);
    if (validate(value)) return [];
    const explained = explainErrors(validate.errors ?? [], shape, value, compileBranch, at);
    if (best === undefined || explained.length < best.length) best = explained;
  }
  return best ?? [detail(at.path, 'a value matching one of the documented shapes', found(value))];
}

/** A branch in words: `a date-time string`, `an ipv4 string`, `integer`. */
function shapeName(shape: JsonSchema): string {
  const type = Array.isArray(shape.type) ? shape.type.join(' or ') : String(shape.type ?? 'value');
  return typeof shape.format === 'string' ? `an ${shape.format} ${type}` : type;
}

function describe(
  error: ErrorObject,
  schema: JsonSchema,
  value: unknown,
  at: Location,
): ErrorDetail {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return detail(joinPath(at.path, String(p.missingProperty)), 'a value (required)', 'nothing');
    case 'additionalProperties': {
      const parent = resolve(schema, error.schemaPath.replace(/\/additionalProperties$/, ''));
      const known =
        isJsonObject(parent) && isJsonObject(parent.properties)
          ? Object.keys(parent.properties)
          : [];
      const name = String(p.additionalProperty);
      return {
        path: joinPath(at.path, name),
        message: `unexpected property; expected only ${list(known)}`,
        expected: `only ${list(known)}`,
        found: JSON.stringify(name),
      };
    }
    case 'enum':
      return detail(at.path, `one of ${list(p.allowedValues as JsonValue[])}`, found(value));
    case 'const':
      return detail(at.path, JSON.stringify(p.allowedValue), found(value));
    case 'type': {
      const types = Array.isArray(p.type) ? p.type : String(p.type).split(',');
      return detail(at.path, types.join(' or '), typeName(value));
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return detail(at.path, `a number ${String(p.comparison)} ${String(p.limit)}`, found(value));
    case 'minLength':
    case 'maxLength':
      return detail(
        at.path,
        `${error.keyword === 'minLength' ? 'at least' : 'at most'} ${String(p.limit)} characters`,
        `${typeof value === 'string' ? value.length : '?'} characters`,
      );
    case 'minItems':
    case 'maxItems':
      return detail(
        at.path,
        `${error.keyword === 'minItems' ? 'at least' : 'at most'} ${String(p.limit)} items`,
        `${Array.isArray(value) ? value.length : '?'} items`,
      );
    case 'uniqueItems':
      return detail(at.path, 'unique items', `items ${String(p.j)} and ${String(p.i)} are equal`);
    case 'format':
      return detail(
        at.path,
        p.format === 'date-time'
          ? 'an ISO-8601 date-time such as 2024-05-01T12:00:00Z'
          : `a ${String(p.format)}`,
        found(value),
      );
    default:
      return { path: at.path, message: error.message ?? `fails ${error.keyword}` };
  }
}

function detail(path: string, expected: string, foundText: string): ErrorDetail {
  return { path, message: `expected ${expected}; found ${foundText}`, expected, found: foundText };
}

/** The location of `pointer` in `data`, appended to `base`. */
export function locate(data: unknown, pointer: string, base: Location): Location {
  let path = base.path;
  let node = data;
  for (const segment of segments(pointer)) {
    path =
      Array.isArray(node) && /^\d+$/.test(segment)
        ? `${path}[${segment}]`
        : joinPath(path, segment);
    node =
      isPlainObject(node) || Array.isArray(node)
        ? (node as Record<string, unknown>)[segment]
        : undefined;
  }
  return { pointer: `${base.pointer}${pointer}`, path };
}

/** Appends an object key to a readable path. */
export function joinPath(path: string, key: string): string {
  if (!IDENTIFIER.test(key)) return `${path}[${JSON.stringify(key)}]`;
  return path === '' ? key : `${path}.${key}`;
}

function segments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function valueAt(data: unknown, pointer: string): unknown {
  let node = data;
  for (const segment of segments(pointer)) {
    node =
      isPlainObject(node) || Array.isArray(node)
        ? (node as Record<string, unknown>)[segment]
        : undefined;
  }
  return node;
}

function resolve(schema: JsonSchema, schemaPath: string): JsonValue | undefined {
  let node: JsonValue | undefined = schema;
  for (const segment of segments(schemaPath.replace(/^#/, ''))) {
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isJsonObject(node)) node = node[segment];
    else return undefined;
  }
  return node;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function found(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? typeName(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function list(values: readonly JsonValue[]): string {
  const shown = values
    .slice(0, MAX_LISTED)
    .map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  const more = values.length > MAX_LISTED ? ` (and ${values.length - MAX_LISTED} more)` : '';
  return `${shown.join(', ')}${more}`;
}

function unique(values: JsonValue[]): JsonValue[] {
  return [...new Set(values)];
}

/** The details without repeats (same path and message), in order. */
export function dedupe(details: ErrorDetail[]): ErrorDetail[] {
  const seen = new Set<string>();
  return details.filter((d) => {
    const key = `${d.path}\u0000${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
