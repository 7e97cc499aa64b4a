/**
 * Running one function call the model made: only offered tools, arguments parsed as a JSON
 * object, the call through Tollgate, and the outcome rendered for the model — every failure
 * the model can act on becomes a tool message, never an exception.
 */
import type { JsonObject } from '@bufbuild/protobuf';
import type { ErrorCategory, ErrorCode } from '@tollgate/core';
import { isToolCallError, toolCallError } from '../errors.js';
import type { ToolCallError } from '../errors.js';
import type { TollgateClient } from '../client.js';
import type { CallMeta, CallOutcome } from '../result.js';
import type { Tool } from '../tools.js';
import type { CompactionLimits } from './compact.js';
import type { ConversationToolCall } from './snapshot.js';
import { errorMessage, toolMessageContent } from './tool-message.js';

/** What the agent loop needs of the client: listing and calling tools. */
export type AgentTools = Pick<TollgateClient, 'listTools' | 'call'>;

/** One tool call the model made in a step, and how it went. */
export interface AgentToolCall {
  id: string;
  tool: string;
  /** Parsed arguments, or the raw text when it was not JSON. */
  arguments: JsonObject | string;
  status: CallOutcome['status'];
  callId?: string;
  error?: { code: ErrorCode; category: ErrorCategory; message: string };
  meta?: CallMeta;
  /** A recalled skill's call: the governed calls its steps made, in order. */
  skillSteps?: AgentToolCall[];
}

/** How tool calls of one run are made. */
export interface ToolCallContext {
  client: AgentTools;
  offered: Map<string, Tool>;
  sessionId: string;
  compaction?: Partial<CompactionLimits>;
  completionWaitMs?: number;
}

/** Runs one call; `content` is the tool message for the model. */
export async function runToolCall(
  call: ConversationToolCall,
  context: ToolCallContext,
  idempotencyKey: string,
): Promise<{ content: string; record: AgentToolCall }> {
  const { offered } = context;
  const name = call.function.name;
  const tool = offered.get(name);
  const args = parseArguments(call.function.arguments);
  const base = { id: call.id, tool: name, arguments: args };
  const failed = (error: ToolCallError) => ({
    content: JSON.stringify(errorMessage(error)),
    record: {
      ...base,
      status: 'error' as const,
      error: { code: error.code, category: error.category, message: error.message },
    },
  });
  if (tool === undefined) {
    return failed(
      toolCallError({
        code: 'UNKNOWN_TOOL',
        message: `there is no tool named ${JSON.stringify(name)}; use one of: ${[...offered.keys()].join(', ') || '(none)'}`,
      }),
    );
  }
  if (typeof args === 'string') {
    return failed(
      toolCallError({
        code: 'ARGUMENTS_INVALID',
        message: 'the arguments are not a JSON object',
        details: [
          {
            path: '',
            message: 'arguments must be a JSON object',
            expected: 'object',
            found: args.slice(0, 200),
          },
        ],
      }),
    );
  }
  let outcome: CallOutcome;
  try {
    outcome = await context.client.call(tool, args, {
      sessionId: context.sessionId,
      ...(tool.operation === 'write' ? { idempotencyKey } : {}),
    });
    if (
      (outcome.status === 'pending_approval' || outcome.status === 'accepted') &&
      context.completionWaitMs
    ) {
      outcome = await outcome.wait({ timeoutMs: context.completionWaitMs });
    }
  } catch (err) {
    if (!isToolCallError(err)) throw err;
    return failed(err);
  }
  const record: AgentToolCall = { ...base, status: outcome.status, callId: outcome.callId };
  if (outcome.meta) record.meta = outcome.meta;
  if (outcome.status === 'error') {
    record.error = {
      code: outcome.error.code,
      category: outcome.error.category,
      message: outcome.error.message,
    };
  }
  return { content: toolMessageContent(outcome, context.compaction), record };
}

function parseArguments(text: string): JsonObject | string {
  try {
    const parsed: unknown = JSON.parse(text === '' ? '{}' : text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as JsonObject)
      : text;
  } catch {
    return text;
  }
}
