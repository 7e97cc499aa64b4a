/**
 * The scripted model's rules for the demo (and the tests), standing in for an LLM when none is
 * configured: look an order up by id with the offered `*_search` tool, correct arguments from
 * a fix_arguments error, summarise the result; extract a resource descriptor from a
 * description when asked to fill `propose_resource`; use an offered skill (`skill_*`) when the
 * request names as many orders as the skill takes.
 */
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { repairArguments } from './argument-repair.js';
import type { ErrorDetailLike } from './argument-repair.js';
import { PROPOSE_RESOURCE_TOOL } from '../registration/extraction-schema.js';
import { CURRENT_PROPOSAL_MARKER } from '../registration/propose.js';
import { REGISTER_RESOURCE_TOOL } from '../registration/conversation.js';
import { SKILL_FUNCTION_PREFIX } from '../agent/skills.js';
import { extractResourceFromText, readCorrection } from './resource-extraction.js';
import type {
  ChatRequest,
  ModelScript,
  ScriptMessage,
  ScriptTool,
  ScriptedReply,
} from './scripted-server.js';

const ORDER_ID =
  /(?:\border\s+(?:id\s+|number\s+|no\.?\s+)?|订单(?:号)?\s*|\bid\s*(?:为|是|=)\s*)#?([A-Za-z0-9][A-Za-z0-9_-]{2,63})\b/i;
/** Consecutive failed tool results after which the script stops trying and answers. */
const MAX_REPAIRS = 2;

export function createDemoScript(): ModelScript {
  return (request) => demoReply(request);
}

export function demoReply(request: ChatRequest): ScriptedReply {
  if (request.forcedTool === PROPOSE_RESOURCE_TOOL) {
    const current = currentProposal(request);
    const text = lastUserText(request);
    return {
      toolCalls: [
        {
          name: PROPOSE_RESOURCE_TOOL,
          arguments: current ? readCorrection(text, current) : extractResourceFromText(text),
        },
      ],
    };
  }
  const last = request.messages[request.messages.length - 1];
  if (last?.role === 'tool') return afterToolResult(request);
  const text = last?.content ?? '';
  const register = request.tools.find((t) => t.name === REGISTER_RESOURCE_TOOL);
  if (register !== undefined && describesResource(text)) {
    return { toolCalls: [{ name: register.name, arguments: { description: text } }] };
  }
  const skill = skillCall(request.tools, text);
  if (skill !== undefined) return { toolCalls: [skill] };
  const orderId = ORDER_ID.exec(text)?.[1];
  const tool = request.tools.find((t) => t.name.endsWith('_search'));
  if (orderId === undefined || tool === undefined) {
    return { content: 'In this demo I can look orders up by id: ask me about "order <id>".' };
  }
  const field = idField(tool);
  return {
    toolCalls: [
      {
        name: tool.name,
        arguments: withNulls(tool, { filters: [{ field, op: 'eq', value: orderId }], limit: 5 }),
      },
    ],
  };
}

/** Ids in a request about orders ("orders 20001 and 20002", "订单 20001 和 20002"), in order. */
const ORDERS = /\border|订单/i;
const ID = /(?<![A-Za-z0-9_-])#?([0-9][A-Za-z0-9_-]{2,63})(?![A-Za-z0-9_-])/g;
/** Inputs that size a result rather than say what to look at, and the value the script gives them. */
const SIZING: Record<string, number> = { limit: 5, size: 5 };

/**
 * A call of the first offered skill whose required inputs the request fills: as many string
 * inputs as the request names orders (two or more), in order, and sizing inputs at 5.
 */
function skillCall(
  tools: ScriptTool[],
  text: string,
): { name: string; arguments: JsonObject } | undefined {
  if (!ORDERS.test(text)) return undefined;
  const ids = [...new Set([...text.matchAll(ID)].map((m) => m[1]!))];
  if (ids.length < 2) return undefined;
  for (const tool of tools.filter((t) => t.name.startsWith(SKILL_FUNCTION_PREFIX))) {
    const properties = asObject(tool.parameters.properties) ?? {};
    const required = Array.isArray(tool.parameters.required)
      ? tool.parameters.required.filter((r): r is string => typeof r === 'string')
      : [];
    const strings = required.filter((name) => asObject(properties[name])?.type === 'string');
    if (strings.length !== ids.length) continue;
    const args: JsonObject = {};
    strings.forEach((name, i) => (args[name] = ids[i]!));
    const rest = required.filter((name) => !strings.includes(name));
    if (!rest.every((name) => SIZING[name] !== undefined)) continue;
    for (const name of rest) args[name] = SIZING[name]!;
    return { name: tool.name, arguments: args };
  }
  return undefined;
}

function afterToolResult(request: ChatRequest): ScriptedReply {
  const last = request.messages[request.messages.length - 1]!;
  const result = parseObject(last.content);
  if (
    result?.status === 'error' &&
    result.category === 'fix_arguments' &&
    recentFailures(request) <= MAX_REPAIRS
  ) {
    const previous = callOf(request.messages, last.tool_call_id);
    const args = previous ? parseObject(previous.arguments) : undefined;
    const details = Array.isArray(result.details)
      ? (result.details as unknown as ErrorDetailLike[])
      : [];
    const repaired = args ? repairArguments(args, details) : undefined;
    if (previous && repaired) return { toolCalls: [{ name: previous.name, arguments: repaired }] };
  }
  return { content: summarise(result) };
}

function summarise(result: JsonObject | undefined): string {
  switch (result?.status) {
    case 'ok': {
      if (typeof result.skill === 'string') {
        const steps = Array.isArray(result.steps) ? result.steps.length : 0;
        return `The reviewed procedure ${result.skill} ran ${steps} step(s): ${JSON.stringify(result.outputs ?? {}).slice(0, 400)}`;
      }
      const rows = Array.isArray(result.data) ? result.data : [result.data ?? null];
      if (rows.length === 0) return 'I found no matching records.';
      const shown = rows
        .slice(0, 3)
        .map((row) => JSON.stringify(row))
        .join('; ');
      return `I found ${rows.length} record(s): ${shown}`;
    }
    case 'error':
      return `I could not do that (${String(result.code)}): ${String(result.message)}`;
    case 'pending_approval':
      return `The request awaits approval by a person (approval ${String(result.approval_id)}).`;
    case 'accepted':
      return `The request was started (task ${String(result.task_id)}).`;
    default:
      return 'The tool returned something I could not read.';
  }
}

/** Tool messages in a row, most recent first, that were errors. */
function recentFailures(request: ChatRequest): number {
  let count = 0;
  for (const m of [...request.messages].reverse()) {
    if (m.role === 'assistant') continue;
    if (m.role !== 'tool' || parseObject(m.content)?.status !== 'error') break;
    count += 1;
  }
  return count;
}

function callOf(messages: ScriptMessage[], id: string | undefined) {
  for (const m of messages) {
    const call = m.tool_calls?.find((c) => c.id === id);
    if (call) return call;
  }
  return undefined;
}

/** The filterable id-like field of a search tool (`id`, else the first `*_id`, else `id`). */
function idField(tool: ScriptTool): string {
  const fields = filterFields(tool.parameters);
  return fields.find((f) => f === 'id') ?? fields.find((f) => f.endsWith('_id')) ?? 'id';
}

function filterFields(parameters: JsonObject): string[] {
  const filters = asObject(asObject(parameters.properties)?.filters);
  const branches = asObject(filters?.items)?.anyOf;
  if (!Array.isArray(branches)) return [];
  return branches.flatMap((branch) => {
    const field = asObject(asObject(asObject(branch)?.properties)?.field);
    return typeof field?.const === 'string' ? [field.const] : [];
  });
}

/** Strict-mode tools want every property: the ones not given are sent as null. */
function withNulls(tool: ScriptTool, args: JsonObject): JsonObject {
  const properties = asObject(tool.parameters.properties) ?? {};
  const required = Array.isArray(tool.parameters.required) ? tool.parameters.required : [];
  const complete: JsonObject = {};
  for (const key of Object.keys(properties)) {
    if (key in args) complete[key] = args[key] ?? null;
    else if (required.includes(key)) complete[key] = null;
  }
  return Object.keys(properties).length > 0 ? complete : args;
}

/** A sentence some kind reads as a description of a resource (it names where it is). */
function describesResource(text: string): boolean {
  const spec = asObject(extractResourceFromText(text).spec);
  return typeof spec?.type === 'string' && asObject(spec.connection) !== undefined;
}

/** The proposal a correction applies to, from the extraction's system message. */
function currentProposal(request: ChatRequest): JsonObject | undefined {
  const system = request.messages.find((m) => m.role === 'system')?.content ?? '';
  const at = system.indexOf(CURRENT_PROPOSAL_MARKER);
  return at < 0 ? undefined : parseObject(system.slice(at + CURRENT_PROPOSAL_MARKER.length));
}

function lastUserText(request: ChatRequest): string {
  return [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
}

function parseObject(text: string | null | undefined): JsonObject | undefined {
  try {
    return asObject(JSON.parse(text ?? '') as JsonValue);
  } catch {
    return undefined;
  }
}

function asObject(value: JsonValue | undefined): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
}
