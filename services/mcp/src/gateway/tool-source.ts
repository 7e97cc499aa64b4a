/**
 * The gateway's side of the data plane: listing a principal's tools at the synthesizer and
 * calling them at the executor over NATS, with the short-lived token minted for that principal.
 * Replies are read into plain values the MCP mapping works on.
 */
import { create, fromBinary, toBinary, toJson } from '@bufbuild/protobuf';
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';

import { ValueSchema } from '@bufbuild/protobuf/wkt';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  CallMetaSchema,
  CallRequestSchema,
  CallResultSchema,
  CallStatus,
} from '@tollgate/contracts/call/v1';
import type { CallResult } from '@tollgate/contracts/call/v1';
import { ErrorCategory, ErrorCode } from '@tollgate/contracts/common/v1';
import {
  ListToolsRequestSchema,
  ListToolsResponseSchema,
} from '@tollgate/contracts/synthesizer/v1';
import { ToolFormat } from '@tollgate/contracts/tools/v1';
import type { ToolDefinition } from '@tollgate/contracts/tools/v1';
import { ErrorCodes, TollgateError } from '@tollgate/core';
import type { ErrorCode as CoreCode } from '@tollgate/core';
import { ERROR_HEADER, request, subjects } from '@tollgate/kit';

/** A tool as the gateway offers it: the synthesizer's definition, schema untouched. */
export interface GatewayTool {
  name: string;
  description: string;
  version: string;
  /** The operation name (`search`, `write`, …). */
  operation: string;
  /** What the operation does to data, as its kind declared it (absent from older synthesizers). */
  operationClass?: 'read' | 'write' | 'destructive';
  resource: string;
  inputSchema: JsonObject;
  callSubject: string;
}

/** One error as the executor reported it. */
export interface CallError {
  code: string;
  category: string;
  message: string;
  details: Array<{ path: string; message: string; expected?: string; found?: string }>;
}

/** A call's outcome, read from the executor's CallResult. */
export interface CallOutcome {
  status: 'ok' | 'error' | 'pending_approval' | 'accepted';
  callId: string;
  data?: JsonValue;
  error?: CallError;
  meta?: JsonObject;
  approvalId?: string;
  taskId?: string;
}

export interface ListQuery {
  task?: string;
  topK?: number;
  sessionId?: string;
}

export interface CallInput {
  tool: GatewayTool;
  args: JsonObject;
  callId: string;
  sessionId: string;
  idempotencyKey: string;
  timeoutMs: number;
}

/** Where tools come from and calls go; the bus in production and in tests alike. */
export interface ToolSource {
  list(token: string, query: ListQuery): Promise<GatewayTool[]>;
  call(token: string, input: CallInput): Promise<CallOutcome>;
  /** The stored outcome of a parked or accepted call of the token's principal. */
  status(token: string, callId: string): Promise<CallOutcome>;
}

const LIST_TIMEOUT_MS = 10_000;

export class BusToolSource implements ToolSource {
  readonly #nc: NatsConnection;

  constructor(nc: NatsConnection) {
    this.#nc = nc;
  }

  async list(token: string, query: ListQuery): Promise<GatewayTool[]> {
    const body = create(ListToolsRequestSchema, {
      task: query.task ?? '',
      topK: query.topK ?? 0,
      sessionId: query.sessionId ?? '',
      format: ToolFormat.JSON_SCHEMA,
    });
    const reply = await this.#request(
      subjects.service('synthesizer', 'list_tools'),
      toBinary(ListToolsRequestSchema, body),
      token,
      LIST_TIMEOUT_MS,
    );
    return fromBinary(ListToolsResponseSchema, reply).tools.map(gatewayTool);
  }

  async call(token: string, input: CallInput): Promise<CallOutcome> {
    const body = create(CallRequestSchema, {
      callId: input.callId,
      tool: input.tool.name,
      arguments: input.args,
      sessionId: input.sessionId,
      idempotencyKey: input.idempotencyKey,
      timeoutMs: input.timeoutMs,
      toolVersion: input.tool.version,
    });
    const reply = await this.#request(
      input.tool.callSubject,
      toBinary(CallRequestSchema, body),
      token,
      // The executor answers within the budget (it keeps a reserve for replying): silence
      // past it means the executor is gone, not a slow upstream.
      input.timeoutMs,
    );
    return outcomeOf(fromBinary(CallResultSchema, reply));
  }

  async status(token: string, callId: string): Promise<CallOutcome> {
    const body = create(CallRequestSchema, { callId });
    const reply = await this.#request(
      subjects.service('executor', 'call_result'),
      toBinary(CallRequestSchema, body),
      token,
      LIST_TIMEOUT_MS,
    );
    return outcomeOf(fromBinary(CallResultSchema, reply));
  }

  async #request(subject: string, data: Uint8Array, token: string, timeoutMs: number) {
    let reply;
    try {
      reply = await request(this.#nc, subject, data, {
        timeoutMs,
        headers: { authorization: `Bearer ${token}` },
      });
    } catch (err) {
      const nobody = (err as { code?: string }).code === '503';
      throw new TollgateError(
        'SERVICE_UNAVAILABLE',
        `Tollgate ${nobody ? 'has no service running for' : 'did not answer on'} ${subject.replace(/^tollgate\.v1\./, '')}; try again shortly.`,
        { cause: err },
      );
    }
    const failure = reply.headers?.get(ERROR_HEADER);
    if (failure) throw errorFromHeader(failure);
    return reply.data;
  }
}

function gatewayTool(tool: ToolDefinition): GatewayTool {
  return {
    name: tool.name,
    description: tool.description,
    version: tool.version,
    operation: tool.operation,
    resource: tool.resource,
    inputSchema: tool.inputSchema ?? {},
    callSubject: tool.callSubject,
    ...(isOperationClass(tool.operationClass) ? { operationClass: tool.operationClass } : {}),
  };
}

const STATUS: Record<number, CallOutcome['status']> = {
  [CallStatus.OK]: 'ok',
  [CallStatus.ERROR]: 'error',
  [CallStatus.PENDING_APPROVAL]: 'pending_approval',
  [CallStatus.ACCEPTED]: 'accepted',
};

/** A CallResult as plain values (enums by name, meta as JSON). */
export function outcomeOf(result: CallResult): CallOutcome {
  const status = STATUS[result.status];
  if (status === undefined)
    throw new TollgateError('INTERNAL', 'The executor answered with an unknown status.');
  const outcome: CallOutcome = { status, callId: result.callId };
  if (result.data !== undefined) outcome.data = toJson(ValueSchema, result.data);
  if (result.error !== undefined) {
    outcome.error = {
      code: ErrorCode[result.error.code] ?? 'INTERNAL',
      category: (ErrorCategory[result.error.category] ?? 'INTERNAL').toLowerCase(),
      message: result.error.message,
      details: result.error.details.map((d) => ({
        path: d.path,
        message: d.message,
        ...(d.expected ? { expected: d.expected } : {}),
        ...(d.found ? { found: d.found } : {}),
      })),
    };
  }
  if (result.meta !== undefined) outcome.meta = toJson(CallMetaSchema, result.meta) as JsonObject;
  if (result.approvalId) outcome.approvalId = result.approvalId;
  if (result.taskId) outcome.taskId = result.taskId;
  return outcome;
}

function errorFromHeader(value: string): TollgateError {
  let parsed: { code?: unknown; message?: unknown; details?: unknown } = {};
  try {
    parsed = JSON.parse(value) as typeof parsed;
  } catch {
    // a bare code or garbage: handled below
  }
  const code: CoreCode =
    typeof parsed.code === 'string' && Object.hasOwn(ErrorCodes, parsed.code)
      ? (parsed.code as CoreCode)
      : 'INTERNAL';
  const message =
    typeof parsed.message === 'string' ? parsed.message : 'Tollgate refused the request.';
  const details = Array.isArray(parsed.details)
    ? (parsed.details as Array<{ path: string; message: string }>).slice(0, 100)
    : [];
  return new TollgateError(code, message, { details });
}

function isOperationClass(value: string): value is 'read' | 'write' | 'destructive' {
  return value === 'read' || value === 'write' || value === 'destructive';
}
