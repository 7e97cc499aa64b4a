/**
 * Proves a rendered tool meets its format's rules. Every format: a valid name and description,
 * a root object schema that compiles under Ajv strict mode (2020-12), `additionalProperties:
 * false` on every object, no schema that admits arbitrary values. Then per format: the 2020-12
 * dialect (json_schema); OpenAI strict mode's subset and limits (openai); the member sets of
 * Anthropic and MCP tools. Returns the problems found, empty when the tool is valid.
 */
import { createStrictAjv } from './ajv.js';
import type { StrictAjv } from './ajv.js';
import { splitDiscriminated } from './dispatch.js';
import { isJsonObject, typesOf, walkSchema } from './schema-walk.js';
import type { JsonObject, JsonSchema, JsonValue, ToolFormat } from './types.js';

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MCP_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** OpenAI strict mode: supported keywords, formats and documented size limits. */
const OPENAI = {
  keywords: new Set([
    'type',
    'description',
    'title',
    'properties',
    'required',
    'additionalProperties',
    'items',
    'anyOf',
    'enum',
    'const',
    'pattern',
    'format',
    'multipleOf',
    'maximum',
    'exclusiveMaximum',
    'minimum',
    'exclusiveMinimum',
    'minItems',
    'maxItems',
    '$defs',
    '$ref',
  ]),
  types: new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']),
  formats: new Set([
    'date-time',
    'time',
    'date',
    'duration',
    'email',
    'hostname',
    'ipv4',
    'ipv6',
    'uuid',
  ]),
  maxObjectDepth: 10,
  maxProperties: 5000,
  maxEnumValues: 1000,
  maxStringChars: 120_000,
  largeEnum: 250,
  maxLargeEnumChars: 15_000,
};

let sharedAjv: StrictAjv | undefined;

export function checkToolFormat(format: ToolFormat, tool: unknown): string[] {
  if (!isJsonObject(tool as JsonValue)) return ['tool: expected an object'];
  const t = tool as JsonObject;
  switch (format) {
    case 'json_schema': {
      const problems = [
        ...members(t, ['name', 'description', 'inputSchema'], []),
        ...common(t.name, t.description, t.inputSchema, 'inputSchema', FUNCTION_NAME),
      ];
      if (isJsonObject(t.inputSchema) && t.inputSchema.$schema !== DIALECT) {
        problems.push(`inputSchema.$schema: expected "${DIALECT}"`);
      }
      return problems;
    }
    case 'openai': {
      const fn = t.function;
      if (t.type !== 'function' || !isJsonObject(fn))
        return ['expected { type: "function", function: {...} }'];
      const problems = [
        ...members(t, ['type', 'function'], []),
        ...members(fn, ['name', 'description', 'parameters', 'strict'], [], 'function.'),
        ...common(fn.name, fn.description, fn.parameters, 'function.parameters', FUNCTION_NAME),
      ];
      if (fn.strict !== true) problems.push('function.strict: expected true');
      if (isJsonObject(fn.parameters)) problems.push(...openAIStrict(fn.parameters));
      return problems;
    }
    case 'anthropic':
      return [
        ...members(t, ['name', 'description', 'input_schema'], []),
        ...common(t.name, t.description, t.input_schema, 'input_schema', FUNCTION_NAME),
      ];
    case 'mcp': {
      const problems = [
        ...members(
          t,
          ['name', 'inputSchema'],
          ['title', 'description', 'outputSchema', 'annotations', '_meta'],
        ),
        ...common(t.name, t.description, t.inputSchema, 'inputSchema', MCP_NAME),
      ];
      if (t.annotations !== undefined) problems.push(...mcpAnnotations(t.annotations));
      return problems;
    }
  }
}

function members(obj: JsonObject, required: string[], optional: string[], prefix = ''): string[] {
  const problems = required.filter((key) => !(key in obj)).map((key) => `${prefix}${key}: missing`);
  const known = new Set([...required, ...optional]);
  for (const key of Object.keys(obj)) {
    if (!known.has(key)) problems.push(`${prefix}${key}: not a member of this format`);
  }
  return problems;
}

function common(
  name: JsonValue | undefined,
  description: JsonValue | undefined,
  schema: JsonValue | undefined,
  path: string,
  namePattern: RegExp,
): string[] {
  const problems: string[] = [];
  if (typeof name !== 'string' || !namePattern.test(name)) {
    problems.push(`name: expected to match ${namePattern.source}; found ${JSON.stringify(name)}`);
  }
  if (typeof description !== 'string' || description.trim() === '') {
    problems.push('description: expected a non-empty string');
  }
  if (!isJsonObject(schema)) return [...problems, `${path}: expected a schema object`];
  if (schema.type !== 'object') problems.push(`${path}.type: expected "object" at the root`);
  for (const { schema: node, path: at } of walkSchema(schema, path)) {
    const types = typesOf(node);
    const constrained = types.length > 0 || 'anyOf' in node || 'const' in node || 'enum' in node;
    if (!constrained) problems.push(`${at}: admits any value (no type, anyOf, const or enum)`);
    if (types.includes('object')) {
      if (node.additionalProperties !== false)
        problems.push(`${at}: expected additionalProperties: false`);
      if (!isJsonObject(node.properties))
        problems.push(`${at}: object without declared properties`);
      if ('patternProperties' in node)
        problems.push(`${at}: patternProperties admit free-form keys`);
    }
    if (types.includes('array') && !isJsonObject(node.items))
      problems.push(`${at}: array without items schema`);
  }
  const compileProblem = compileStrict(schema);
  if (compileProblem !== undefined)
    problems.push(`${path}: does not compile under Ajv strict mode: ${compileProblem}`);
  return problems;
}

/** Compiles the schema as the validator does (root, then the dispatched branches); the first error. */
function compileStrict(schema: JsonSchema): string | undefined {
  const ajv = (sharedAjv ??= createStrictAjv());
  const { root, anyOfs } = splitDiscriminated(schema);
  // Branches differing only in const/enum values compile alike: one of each shape is enough.
  const shapes = new Map<string, JsonSchema>();
  for (const branch of anyOfs.flatMap((anyOf) => anyOf.branches)) {
    const shape = JSON.stringify(branch, (key, value: unknown) =>
      key === 'const' || key === 'enum' ? '_' : value,
    );
    if (!shapes.has(shape)) shapes.set(shape, branch);
  }
  for (const part of [root, ...shapes.values()]) {
    try {
      ajv.compile(part);
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    } finally {
      ajv.removeSchema(part);
    }
  }
  return undefined;
}

function openAIStrict(root: JsonSchema): string[] {
  const problems: string[] = [];
  if ('anyOf' in root) problems.push('function.parameters: anyOf is not allowed at the root');
  let properties = 0;
  let enumValues = 0;
  let stringChars = 0;
  for (const { schema, path, objectDepth } of walkSchema(root, 'function.parameters')) {
    for (const key of Object.keys(schema)) {
      if (!OPENAI.keywords.has(key))
        problems.push(`${path}: keyword "${key}" is not supported in strict mode`);
    }
    if (!('type' in schema) && !('anyOf' in schema))
      problems.push(`${path}: every schema needs a type (or anyOf)`);
    for (const type of typesOf(schema)) {
      if (!OPENAI.types.has(type)) problems.push(`${path}: type "${type}" is not supported`);
    }
    if (typeof schema.format === 'string' && !OPENAI.formats.has(schema.format)) {
      problems.push(`${path}: format "${schema.format}" is not supported`);
    }
    if (objectDepth > OPENAI.maxObjectDepth)
      problems.push(`${path}: objects nested deeper than ${OPENAI.maxObjectDepth}`);
    if (isJsonObject(schema.properties)) {
      const keys = Object.keys(schema.properties);
      properties += keys.length;
      stringChars += keys.reduce((n, k) => n + k.length, 0);
      const required = Array.isArray(schema.required) ? schema.required : [];
      const missing = keys.filter((k) => !required.includes(k));
      if (missing.length > 0)
        problems.push(`${path}: every property must be required; missing ${missing.join(', ')}`);
    }
    if (Array.isArray(schema.enum)) {
      enumValues += schema.enum.length;
      const chars = schema.enum.reduce<number>(
        (n, v) => n + (typeof v === 'string' ? v.length : 0),
        0,
      );
      stringChars += chars;
      if (schema.enum.length > OPENAI.largeEnum && chars > OPENAI.maxLargeEnumChars) {
        problems.push(
          `${path}: enum of ${schema.enum.length} values exceeds ${OPENAI.maxLargeEnumChars} characters`,
        );
      }
    }
    if (typeof schema.const === 'string') stringChars += schema.const.length;
  }
  if (properties > OPENAI.maxProperties)
    problems.push(`function.parameters: ${properties} properties exceed ${OPENAI.maxProperties}`);
  if (enumValues > OPENAI.maxEnumValues)
    problems.push(`function.parameters: ${enumValues} enum values exceed ${OPENAI.maxEnumValues}`);
  if (stringChars > OPENAI.maxStringChars)
    problems.push(
      `function.parameters: ${stringChars} characters of names and values exceed ${OPENAI.maxStringChars}`,
    );
  return problems;
}

function mcpAnnotations(annotations: JsonValue): string[] {
  if (!isJsonObject(annotations)) return ['annotations: expected an object'];
  const hints = new Set(['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']);
  const problems: string[] = [];
  for (const [key, value] of Object.entries(annotations)) {
    if (key === 'title') {
      if (typeof value !== 'string') problems.push('annotations.title: expected a string');
    } else if (!hints.has(key)) {
      problems.push(`annotations.${key}: not an MCP tool annotation`);
    } else if (typeof value !== 'boolean') {
      problems.push(`annotations.${key}: expected a boolean`);
    }
  }
  return problems;
}
