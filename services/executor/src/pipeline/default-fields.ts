/**
 * Preferred fields as the default projection: a search or get that names no `fields` (or
 * `null`) returns the fields its owner usually asks of that tool — the user's own preference,
 * else the agent's — limited to what this principal's tool may return. The synthesizer
 * describes the same default in the tool it offers (core's `annotateDefaultFields`).
 */
import { defaultFieldsFor, withDefaultFields } from '@tollgate/core';
import type { Operation, Principal, ToolDefinition } from '@tollgate/core';
import type { MemoryProjection } from '@tollgate/kit';

/** Validated arguments with the defaulted fields, and which fields were defaulted (none: []). */
export function applyDefaultFields(
  memory: MemoryProjection,
  principal: Principal,
  operation: Operation,
  tool: ToolDefinition,
  args: Record<string, unknown>,
): { args: Record<string, unknown>; defaulted: string[] } {
  if (!takesFields(tool) || args['fields'] !== undefined) return { args, defaulted: [] };
  const fields = defaultFieldsFor(tool, memory.preferredFields(principal, tool.name));
  return { args: withDefaultFields(args, fields), defaulted: fields };
}

/** Tools whose arguments choose the returned fields (`fields`) project; others never default. */
function takesFields(tool: ToolDefinition): boolean {
  const properties = tool.inputSchema.properties;
  return typeof properties === 'object' && properties !== null && 'fields' in properties;
}
