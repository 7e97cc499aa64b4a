/**
 * Structural validation against the published JSON Schema (packages/core/schema), compiled
 * once per kind at module load, strict, reporting all errors. Ajv's errors are turned into
 * problems that say what was expected and what was found at each path.
 */
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import type { AnySchemaObject, ErrorObject, ValidateFunction } from 'ajv';
import type { DescriptorKind } from './types.js';
import type { DescriptorProblem } from './problems.js';
import { mismatch, problem, renderFound } from './problems.js';
import { formatPath, joinPath, pointerSegments } from './path.js';

const require = createRequire(import.meta.url);

/** The published schema with every kind's definition (generated; see scripts/). */
export const descriptorSchema = require('../../schema/descriptor.schema.json') as AnySchemaObject;

const SCHEMA_ID = descriptorSchema.$id as string;
const definitions = descriptorSchema.definitions as Record<string, AnySchemaObject>;

const ajv = new Ajv({ allErrors: true, strict: true, verbose: true });
ajv.addSchema(descriptorSchema);

const validators: Record<DescriptorKind, ValidateFunction> = {
  Resource: compileDefinition('ResourceDescriptor'),
  Agent: compileDefinition('AgentDescriptor'),
  Policy: compileDefinition('PolicyDescriptor'),
};

function compileDefinition(name: string): ValidateFunction {
  const validate = ajv.getSchema(`${SCHEMA_ID}#/definitions/${name}`);
  if (validate === undefined) throw new Error(`descriptor schema has no definition ${name}`);
  return validate;
}

/** Every structural problem of `input` as a descriptor of `kind` (except apiVersion and kind). */
export function checkShape(kind: DescriptorKind, input: unknown): DescriptorProblem[] {
  const validate = validators[kind];
  if (validate(input)) return [];
  const problems: DescriptorProblem[] = [];
  for (const error of validate.errors ?? []) {
    if (error.propertyName !== undefined) continue; // reported by its `propertyNames` error
    const found = toProblem(error, input);
    if (found !== undefined && !isEnvelopeKey(found.path)) problems.push(found);
  }
  return problems;
}

function isEnvelopeKey(path: string): boolean {
  return path === 'apiVersion' || path === 'kind';
}

function toProblem(error: ErrorObject, root: unknown): DescriptorProblem | undefined {
  const at = formatPath(pointerSegments(error.instancePath, root));
  const parent = (error.parentSchema ?? {}) as AnySchemaObject;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const allowed = Object.keys((parent.properties ?? {}) as object).join(', ');
      return problem(joinPath(at, key), `unknown key (allowed: ${allowed})`, {
        expected: `one of ${allowed}`,
        found: `key ${renderFound(key)}`,
      });
    }
    case 'required': {
      const key = String(params.missingProperty);
      const properties = (parent.properties ?? {}) as Record<string, AnySchemaObject>;
      const expected = describeSchema(properties[key] ?? {});
      return problem(joinPath(at, key), `required key missing (expected ${expected})`, {
        expected,
        found: 'nothing',
      });
    }
    case 'propertyNames': {
      const key = String(params.propertyName);
      const names = (parent.propertyNames ?? {}) as AnySchemaObject;
      const expected = `key ${typeof names.pattern === 'string' ? `matching ${displayPattern(names.pattern)}` : describeSchema(names)}`;
      return problem(
        joinPath(at, key),
        `invalid key: expected ${expected}, found ${renderFound(key)}`,
        {
          expected,
          found: renderFound(key),
        },
      );
    }
    case 'uniqueItems': {
      const duplicate = Array.isArray(error.data) ? error.data[Number(params.i)] : undefined;
      return mismatch(at, 'list without duplicates', `${renderFound(duplicate)} twice`);
    }
    default:
      return mismatch(at, describeSchema(parent), renderFound(error.data));
  }
}

/** A short phrase for what a schema accepts: `integer between 1 and 1000`, `one of a, b`. */
export function describeSchema(schema: AnySchemaObject): string {
  const s = resolve(schema);
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) {
    return s.enum.length === 1 ? JSON.stringify(s.enum[0]) : `one of ${s.enum.join(', ')}`;
  }
  switch (s.type) {
    case 'string':
      return describeString(s);
    case 'integer':
    case 'number':
      return describeNumber(s.type, s);
    case 'boolean':
      return 'true or false';
    case 'array': {
      const items = `list of ${describeItems((s.items ?? {}) as AnySchemaObject)}`;
      return typeof s.minItems === 'number' && s.minItems > 0 ? `non-empty ${items}` : items;
    }
    case 'object':
      return 'object';
    default:
      return 'a value';
  }
}

function describeString(s: AnySchemaObject): string {
  if (typeof s.pattern === 'string') return `string matching ${displayPattern(s.pattern)}`;
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : undefined;
  const base = min > 0 ? 'non-empty string' : 'string';
  return max === undefined ? base : `${base} of at most ${max} characters`;
}

function describeNumber(type: string, s: AnySchemaObject): string {
  const min = typeof s.minimum === 'number' ? s.minimum : undefined;
  const max = typeof s.maximum === 'number' ? s.maximum : undefined;
  if (min !== undefined && max !== undefined) return `${type} between ${min} and ${max}`;
  if (min !== undefined) return `${type} of at least ${min}`;
  if (max !== undefined) return `${type} of at most ${max}`;
  return type;
}

function describeItems(items: AnySchemaObject): string {
  const s = resolve(items);
  if (s.type === 'string') {
    return typeof s.pattern === 'string'
      ? `strings matching ${displayPattern(s.pattern)}`
      : 'strings';
  }
  if (Array.isArray(s.enum)) return `values from ${s.enum.join(', ')}`;
  if (s.type === 'object') return 'objects';
  return 'values';
}

/** Patterns are shown without their anchors: `[a-z][a-z0-9_]{2,62}`. */
function displayPattern(pattern: string): string {
  return pattern.replace(/^\^/, '').replace(/\$$/, '');
}

/** Follows local `$ref`s into the published definitions. */
function resolve(schema: AnySchemaObject): AnySchemaObject {
  let s = schema;
  for (let hops = 0; typeof s.$ref === 'string' && hops < 10; hops++) {
    const name = decodeURIComponent(s.$ref.replace(/^.*#\/definitions\//, ''));
    s = definitions[name] ?? {};
  }
  return s;
}
