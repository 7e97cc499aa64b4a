/**
 * Pinning: a selected tool's definition (name, title, description, input and output schema,
 * annotations) is hashed at confirmation; the upstream's live definition must hash the same
 * for the tool to be called. Canonical JSON makes the hash independent of key order.
 */
import { canonicalHash } from '@tollgate/core';
import type { McpToolDefinition } from './spec.js';

/** A tool as an upstream lists it (`tools/list`). */
export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** The part of a listed tool that is pinned. */
export function definitionOf(tool: ListedTool): McpToolDefinition {
  return {
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
  };
}

/** sha256 (hex) of a tool's name and definition. */
export function pinOf(name: string, definition: McpToolDefinition): string {
  return canonicalHash({ name, ...definition });
}

/** One difference between a pinned and a live definition, for people. */
export interface DefinitionChange {
  /** `description`, `inputSchema`, … */
  part: string;
  pinned: string;
  live: string;
}

/** What changed between the pinned definition and the live one (empty when they hash the same). */
export function diffDefinitions(
  pinned: McpToolDefinition,
  live: McpToolDefinition | undefined,
): DefinitionChange[] {
  if (live === undefined) return [{ part: 'tool', pinned: 'listed', live: 'no longer listed' }];
  const parts = ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;
  return parts.flatMap((part) => {
    const a = shown(pinned[part]);
    const b = shown(live[part]);
    return a === b ? [] : [{ part, pinned: a, live: b }];
  });
}

function shown(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
}
