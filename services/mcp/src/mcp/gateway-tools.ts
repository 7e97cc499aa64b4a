/**
 * The gateway's own tools, offered next to the synthesized ones: `tollgate_call_status` (the
 * outcome of a call that waited for approval or ran long) and `tollgate_find_tools` (the tools
 * most relevant to a task, by the synthesizer's recall). Neither reaches a resource.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { RESULT_ENVELOPE_SCHEMA } from './tools.js';

export const CALL_STATUS_TOOL = 'tollgate_call_status';
export const FIND_TOOLS_TOOL = 'tollgate_find_tools';
export const GATEWAY_TOOL_NAMES: ReadonlySet<string> = new Set([CALL_STATUS_TOOL, FIND_TOOLS_TOOL]);

export const MAX_FIND_TOP_K = 20;

const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

export const callStatusTool: Tool = {
  name: CALL_STATUS_TOOL,
  description:
    'The outcome of one of your earlier calls that waited for approval or was still running. ' +
    'Pass the call_id it answered with. Returns the same envelope as the call itself: still ' +
    '"pending_approval"/"accepted" while it waits, else the final result.',
  inputSchema: {
    type: 'object',
    properties: {
      call_id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'The call id.' },
    },
    required: ['call_id'],
    additionalProperties: false,
  },
  outputSchema: RESULT_ENVELOPE_SCHEMA as unknown as Tool['outputSchema'],
  annotations: READ_ONLY,
};

export const findToolsTool: Tool = {
  name: FIND_TOOLS_TOOL,
  description:
    'Which of your tools fit a task best: describe what you are about to do and get the ' +
    'names and descriptions of the most relevant tools, best first. Use it when you have ' +
    'many tools and are unsure which one to call.',
  inputSchema: {
    type: 'object',
    properties: {
      task: {
        type: 'string',
        minLength: 1,
        maxLength: 4000,
        description: 'What you are about to do.',
      },
      top_k: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_FIND_TOP_K,
        description: 'How many resources to consider (default 5).',
      },
    },
    required: ['task'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      tools: {
        type: 'array',
        items: {
          type: 'object',
          properties: { name: { type: 'string' }, description: { type: 'string' } },
          required: ['name', 'description'],
        },
      },
    },
    required: ['tools'],
  },
  annotations: READ_ONLY,
};

/** What a gateway tool's arguments failed on, or the parsed arguments. */
export function callStatusArgs(args: Record<string, unknown>): { callId: string } | string {
  const extra = Object.keys(args).filter((k) => k !== 'call_id');
  if (extra.length > 0)
    return `unknown argument ${JSON.stringify(extra[0])}; only call_id is accepted`;
  const id = args.call_id;
  if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(id))
    return 'call_id: expected the call id a call answered with (letters, digits, "-", "_"; at most 64)';
  return { callId: id };
}

export function findToolsArgs(
  args: Record<string, unknown>,
): { task: string; topK: number } | string {
  const extra = Object.keys(args).filter((k) => k !== 'task' && k !== 'top_k');
  if (extra.length > 0)
    return `unknown argument ${JSON.stringify(extra[0])}; only task and top_k are accepted`;
  const { task, top_k: topK } = args;
  if (typeof task !== 'string' || task.trim() === '' || task.length > 4000)
    return 'task: expected a description of what you are about to do (1..4000 characters)';
  if (
    topK !== undefined &&
    (!Number.isInteger(topK) || (topK as number) < 1 || (topK as number) > MAX_FIND_TOP_K)
  )
    return `top_k: expected an integer between 1 and ${MAX_FIND_TOP_K}`;
  return { task, topK: (topK as number | undefined) ?? 5 };
}
