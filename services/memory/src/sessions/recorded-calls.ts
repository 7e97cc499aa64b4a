/**
 * The tool calls a session snapshot records, in order, with how each went. Memory stores
 * snapshots as opaque JSON; the SDK's agent loop writes them in the `tollgate.agent.v1` format:
 * the conversation in the chat-completions shape (assistant `tool_calls` with arguments as JSON
 * text, then one `tool` message per call whose content is JSON with a `status` and, when ok, the
 * compacted `data`), and — from newer SDKs — `calls`, one entry per call with its resource,
 * operation, status and Tollgate call id. Read tolerantly: what cannot be read is reported, not
 * guessed. Pure.
 */
import type { JsonObject, JsonValue } from '../types.js';

export const AGENT_SNAPSHOT_FORMAT = 'tollgate.agent.v1';

/** One tool call the model made, as the snapshot records it. */
export interface RecordedCall {
  /** The model's id of the call (`tool_call_id`). */
  toolCallId: string;
  tool: string;
  /** The parsed arguments; undefined when they were not a JSON object (e.g. redacted). */
  arguments: JsonObject | undefined;
  /** True when the call returned a result (`status: ok`). */
  ok: boolean;
  /** The (compacted) result data the model read back, when recorded. */
  result: JsonValue | undefined;
  resource: string | undefined;
  operation: string | undefined;
  /** Tollgate's call id, when recorded. */
  callId: string | undefined;
}

/** The session's request in words and its calls, or why the snapshot cannot be read. */
export type RecordedSession =
  { ok: true; request: string; calls: RecordedCall[] } | { ok: false; reason: string };

const OPERATIONS = ['search', 'get', 'count', 'aggregate', 'write'] as const;

export function readRecordedSession(state: JsonObject): RecordedSession {
  if (state['format'] !== AGENT_SNAPSHOT_FORMAT) {
    return { ok: false, reason: `the state is not a ${AGENT_SNAPSHOT_FORMAT} snapshot` };
  }
  const messages = state['messages'];
  if (!Array.isArray(messages)) return { ok: false, reason: 'the snapshot has no messages' };
  // Models may reuse call ids across turns: a tool message answers a call of the latest
  // assistant turn, the first one with its id not answered yet.
  const made: Array<{ toolCallId: string; tool: string; text: JsonValue | undefined }> = [];
  const outcomes: Array<JsonObject | undefined> = [];
  let turn: number[] = [];
  let request = '';
  for (const message of messages) {
    const m = asObject(message);
    if (m?.['role'] === 'user' && request === '' && typeof m['content'] === 'string') {
      request = m['content'];
    }
    if (m?.['role'] === 'assistant') {
      turn = [];
      for (const raw of Array.isArray(m['tool_calls']) ? m['tool_calls'] : []) {
        const call = asObject(raw);
        const fn = asObject(call?.['function']);
        const toolCallId = call?.['id'];
        const tool = fn?.['name'];
        if (typeof toolCallId !== 'string' || typeof tool !== 'string') continue;
        turn.push(made.length);
        made.push({ toolCallId, tool, text: fn?.['arguments'] });
        outcomes.push(undefined);
      }
    } else if (m?.['role'] === 'tool' && typeof m['tool_call_id'] === 'string') {
      const index = turn.find(
        (i) => made[i]?.toolCallId === m['tool_call_id'] && outcomes[i] === undefined,
      );
      const content = typeof m['content'] === 'string' ? parseObject(m['content']) : undefined;
      if (index !== undefined) outcomes[index] = content ?? {};
    }
  }
  const entries = callEntries(state['calls'], made);
  const calls = made.map(({ toolCallId, tool, text }, i): RecordedCall => {
    const outcome = outcomes[i];
    const entry = entries[i];
    const named = resourceOf(tool);
    return {
      toolCallId,
      tool,
      arguments: typeof text === 'string' ? parseObject(text === '' ? '{}' : text) : undefined,
      ok: (entry?.status ?? outcome?.['status']) === 'ok',
      result: outcome?.['status'] === 'ok' ? outcome['data'] : undefined,
      resource: entry?.resource ?? named?.resource,
      operation: entry?.operation ?? named?.operation,
      callId: entry?.callId,
    };
  });
  if (request === '' && typeof state['task'] === 'string') request = state['task'];
  return { ok: true, request, calls };
}

interface CallEntry {
  status: string | undefined;
  resource: string | undefined;
  operation: string | undefined;
  callId: string | undefined;
}

/**
 * The snapshot's `calls` (absent in older snapshots), aligned with the calls the messages
 * made: the SDK appends one entry per call, so they describe the latest calls, in order. When
 * their ids do not line up they are not used.
 */
function callEntries(
  value: JsonValue | undefined,
  made: ReadonlyArray<{ toolCallId: string }>,
): Array<CallEntry | undefined> {
  if (!Array.isArray(value) || value.length > made.length) return [];
  const text = (v: JsonValue | undefined) => (typeof v === 'string' && v !== '' ? v : undefined);
  const offset = made.length - value.length;
  const entries: Array<CallEntry | undefined> = new Array<undefined>(offset).fill(undefined);
  for (const [i, raw] of value.entries()) {
    const e = asObject(raw);
    if (e === undefined || text(e['id']) !== made[offset + i]?.toolCallId) return [];
    entries.push({
      status: text(e['status']),
      resource: text(e['resource']),
      operation: text(e['operation']),
      callId: text(e['callId']),
    });
  }
  return entries;
}

/**
 * Resource and operation from a synthesized tool name, `<resource>_<operation>`. A name cut to
 * fit 64 characters (`<cut>_<8 hex>_<operation>`) does not say its resource.
 */
export function resourceOf(tool: string): { resource: string; operation: string } | undefined {
  const match = /^([a-z][a-z0-9_]*)_([a-z]+)$/.exec(tool);
  const operation = match?.[2] ?? '';
  if (match === null || !(OPERATIONS as readonly string[]).includes(operation)) return undefined;
  const resource = match[1] ?? '';
  if (tool.length === 64 && /_[0-9a-f]{8}$/.test(resource)) return undefined;
  return { resource, operation };
}

function asObject(value: JsonValue | undefined): JsonObject | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

function parseObject(text: string): JsonObject | undefined {
  try {
    return asObject(JSON.parse(text) as JsonValue);
  } catch {
    return undefined;
  }
}
