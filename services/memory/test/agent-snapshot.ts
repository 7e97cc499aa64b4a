/**
 * Session states as the SDK's agent loop writes them (`tollgate.agent.v1`): a request, then one
 * assistant tool call per turn followed by its tool message, then the final answer.
 */
import type { JsonObject, JsonValue } from '../src/types.js';

export interface Turn {
  tool: string;
  /** An object, or raw text standing for arguments (e.g. what redaction left). */
  args: JsonObject | string;
  status?: 'ok' | 'error';
  data?: JsonValue;
}

export function agentSnapshot(request: string, turns: Turn[], extra: JsonObject = {}): JsonObject {
  const messages: JsonValue[] = [
    { role: 'system', content: 'You answer using tools.' },
    { role: 'user', content: request },
  ];
  turns.forEach((turn, i) => {
    const id = `call_${i}`;
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id,
          type: 'function',
          function: {
            name: turn.tool,
            arguments: typeof turn.args === 'string' ? turn.args : JSON.stringify(turn.args),
          },
        },
      ],
    });
    const status = turn.status ?? 'ok';
    const content =
      status === 'ok'
        ? { status, returned: 1, data: turn.data ?? [] }
        : { status, code: 'ARGUMENTS_INVALID', category: 'fix_arguments', message: 'bad' };
    messages.push({ role: 'tool', tool_call_id: id, content: JSON.stringify(content) });
  });
  messages.push({ role: 'assistant', content: 'Done.' });
  return {
    format: 'tollgate.agent.v1',
    messages,
    steps: turns.length + 1,
    task: request,
    status: 'answered',
    updatedAt: '2025-01-01T00:00:00.000Z',
    ...extra,
  };
}

/** An order looked up by id; its result names the customer. */
export const orderById = (id: string): Turn => ({
  tool: 'es_orders_search',
  args: { filters: [{ field: 'id', op: 'eq', value: id }], fields: ['id', 'customer_id'] },
  data: [{ id, customer_id: `C-${id.slice(4)}`, amount: 12.5 }],
});

/** A customer fetched by id. */
export const customerById = (id: string): Turn => ({
  tool: 'es_customers_get',
  args: { id },
  data: { id, name: 'Ada' },
});

/** A conversation as a test describes it: the request and the tool calls made for it. */
export interface Conversation {
  request: string;
  turns: Turn[];
}

/**
 * The snapshot's `calls` (as newer SDKs record them) for `turns` whose Tollgate call ids are
 * `callIds` (one per turn).
 */
export function snapshotCalls(turns: Turn[], callIds: string[]): JsonValue[] {
  return turns.map((turn, i) => {
    const match = /^([a-z][a-z0-9_]*)_([a-z]+)$/.exec(turn.tool);
    return {
      id: `call_${i}`,
      status: turn.status ?? 'ok',
      resource: match?.[1] ?? '',
      operation: match?.[2] ?? '',
      callId: callIds[i] ?? '',
    };
  });
}
