/**
 * Tool formats on the wire and the conversion of a synthesized tool into the contract's
 * `ToolDefinition` (rendering, resource kind and call subject included).
 */
import { create } from '@bufbuild/protobuf';
import type { JsonObject } from '@bufbuild/protobuf';
import {
  SavedQueryOriginSchema,
  ToolDefinitionSchema,
  ToolFormat as WireFormat,
} from '@tollgate/contracts/tools/v1';
import type { ToolDefinition as WireTool } from '@tollgate/contracts/tools/v1';
import { TOOL_FORMATS, TollgateError, renderTool } from '@tollgate/core';
import type { SavedQueryToolDefinition, ToolDefinition, ToolFormat } from '@tollgate/core';
import type { CatalogEntry } from '@tollgate/kit';

const BY_WIRE = new Map<number, ToolFormat>([
  [WireFormat.UNSPECIFIED, 'json_schema'],
  [WireFormat.JSON_SCHEMA, 'json_schema'],
  [WireFormat.OPENAI, 'openai'],
  [WireFormat.ANTHROPIC, 'anthropic'],
  [WireFormat.MCP, 'mcp'],
]);

const TO_WIRE: Record<ToolFormat, WireFormat> = {
  json_schema: WireFormat.JSON_SCHEMA,
  openai: WireFormat.OPENAI,
  anthropic: WireFormat.ANTHROPIC,
  mcp: WireFormat.MCP,
};

/** The format a request asks for; unspecified means JSON Schema, anything unknown is refused. */
export function formatOf(value: number, path = 'format'): ToolFormat {
  const format = BY_WIRE.get(value);
  if (format !== undefined) return format;
  const allowed = TOOL_FORMATS.map((f) => `TOOL_FORMAT_${f.toUpperCase()} (${f})`).join(', ');
  throw new TollgateError(
    'INVALID_ARGUMENT',
    `Unknown tool format ${value}; use one of ${allowed}.`,
    {
      details: [
        {
          path,
          message: `unknown tool format ${value}; use one of ${TOOL_FORMATS.join(', ')}`,
          expected: allowed,
          found: String(value),
        },
      ],
    },
  );
}

/**
 * A synthesized tool (or a saved query's narrower tool, origin included) as the contract
 * carries it, rendered for `format`.
 */
export function wireTool(
  tool: ToolDefinition | SavedQueryToolDefinition,
  format: ToolFormat,
  entry: CatalogEntry,
): WireTool {
  const origin = 'savedQuery' in tool ? tool.savedQuery : undefined;
  return create(ToolDefinitionSchema, {
    name: tool.name,
    description: tool.description,
    version: tool.version,
    resource: tool.resource.name,
    resourceVersion: tool.resource.version,
    operation: tool.operation,
    operationClass: tool.class,
    idempotent: tool.idempotent,
    inputSchema: tool.inputSchema as JsonObject,
    format: TO_WIRE[format],
    rendering: renderTool(tool, format) as JsonObject,
    resourceKind: entry.kind,
    callSubject: entry.callSubject,
    ...(origin !== undefined ? { savedQuery: create(SavedQueryOriginSchema, origin) } : {}),
  });
}
