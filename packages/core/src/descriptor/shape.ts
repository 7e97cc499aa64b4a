/**
 * Structural validation against the published JSON Schemas, strict, reporting all errors.
 * Agents and Policies are checked against core's schemas (packages/core/schema); a Resource
 * in two steps: its envelope against core's, its `spec` against the schema of the kind its
 * `spec.type` names. Validators are compiled once per kind. Ajv's errors are turned into
 * problems that say what was expected and what was found at each path.
 */
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import type { AnySchemaObject, ErrorObject, ValidateFunction } from 'ajv';
import type { ResourceKind } from '../kind/kind.js';
import { API_VERSION } from './types.js';
import type { DescriptorProblem } from './problems.js';
import { mismatch, problem, renderFound } from './problems.js';
import { formatPath, joinPath, pointerSegments } from './path.js';

const require = createRequire(import.meta.url);

/** Where published schemas live; each kind's spec schema is `kinds/<type>.spec.schema.json`. */
export const SCHEMA_BASE_ID = 'https://tollgate.dev/schema/v1/';

/** The published schemas of Agents, Policies and a Resource's metadata (generated; see scripts/). */
export const agentSchema = require('../../schema/agent.schema.json') as AnySchemaObject;
export const policySchema = require('../../schema/policy.schema.json') as AnySchemaObject;
export const resourceMetadataSchema =
  require('../../schema/resource-metadata.schema.json') as AnySchemaObject;

/** The `$id` a kind's spec schema is published under. */
export function kindSpecSchemaId(type: string): string {
  return `${SCHEMA_BASE_ID}kinds/${type}.spec.schema.json`;
}

/**
 * A Resource of one kind as a JSON Schema: core's envelope and metadata around the kind's own
 * spec schema (referenced by `$id`, so its definitions stay its own).
 */
export function resourceSchemaFor(kind: Pick<ResourceKind, 'type'>): AnySchemaObject {
  return {
    type: 'object',
    properties: {
      apiVersion: { type: 'string', const: API_VERSION },
      kind: { type: 'string', const: 'Resource' },
      metadata: { $ref: resourceMetadataSchema.$id as string },
      spec: { $ref: kindSpecSchemaId(kind.type) },
    },
    required: ['apiVersion', 'kind', 'metadata', 'spec'],
    additionalProperties: false,
  };
}

const ajv = new Ajv({ allErrors: true, strict: true, verbose: true });
ajv.addSchema(agentSchema);
ajv.addSchema(policySchema);
ajv.addSchema(resourceMetadataSchema);

/** Definitions by schema `$id`, for describing what a `$ref` accepts. */
const definitionsById = new Map<string, Record<string, AnySchemaObject>>();
for (const schema of [agentSchema, policySchema, resourceMetadataSchema]) {
  definitionsById.set(
    schema.$id as string,
    (schema.definitions ?? {}) as Record<string, AnySchemaObject>,
  );
}

const agentValidator = compileRoot(agentSchema);
const policyValidator = compileRoot(policySchema);
const resourceValidators = new WeakMap<ResourceKind, ValidateFunction>();

function compileRoot(schema: AnySchemaObject): ValidateFunction {
  const validate = ajv.getSchema(schema.$id as string);
  if (validate === undefined) throw new Error(`schema ${String(schema.$id)} is not loaded`);
  return validate;
}

/** Kinds whose spec schema is loaded, by type; a second object of a type gets its own id. */
const loadedKinds = new Map<string, ResourceKind[]>();

function resourceValidator(kind: ResourceKind): ValidateFunction {
  let validate = resourceValidators.get(kind);
  if (validate !== undefined) return validate;
  const sameType = loadedKinds.get(kind.type) ?? [];
  loadedKinds.set(kind.type, [...sameType, kind]);
  const id =
    sameType.length === 0
      ? kindSpecSchemaId(kind.type)
      : `${kindSpecSchemaId(kind.type)}?instance=${sameType.length}`;
  ajv.addSchema({ ...kind.specSchema, $id: id });
  definitionsById.set(id, (kind.specSchema.definitions ?? {}) as Record<string, AnySchemaObject>);
  const envelope = resourceSchemaFor(kind);
  (envelope.properties as Record<string, AnySchemaObject>).spec = { $ref: id };
  validate = ajv.compile(envelope);
  resourceValidators.set(kind, validate);
  return validate;
}

/**
 * Every structural problem of `input` as an Agent or Policy, or as a Resource of `kind`
 * (except apiVersion and kind, which the caller checks first).
 */
export function checkShape(
  target: 'Agent' | 'Policy' | ResourceKind,
  input: unknown,
): DescriptorProblem[] {
  const validate =
    target === 'Agent'
      ? agentValidator
      : target === 'Policy'
        ? policyValidator
        : resourceValidator(target);
  if (validate(input)) return [];
  const problems: DescriptorProblem[] = [];
  const errors = validate.errors ?? [];
  // A value no branch of an anyOf accepts is one problem, said by the anyOf, not one per branch.
  const anyOfPaths = new Set(
    errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath),
  );
  for (const error of errors) {
    if (error.propertyName !== undefined) continue; // reported by its `propertyNames` error
    if (error.keyword !== 'anyOf' && coveredByAnyOf(error.instancePath, anyOfPaths)) continue;
    const found = toProblem(error, input);
    if (found !== undefined && !isEnvelopeKey(found.path)) problems.push(found);
  }
  return problems;
}

function coveredByAnyOf(path: string, anyOfPaths: ReadonlySet<string>): boolean {
  for (const at of anyOfPaths) if (path === at || path.startsWith(`${at}/`)) return true;
  return false;
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
  if (Array.isArray(s.anyOf)) {
    return (s.anyOf as AnySchemaObject[]).map((branch) => describeSchema(branch)).join(' or ');
  }
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
    case 'object': {
      const required = Array.isArray(s.required) ? (s.required as string[]) : [];
      return required.length > 0 ? `object with ${required.join(' and ')}` : 'object';
    }
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

/** Follows `$ref`s into the published definitions (a bare `#/definitions/X` is looked up everywhere). */
function resolve(schema: AnySchemaObject): AnySchemaObject {
  let s = schema;
  for (let hops = 0; typeof s.$ref === 'string' && hops < 10; hops++) {
    const [doc = '', pointer = ''] = s.$ref.split('#');
    const name = decodeURIComponent(pointer.replace(/^\/definitions\//, ''));
    const docs = doc === '' ? [...definitionsById.values()] : [definitionsById.get(doc) ?? {}];
    const found = docs.map((definitions) => definitions[name]).find((d) => d !== undefined);
    s = found ?? {};
  }
  return s;
}
