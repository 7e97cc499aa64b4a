/**
 * The session snapshot the agent loop saves after every step: the conversation as the model
 * saw it (tool results already compacted), how many steps the session has taken, and what each
 * tool call was (resource, operation, status, call id: memory learns procedures from them).
 * Read back strictly — a stored document that is not one is an InternalError naming the bad
 * path. Pure.
 */
import type { JsonObject } from '@bufbuild/protobuf';
import { malformed } from '../wire-errors.js';

export const SNAPSHOT_FORMAT = 'tollgate.agent.v1';

/** A function call the model made. */
export interface ConversationToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** One message of the conversation, in the OpenAI chat-completions shape. */
export type ConversationMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ConversationToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** One tool call of the conversation and how it went, in the order the calls were made. */
export interface SnapshotCall {
  /** The `tool_call_id` of its tool message. */
  id: string;
  tool: string;
  /** Of the tool as offered ('' when the model named a tool it was not offered). */
  resource: string;
  operation: string;
  status: 'ok' | 'error' | 'pending_approval' | 'accepted';
  /** Tollgate's call id, when the call reached Tollgate. */
  callId?: string;
}

const CALL_STATUSES: ReadonlyArray<SnapshotCall['status']> = [
  'ok',
  'error',
  'pending_approval',
  'accepted',
];

export interface AgentSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  messages: ConversationMessage[];
  /** Steps (model turns) taken in this session, over all runs. */
  steps: number;
  /** The task of the latest run. */
  task: string;
  /** How the latest run ended so far. */
  status: 'running' | 'answered' | 'step_limit';
  updatedAt: string;
  /** The tool calls of `messages` (absent in snapshots of older SDKs). */
  calls?: SnapshotCall[];
}

/**
 * The conversation cut to `maxBytes` of JSON by dropping the oldest whole turns (a user message
 * and everything after it up to the next one); the system prompt and the latest turn are always
 * kept. The memory service refuses snapshots above its size limit, and the model's context is
 * bounded the same way.
 */
export function trimConversation(
  messages: ConversationMessage[],
  maxBytes: number,
): { messages: ConversationMessage[]; dropped: number } {
  const head = messages[0]?.role === 'system' ? [messages[0]] : [];
  const turns: ConversationMessage[][] = [];
  for (const message of messages.slice(head.length)) {
    if (message.role === 'user' || turns.length === 0) turns.push([message]);
    else turns[turns.length - 1]!.push(message);
  }
  const size = () => Buffer.byteLength(JSON.stringify([...head, ...turns.flat()]), 'utf8');
  let dropped = 0;
  while (turns.length > 1 && size() > maxBytes) dropped += turns.shift()!.length;
  return { messages: [...head, ...turns.flat()], dropped };
}

export function snapshotToJson(snapshot: AgentSnapshot): JsonObject {
  return JSON.parse(JSON.stringify(snapshot)) as JsonObject;
}

export function readSnapshot(sessionId: string, json: JsonObject): AgentSnapshot {
  const fail = (path: string, expected: string) =>
    malformed(
      `session ${sessionId}: the stored snapshot has no valid ${path} (expected ${expected})`,
    );
  if (json.format !== SNAPSHOT_FORMAT) throw fail('format', JSON.stringify(SNAPSHOT_FORMAT));
  if (!Array.isArray(json.messages)) throw fail('messages', 'an array');
  const messages = json.messages.map((m, i) => readMessage(m, `messages[${i}]`, fail));
  const { steps, task, status, updatedAt } = json;
  if (typeof steps !== 'number' || !Number.isInteger(steps) || steps < 0)
    throw fail('steps', 'a count');
  if (typeof task !== 'string') throw fail('task', 'a string');
  if (status !== 'running' && status !== 'answered' && status !== 'step_limit') {
    throw fail('status', 'running | answered | step_limit');
  }
  if (typeof updatedAt !== 'string') throw fail('updatedAt', 'a timestamp');
  const snapshot: AgentSnapshot = {
    format: SNAPSHOT_FORMAT,
    messages,
    steps,
    task,
    status,
    updatedAt,
  };
  if (json.calls === undefined) return snapshot;
  if (!Array.isArray(json.calls)) throw fail('calls', 'an array');
  return { ...snapshot, calls: json.calls.map((c, i) => readCall(c, `calls[${i}]`, fail)) };
}

/**
 * The calls whose tool messages are still in `messages` after trimming. Calls are appended with
 * their tool messages, so they describe the latest ones (ids alone may repeat across turns).
 */
export function callsOf(calls: SnapshotCall[], messages: ConversationMessage[]): SnapshotCall[] {
  const answered = messages.filter((m) => m.role === 'tool').length;
  return calls.slice(Math.max(0, calls.length - answered));
}

type Fail = (path: string, expected: string) => Error;

function readMessage(value: unknown, path: string, fail: Fail): ConversationMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw fail(path, 'a message object');
  const m = value as Record<string, unknown>;
  switch (m.role) {
    case 'system':
    case 'user':
      if (typeof m.content !== 'string') throw fail(`${path}.content`, 'a string');
      return { role: m.role, content: m.content };
    case 'assistant': {
      if (m.content !== null && typeof m.content !== 'string')
        throw fail(`${path}.content`, 'a string or null');
      if (m.tool_calls === undefined) return { role: 'assistant', content: m.content };
      if (!Array.isArray(m.tool_calls)) throw fail(`${path}.tool_calls`, 'an array');
      const calls = m.tool_calls.map((c, i) => readToolCall(c, `${path}.tool_calls[${i}]`, fail));
      return { role: 'assistant', content: m.content, tool_calls: calls };
    }
    case 'tool':
      if (typeof m.tool_call_id !== 'string') throw fail(`${path}.tool_call_id`, 'a string');
      if (typeof m.content !== 'string') throw fail(`${path}.content`, 'a string');
      return { role: 'tool', tool_call_id: m.tool_call_id, content: m.content };
    default:
      throw fail(`${path}.role`, 'system | user | assistant | tool');
  }
}

function readCall(value: unknown, path: string, fail: Fail): SnapshotCall {
  const c = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  for (const key of ['id', 'tool', 'resource', 'operation'] as const) {
    if (typeof c[key] !== 'string') throw fail(`${path}.${key}`, 'a string');
  }
  if (!CALL_STATUSES.includes(c.status as SnapshotCall['status'])) {
    throw fail(`${path}.status`, CALL_STATUSES.join(' | '));
  }
  if (c.callId !== undefined && typeof c.callId !== 'string') {
    throw fail(`${path}.callId`, 'a string');
  }
  return {
    id: c.id as string,
    tool: c.tool as string,
    resource: c.resource as string,
    operation: c.operation as string,
    status: c.status as SnapshotCall['status'],
    ...(typeof c.callId === 'string' ? { callId: c.callId } : {}),
  };
}

function readToolCall(value: unknown, path: string, fail: Fail): ConversationToolCall {
  const c = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const fn = (typeof c.function === 'object' && c.function !== null ? c.function : {}) as Record<
    string,
    unknown
  >;
  if (typeof c.id !== 'string') throw fail(`${path}.id`, 'a string');
  if (typeof fn.name !== 'string' || typeof fn.arguments !== 'string') {
    throw fail(`${path}.function`, '{ name, arguments } strings');
  }
  return { id: c.id, type: 'function', function: { name: fn.name, arguments: fn.arguments } };
}
