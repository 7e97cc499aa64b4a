/**
 * What the model reads back after a tool call: the outcome as compact JSON, with a plain
 * instruction per error category (fix the arguments, retry once, stop and tell the user). Pure.
 */
import type { JsonObject } from '@bufbuild/protobuf';
import type { ErrorCategory } from '@tollgate/core';
import type { ToolCallError } from '../errors.js';
import type { CallOutcome } from '../result.js';
import { compactResult } from './compact.js';
import type { CompactionLimits } from './compact.js';

const whatToDo: Record<ErrorCategory, string> = {
  fix_arguments: 'Correct the arguments at the paths in `details` and call the tool again.',
  retryable:
    'A temporary failure: you may call the tool again once; if it fails again, tell the user.',
  denied: 'Not permitted. Do not retry; tell the user what you could not do.',
  needs_human: 'A person must act. Do not retry; tell the user.',
  internal: 'Tollgate failed internally. Do not retry; tell the user.',
};

export function errorMessage(error: ToolCallError): JsonObject {
  return {
    status: 'error',
    code: error.code,
    category: error.category,
    message: error.message,
    details: error.details.map((d) => ({ ...d })),
    what_to_do: whatToDo[error.category],
  };
}

/** The tool message content for an outcome (JSON text). */
export function toolMessageContent(
  outcome: CallOutcome,
  limits?: Partial<CompactionLimits>,
): string {
  return JSON.stringify(toolMessageBody(outcome, limits));
}

export function toolMessageBody(
  outcome: CallOutcome,
  limits?: Partial<CompactionLimits>,
): JsonObject {
  switch (outcome.status) {
    case 'ok': {
      const compacted = compactResult(outcome.data, outcome.meta, limits);
      return {
        status: 'ok',
        ...(outcome.meta ? { returned: outcome.meta.returned } : {}),
        ...(outcome.meta?.total !== undefined ? { total: outcome.meta.total } : {}),
        ...(outcome.meta?.nextCursor ? { next_cursor: outcome.meta.nextCursor } : {}),
        data: compacted.data,
        ...(compacted.notes.length > 0 ? { notes: compacted.notes } : {}),
      };
    }
    case 'error':
      return errorMessage(outcome.error);
    case 'pending_approval':
      return {
        status: 'pending_approval',
        approval_id: outcome.approvalId,
        what_to_do:
          'A person must approve this call first. Do not call it again; tell the user it awaits approval.',
      };
    case 'accepted':
      return {
        status: 'accepted',
        task_id: outcome.taskId,
        what_to_do:
          'The call runs in the background. Do not call it again; tell the user it was started.',
      };
  }
}
