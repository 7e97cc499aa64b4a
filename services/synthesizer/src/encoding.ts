/**
 * Protobuf encoding of tool replies for NATS. A tool's bytes are encoded once and reused: a
 * listing reply is its tools' bytes framed as field 1, which is what encoding the whole
 * `ListToolsResponse` (or `GetToolResponse`) would produce — without re-encoding every schema.
 */
import { toBinary } from '@bufbuild/protobuf';
import { TollgateError } from '@tollgate/core';
import { ToolDefinitionSchema } from '@tollgate/contracts/tools/v1';
import type { ToolDefinition as WireTool } from '@tollgate/contracts/tools/v1';

/** Tag of field 1 with wire type 2 (length-delimited): `tools` / `tool` in the replies. */
const FIELD_1_MESSAGE = 0x0a;

const encoded = new WeakMap<WireTool, Uint8Array>();

/** A `ListToolsResponse` with these tools, or a `GetToolResponse` with the one tool. */
export function encodeTools(tools: readonly WireTool[]): Uint8Array {
  const parts = tools.map(encodedTool);
  let size = 0;
  for (const part of parts) size += 1 + varintLength(part.length) + part.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out[at++] = FIELD_1_MESSAGE;
    at = writeVarint(out, at, part.length);
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Size in bytes of `encodeTools(tools)`, without building it. */
export function encodedSize(tools: readonly WireTool[]): number {
  let size = 0;
  for (const tool of tools) {
    const length = encodedTool(tool).length;
    size += 1 + varintLength(length) + length;
  }
  return size;
}

function encodedTool(tool: WireTool): Uint8Array {
  let bytes = encoded.get(tool);
  if (bytes === undefined) {
    bytes = toBinary(ToolDefinitionSchema, tool);
    encoded.set(tool, bytes);
  }
  return bytes;
}

function varintLength(value: number): number {
  let length = 1;
  while (value > 0x7f) {
    value >>>= 7;
    length++;
  }
  return length;
}

function writeVarint(out: Uint8Array, at: number, value: number): number {
  while (value > 0x7f) {
    out[at++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  out[at++] = value;
  return at;
}

/** The most a reply may carry, and what carries it (for the message). */
export interface ReplyLimit {
  bytes: number;
  what: string;
}

/** Refuses a reply of `size` bytes when it is over `limit`, saying how to ask for less. */
export function checkReplySize(size: number, limit: ReplyLimit): void {
  if (size <= limit.bytes) return;
  throw new TollgateError(
    'INVALID_ARGUMENT',
    `The reply would exceed the ${limit.bytes} bytes ${limit.what} may carry (${size} bytes or more); give a task or a smaller top_k.`,
    {
      details: [
        { path: 'top_k', message: 'too many tools for one reply', found: `${size} bytes or more` },
      ],
    },
  );
}
