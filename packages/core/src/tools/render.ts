/**
 * Renders a synthesized tool for a consumer: plain JSON Schema, OpenAI function tools (strict
 * mode), Anthropic tools and MCP tools. The executor always validates against the tool's own
 * `inputSchema`; renderers only drop keywords a format cannot carry, never add freedom.
 */
import { isJsonObject, mapSchema, typesOf } from './schema-walk.js';
import type { JsonObject, JsonSchema, ToolDefinition, ToolFormat } from './types.js';

/** Plain JSON Schema 2020-12 (`$schema` set). */
export interface JsonSchemaTool extends JsonObject {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/** An OpenAI Chat Completions function tool with `strict: true`. */
export interface OpenAITool extends JsonObject {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema; strict: true };
}

/** An Anthropic Messages API tool. */
export interface AnthropicTool extends JsonObject {
  name: string;
  description: string;
  input_schema: JsonSchema;
}

/** MCP behaviour hints of a tool. */
export interface McpToolAnnotations extends JsonObject {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** An MCP `tools/list` entry. */
export interface McpTool extends JsonObject {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  annotations: McpToolAnnotations;
}

/** The rendered shape of each format. */
export interface RenderedTools {
  json_schema: JsonSchemaTool;
  openai: OpenAITool;
  anthropic: AnthropicTool;
  mcp: McpTool;
}

export const TOOL_FORMATS: readonly ToolFormat[] = ['json_schema', 'openai', 'anthropic', 'mcp'];

/** Keywords OpenAI strict mode rejects; the executor still enforces them. */
const OPENAI_UNSUPPORTED = [
  '$schema',
  'minLength',
  'maxLength',
  'uniqueItems',
  'minProperties',
  'maxProperties',
];

export function renderTool<F extends ToolFormat>(tool: ToolDefinition, format: F): RenderedTools[F];
export function renderTool(tool: ToolDefinition, format: ToolFormat): RenderedTools[ToolFormat] {
  const { name, description, inputSchema } = tool;
  switch (format) {
    case 'json_schema':
      return { name, description, inputSchema };
    case 'openai':
      return {
        type: 'function',
        function: { name, description, parameters: openAISchema(inputSchema), strict: true },
      };
    case 'anthropic':
      return { name, description, input_schema: withoutDialect(inputSchema) };
    case 'mcp': {
      const changes = tool.class !== 'read';
      return {
        name,
        description,
        inputSchema,
        annotations: {
          readOnlyHint: !changes,
          destructiveHint: changes,
          idempotentHint: tool.idempotent,
          openWorldHint: false,
        },
      };
    }
  }
}

/**
 * The strict-mode form: unsupported keywords dropped, every property required, and the ones
 * that were optional made nullable (tools already make them nullable; this keeps it true).
 */
export function openAISchema(schema: JsonSchema): JsonSchema {
  return mapSchema(schema, (node) => {
    const copy: JsonSchema = Object.fromEntries(
      Object.entries(node).filter(([key]) => !OPENAI_UNSUPPORTED.includes(key)),
    );
    const { properties } = copy;
    if (!isJsonObject(properties)) return copy;
    const required = new Set(Array.isArray(copy.required) ? copy.required : []);
    const strict: JsonObject = {};
    for (const [key, child] of Object.entries(properties)) {
      strict[key] = !required.has(key) && isJsonObject(child) ? nullableSchema(child) : child;
    }
    const ordered: JsonSchema = {};
    for (const [key, value] of Object.entries(copy)) {
      if (key === 'required') continue;
      ordered[key] = key === 'properties' ? strict : value;
      if (key === 'properties') ordered.required = Object.keys(strict);
    }
    return ordered;
  });
}

function nullableSchema(schema: JsonSchema): JsonSchema {
  const types = typesOf(schema);
  if (types.includes('null')) return schema;
  if (types.length > 0) return { ...schema, type: [...types, 'null'] };
  if (Array.isArray(schema.anyOf)) {
    const hasNull = schema.anyOf.some(
      (branch) => isJsonObject(branch) && typesOf(branch).includes('null'),
    );
    return hasNull ? schema : { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  }
  return { anyOf: [schema, { type: 'null' }] };
}

function withoutDialect(schema: JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => key !== '$schema'));
}
