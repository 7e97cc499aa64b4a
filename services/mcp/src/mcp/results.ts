/**
 * A call's outcome as an MCP `tools/call` result: the envelope in `structuredContent`, and the
 * same facts as text for clients that only read text. Errors are `isError` results that tell
 * the model what to do next, by category; a call that waits says so and how to follow it.
 * The executor's caps and truncation notice are kept. Pure.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CallError, CallOutcome } from '../gateway/tool-source.js';
import { CALL_STATUS_TOOL } from './gateway-tools.js';

/** What a model should do after each error category. */
const NEXT_STEP: Record<string, string> = {
  fix_arguments: 'Correct the arguments as described and call again.',
  denied: 'Do not retry: this is not allowed for you. Tell the user if it matters.',
  needs_human: 'A person has to act; tell the user. Retrying will not help.',
  retryable: 'This is temporary: wait a moment and call again with the same arguments.',
  internal: 'Tollgate failed on its side; do not retry now and tell the user.',
};

export function callToolResult(outcome: CallOutcome): CallToolResult {
  switch (outcome.status) {
    case 'ok':
      return {
        content: [{ type: 'text', text: okText(outcome) }],
        structuredContent: envelope(outcome),
      };
    case 'error':
      return errorResult(outcome.error ?? unknownError(), envelope(outcome));
    case 'pending_approval':
      return {
        content: [
          {
            type: 'text',
            text:
              `This call waits for a person's approval (approval ${outcome.approvalId}); nothing has run yet. ` +
              `Tell the user it needs approving. Then call ${CALL_STATUS_TOOL} with ` +
              `{"call_id":"${outcome.callId}"} to get its result; it runs once, when approved.`,
          },
        ],
        structuredContent: envelope(outcome),
      };
    case 'accepted':
      return {
        content: [
          {
            type: 'text',
            text:
              `This call is still running (task ${outcome.taskId ?? outcome.callId}). Call ` +
              `${CALL_STATUS_TOOL} with {"call_id":"${outcome.callId}"} in a little while for its result.`,
          },
        ],
        structuredContent: envelope(outcome),
      };
  }
}

/** An `isError` result for `error`: code, message, every offending path, and what to do. */
export function errorResult(
  error: CallError,
  structured?: Record<string, unknown>,
): CallToolResult {
  const lines = [`${error.code} (${error.category}): ${error.message}`];
  for (const d of error.details.slice(0, 50)) {
    const parts = [d.expected ? `expected ${d.expected}` : '', d.found ? `found ${d.found}` : '']
      .filter(Boolean)
      .join(', ');
    lines.push(`- ${d.path || '(arguments)'}: ${d.message}${parts ? ` (${parts})` : ''}`);
  }
  lines.push(NEXT_STEP[error.category] ?? NEXT_STEP.internal!);
  return {
    isError: true,
    content: [{ type: 'text', text: lines.join('\n') }],
    ...(structured ? { structuredContent: structured } : {}),
  };
}

function okText(outcome: CallOutcome): string {
  const meta = outcome.meta ?? {};
  const text = JSON.stringify({ data: outcome.data ?? null, meta });
  if (meta.truncated !== true) return text;
  const total = typeof meta.total === 'number' ? ` of ${meta.total}` : '';
  const next =
    typeof meta.nextCursor === 'string' && meta.nextCursor
      ? ` Pass "cursor": "${meta.nextCursor}" for the next page.`
      : ' Narrow the filters or ask for fewer fields to see the rest.';
  return `${text}\nThe result was cut to fit the limits: ${meta.returned ?? 0}${total} items returned.${next}`;
}

function envelope(outcome: CallOutcome): Record<string, unknown> {
  return {
    status: outcome.status,
    callId: outcome.callId,
    ...(outcome.data !== undefined ? { data: outcome.data } : {}),
    ...(outcome.meta !== undefined ? { meta: outcome.meta } : {}),
    ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    ...(outcome.approvalId ? { approvalId: outcome.approvalId } : {}),
    ...(outcome.taskId ? { taskId: outcome.taskId } : {}),
  };
}

function unknownError(): CallError {
  return {
    code: 'INTERNAL',
    category: 'internal',
    message: 'The call failed without a reason.',
    details: [],
  };
}
