import type { JsonObject } from '@bufbuild/protobuf';
import type { ToolDefinition } from '@tollgate/contracts/tools/v1';
import { isCallSubject } from '@tollgate/contracts/bus';
import { formatName } from './protocol.js';
import type { ToolFormatName } from './protocol.js';
import { malformed } from './wire-errors.js';

/**
 * A tool as the synthesizer handed it out: a projection of one resource version and this
 * principal's permissions. `rendering` is ready to give to the LLM API of `format`.
 */
export interface Tool {
  /** e.g. `es_orders_search`. */
  name: string;
  description: string;
  /** Content hash; the executor validates calls against this exact version. */
  version: string;
  resource: string;
  resourceVersion: number;
  resourceKind: string;
  /** `search`, `get`, `count`, `aggregate`, `write`, … */
  operation: string;
  /** JSON Schema of the arguments. */
  inputSchema: JsonObject;
  format: ToolFormatName;
  rendering: JsonObject;
  /** Where calls go: `tollgate.v1.call.<kind>.<resource>`. */
  callSubject: string;
  /**
   * Set when the tool is one of the principal's approved saved queries (`sq_<name>`): it runs
   * as `baseTool` with the rest of its arguments fixed.
   */
  savedQuery?: { id: string; name: string; revision: number; baseTool: string };
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,128}$/;

/** Validates one ToolDefinition from the synthesizer; throws InternalError naming what is wrong. */
export function readTool(def: ToolDefinition): Tool {
  if (!TOOL_NAME.test(def.name)) {
    throw malformed(`the synthesizer sent a tool with an invalid name ${JSON.stringify(def.name)}`);
  }
  if (!isCallSubject(def.callSubject)) {
    throw malformed(
      `tool ${def.name}: call_subject ${JSON.stringify(def.callSubject)} is not tollgate.v1.call.<kind>.<resource>`,
    );
  }
  return {
    name: def.name,
    description: def.description,
    version: def.version,
    resource: def.resource,
    resourceVersion: def.resourceVersion,
    resourceKind: def.resourceKind,
    operation: def.operation,
    inputSchema: def.inputSchema ?? {},
    format: formatName(def.format),
    rendering: def.rendering ?? {},
    callSubject: def.callSubject,
    ...(def.savedQuery !== undefined
      ? {
          savedQuery: {
            id: def.savedQuery.id,
            name: def.savedQuery.name,
            revision: def.savedQuery.revision,
            baseTool: def.savedQuery.baseTool,
          },
        }
      : {}),
  };
}
