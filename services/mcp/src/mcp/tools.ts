/**
 * A principal's synthesized tools in MCP form: the input schema exactly as the synthesizer
 * gave it (the executor validates against that same schema), behaviour hints from the
 * operation's class, and an output schema for the result envelope in `structuredContent`.
 * Pure.
 */
import type { JsonObject } from '@bufbuild/protobuf';
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/server';
import type { GatewayTool } from '../gateway/tool-source.js';

/** What an operation does to its resource, as MCP's hints describe it. */
export type OperationClass = 'read' | 'write' | 'destructive';

const READS = new Set(['search', 'get', 'count', 'aggregate']);
const WRITES = new Set(['write']);

/**
 * The class of an operation: the one its kind declared, carried on the tool. A tool from a
 * synthesizer that does not send it is read by its operation name; an operation name it does
 * not know is taken as destructive (the hint that asks clients for the most care).
 */
export function operationClass(
  tool: Pick<GatewayTool, 'operation'> & Partial<Pick<GatewayTool, 'operationClass'>>,
): OperationClass {
  if (tool.operationClass !== undefined) return tool.operationClass;
  if (READS.has(tool.operation)) return 'read';
  if (WRITES.has(tool.operation)) return 'write';
  return 'destructive';
}

/**
 * MCP hints per class. Writes are idempotent because every write carries an idempotency key
 * (the gateway derives one from the session, tool and arguments when the client gives none),
 * so repeating the same call has no further effect. Tollgate's resources are closed worlds.
 */
export function annotationsFor(
  tool: Pick<GatewayTool, 'operation'> & Partial<Pick<GatewayTool, 'operationClass'>>,
): ToolAnnotations {
  switch (operationClass(tool)) {
    case 'read':
      return {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      };
    case 'write':
      return {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      };
    case 'destructive':
      return {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      };
  }
}

/**
 * The JSON Schema of what a Tollgate call answers in `structuredContent`: kept small, since a
 * client puts it into the model's context once per tool (the text result says the same).
 */
export const RESULT_ENVELOPE_SCHEMA = {
  type: 'object',
  properties: {
    status: { enum: ['ok', 'error', 'pending_approval', 'accepted'] },
    callId: { type: 'string' },
    data: {},
    meta: { type: 'object' },
    error: { type: 'object' },
  },
  required: ['status', 'callId'],
} as const satisfies JsonObject;

/** Whether a tool may be run as an MCP task (calls that can wait for a person or run long). */
export function mayRunAsTask(tool: Pick<GatewayTool, 'operation'>): boolean {
  return operationClass(tool) !== 'read';
}

/** One synthesized tool as a `tools/list` entry. */
export function mcpTool(tool: GatewayTool, options: { tasks: boolean }): Tool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    outputSchema: RESULT_ENVELOPE_SCHEMA as unknown as Tool['outputSchema'],
    annotations: annotationsFor(tool),
    ...(options.tasks && mayRunAsTask(tool) ? { execution: { taskSupport: 'optional' } } : {}),
  };
}
