/**
 * The scripted model the CLI and the demo use when no LLM is configured: the SDK's demo script
 * (look an order up by id, repair arguments from fix_arguments errors, summarise), plus two
 * requests of the demo — an order looked up in Chinese ("搜索 id 为 12345 的订单") and "the N
 * largest [status] orders", which asks for N rows whatever the agent's cap (as models do) and
 * so meets a fix_arguments error it then corrects. Pure.
 */
import type { JsonObject } from '@bufbuild/protobuf';
import { demoReply } from '@tollgate/sdk/demo';
import type { ChatRequest, ModelScript, ScriptTool, ScriptedReply } from '@tollgate/sdk/demo';

const CHINESE_ORDER = /订单/;
const NUMBER = /(\d{3,})/;
const LARGEST =
  /\b(?:(\d{1,4})\s+(?:largest|biggest)|(?:largest|biggest|top)\s+(\d{1,4}))\s+(?:([a-z]+)\s+)?orders?\b/i;
const STATUSES = new Set(['pending', 'paid', 'shipped', 'delivered', 'cancelled', 'refunded']);

export function cliScript(): ModelScript {
  return (request) => cliReply(request);
}

export function cliReply(request: ChatRequest): ScriptedReply {
  const last = request.messages[request.messages.length - 1];
  if (last?.role !== 'user' || request.forcedTool !== undefined) return demoReply(request);
  const text = last.content ?? '';
  const id = CHINESE_ORDER.test(text) ? NUMBER.exec(text)?.[1] : undefined;
  if (id !== undefined) {
    const messages = [...request.messages.slice(0, -1), { ...last, content: `find order ${id}` }];
    return demoReply({ ...request, messages });
  }
  const largest = LARGEST.exec(text);
  const search = request.tools.find((t) => t.name.endsWith('_search'));
  if (largest && search) {
    const status = largest[3]?.toLowerCase();
    const args: JsonObject = {
      filters:
        status && STATUSES.has(status) ? [{ field: 'status', op: 'eq', value: status }] : null,
      sort: [{ field: 'amount', order: 'desc' }],
      limit: Number(largest[1] ?? largest[2]),
      fields: ['id', 'status', 'amount', 'currency', 'created_at'],
    };
    return { toolCalls: [{ name: search.name, arguments: complete(search, args) }] };
  }
  return demoReply(request);
}

/** Strict-mode tools want every property; the ones not given are sent as null. */
function complete(tool: ScriptTool, args: JsonObject): JsonObject {
  const properties = tool.parameters.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties))
    return args;
  const out: JsonObject = {};
  for (const key of Object.keys(properties)) out[key] = args[key] ?? null;
  return out;
}
