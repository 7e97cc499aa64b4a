/**
 * Preferred fields as the default projection: a search or get that names no `fields` (or
 * `null`) returns the fields its owner usually asks of that tool — the user's own preference,
 * else the agent's — limited to what this principal's tool may return. The synthesizer
 * describes the same default in the tool it offers (core's `annotateDefaultFields`).
 */
import { defaultFieldsFor, withDefaultFields } from '@tollgate/core';
import type { Operation, Principal, ToolDefinition } from '@tollgate/core';
import type { MemoryProjection } from '@tollgate/kit';

const PROJECTING: ReadonlySet<Operation> = new Set(['search', 'get']);

/** Validated arguments with the defaulted fields, and which fields were defaulted (none: []). */
export function applyDefaultFields(
  memory: MemoryProjection,
  principal: Principal,
  operation: Operation,
  tool: ToolDefinition,
  args: Record<string, unknown>,
): { args: Record<string, unknown>; defaulted: string[] } {
  if (!PROJECTING.has(operation) || args['fields'] !== undefined) return { args, defaulted: [] };
  const fields = defaultFieldsFor(tool, memory.preferredFields(principal, tool.name));
  return { args: withDefaultFields(args, fields), defaulted: fields };
}
