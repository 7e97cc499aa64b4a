/**
 * What a principal may do on one resource version: the projection input for tool synthesis
 * and the contract the executor enforces. Produced by the policy engine (or, without one,
 * derived from the resource's `access` block).
 *
 * Optional arguments are nullable as well as omittable (OpenAI strict mode sends every key,
 * `null` for "not given"); validated arguments reach the compiler with every `null` removed.
 */
import type { ResourceDescriptor } from '../descriptor/types.js';
import type { OperationClass } from '../kind/operation.js';

/** An operation's name, as its kind declares it (`search`, `create_ticket`). */
export type Operation = string;

export interface PermissionSet {
  /** Names of the operations the principal may call. */
  operations: Operation[];
  /** Fields the principal may see in results (sorted). */
  visibleFields: string[];
  /** Fields the principal may filter on (sorted). */
  filterableFields: string[];
  /** Upper bound for `limit`. */
  limitCap: number;
  /**
   * Redacted fields this principal sees as stored, because a role it holds is exempt from their
   * rule (sorted; absent when none).
   */
  unredactedFields?: string[];
}

/** Any JSON value; tool schemas and rendered tools are plain JSON. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

export interface JsonObject {
  [key: string]: JsonValue;
}

/** The dialect every tool schema declares. */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** A JSON Schema (draft 2020-12) as a plain JSON object. */
export type JsonSchema = JsonObject;

/** A resource descriptor as the registry stores it: one immutable, numbered version. */
export type VersionedResource = ResourceDescriptor & { version: number };

/**
 * One synthesized tool: a projection of (resource version × permission set), never code.
 * The executor validates calls against exactly this `inputSchema`.
 */
export interface ToolDefinition {
  /** `<resource>_<operation>`, at most 64 characters. */
  name: string;
  /** What the resource holds, when to use the tool and when not to. */
  description: string;
  /** The operation's name. */
  operation: Operation;
  /** What the operation does to data: MCP annotations and approvals follow it. */
  class: OperationClass;
  /** Re-sending cannot do more than sending once: retried on retryable failures. */
  idempotent: boolean;
  resource: { name: string; tenant: string; environment: string; version: number };
  /** JSON Schema 2020-12 for the arguments; `additionalProperties: false` at every level. */
  inputSchema: JsonSchema;
  /** sha256 (hex) over the canonical JSON of every other member: same inputs, same version. */
  version: string;
}

/** The export formats a tool can be rendered in. */
export type ToolFormat = 'json_schema' | 'openai' | 'anthropic' | 'mcp';
