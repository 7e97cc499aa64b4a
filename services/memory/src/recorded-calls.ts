/**
 * The tool calls a session snapshot records, in order, with how each went. Memory stores
 * snapshots as opaque JSON; the SDK's agent loop writes them in the `tollgate.agent.v1` format:
 * the conversation in the chat-completions shape (assistant `tool_calls` with arguments as JSON
 * text, then one `tool` message per call whose content is JSON with a `status` and, when ok, the
 * compacted `data`), and — from newer SDKs — `calls`, one entry per call with its resource,
 * operation, status and Tollgate call id. Read tolerantly: what cannot be read is reported, not
 * guessed. Pure.
 */
import type { JsonObject, JsonValue } from './types.js';

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
  const entries = callEntries(state['calls']);
  const outcomes = new Map<string, JsonObject>();
  for (const message of messages) {
    const m = asObject(message);
    if (m?.['role'] !== 'tool' || typeof m['tool_call_id'] !== 'string') continue;
    const content = typeof m['content'] === 'string' ? parseObject(m['content']) : undefined;
    if (content !== undefined) outcomes.set(m['tool_call_id'], content);
  }
  const calls: RecordedCall[] = [];
  let request = '';
  for (const message of messages) {
    const m = asObject(message);
    if (m?.['role'] === 'user' && request === '' && typeof m['content'] === 'string') {
      request = m['content'];
    }
    if (m?.['role'] !== 'assistant' || !Array.isArray(m['tool_calls'])) continue;
    for (const raw of m['tool_calls']) {
      const call = asObject(raw);
      const fn = asObject(call?.['function']);
      const toolCallId = call?.['id'];
      const tool = fn?.['name'];
      if (typeof toolCallId !== 'string' || typeof tool !== 'string') continue;
      const text = fn?.['arguments'];
      const outcome = outcomes.get(toolCallId);
      const entry = entries.get(toolCallId);
      const status = entry?.status ?? outcome?.['status'];
      const named = resourceOf(tool);
      calls.push({
        toolCallId,
        tool,
        arguments: typeof text === 'string' ? parseObject(text === '' ? '{}' : text) : undefined,
        ok: status === 'ok',
        result: outcome?.['status'] === 'ok' ? outcome['data'] : undefined,
        resource: entry?.resource ?? named?.resource,
        operation: entry?.operation ?? named?.operation,
        callId: entry?.callId,
      });
    }
  }
  if (request === '' && typeof state['task'] === 'string') request = state['task'];
  return { ok: true, request, calls };
}

interface CallEntry {
  status: string | undefined;
  resource: string | undefined;
  operation: string | undefined;
  callId: string | undefined;
}

/** The snapshot's `calls` (absent in older snapshots), by tool call id. */
function callEntries(value: JsonValue | undefined): Map<string, CallEntry> {
  const entries = new Map<string, CallEntry>();
  if (!Array.isArray(value)) return entries;
  const text = (v: JsonValue | undefined) => (typeof v === 'string' && v !== '' ? v : undefined);
  for (const raw of value) {
    const e = asObject(raw);
    const id = text(e?.['id']);
    if (e === undefined || id === undefined) continue;
    entries.set(id, {
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
