/**
 * A local HTTP server speaking the OpenAI chat-completions wire protocol (non-streaming JSON,
 * with `tool_calls`), whose replies follow a script. It stands where a real model endpoint
 * would: the agent loop reaches it through the official `openai` client by `baseURL`, exactly
 * as it reaches OpenAI, vLLM, Ollama or llama.cpp — for the demo without an LLM, and for tests.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JsonObject } from '@bufbuild/protobuf';

/** A message of a chat request, text content flattened to a string. */
export interface ScriptMessage {
  role: string;
  content: string | null;
  tool_calls?: Array<{ id: string; name: string; arguments: string }>;
  tool_call_id?: string;
}

/** A function tool offered in the request. */
export interface ScriptTool {
  name: string;
  description: string;
  parameters: JsonObject;
}

/** A chat request as the script sees it. */
export interface ChatRequest {
  model: string;
  messages: ScriptMessage[];
  tools: ScriptTool[];
  /** The function the caller forces (`tool_choice: {type:'function', function:{name}}`), if any. */
  forcedTool?: string;
  /** The request body as sent. */
  body: JsonObject;
}

/** What the scripted model answers: text, function calls, or an HTTP error. */
export type ScriptedReply =
  | { content: string }
  | { toolCalls: Array<{ name: string; arguments: JsonObject | string }>; content?: string }
  | { error: { status: number; message: string } };

export type ModelScript = (request: ChatRequest) => ScriptedReply | Promise<ScriptedReply>;

export interface ScriptedModelServer {
  /** Pass as the `openai` client's `baseURL` (ends in `/v1`). */
  baseURL: string;
  model: string;
  /** Every chat request received, in order. */
  requests: ChatRequest[];
  close(): Promise<void>;
}

export interface ScriptedModelOptions {
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Model id reported by `/v1/models` and in replies (default `tollgate-scripted`). */
  model?: string;
}

const MAX_BODY = 4 * 1024 * 1024;

export async function startScriptedModelServer(
  script: ModelScript,
  options: ScriptedModelOptions = {},
): Promise<ScriptedModelServer> {
  const model = options.model ?? 'tollgate-scripted';
  const requests: ChatRequest[] = [];
  const server = createServer((req, res) => {
    handle(req, res, script, model, requests).catch((err: unknown) => {
      sendError(res, 500, `scripted model failed: ${(err as Error)?.message ?? String(err)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    baseURL: `http://${host}:${port}/v1`,
    model,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  script: ModelScript,
  model: string,
  requests: ChatRequest[],
): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '');
  if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
    sendJson(res, 200, {
      object: 'list',
      data: [{ id: model, object: 'model', created: 0, owned_by: 'tollgate' }],
    });
    return;
  }
  if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/chat/completions')) {
    sendError(res, 404, `no route ${req.method ?? ''} ${path}`);
    return;
  }
  const body = await readJson(req);
  const parsed = body === undefined ? undefined : parseChatRequest(body);
  if (typeof parsed === 'string' || parsed === undefined) {
    sendError(res, 400, parsed ?? 'the body is not a JSON object');
    return;
  }
  requests.push(parsed);
  const reply = await script(parsed);
  if ('error' in reply) {
    sendError(res, reply.error.status, reply.error.message);
    return;
  }
  sendJson(res, 200, completion(reply, parsed.model || model));
}

function completion(reply: Exclude<ScriptedReply, { error: unknown }>, model: string): JsonObject {
  const calls =
    'toolCalls' in reply
      ? reply.toolCalls.map((call) => ({
          id: `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
          type: 'function',
          function: {
            name: call.name,
            arguments:
              typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
          },
        }))
      : [];
  const content = 'content' in reply && reply.content !== undefined ? reply.content : null;
  return {
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content,
          refusal: null,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
        logprobs: null,
        finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}

/** Validates the request body; a string says what is wrong. */
export function parseChatRequest(body: JsonObject): ChatRequest | string {
  if (body.stream === true) return 'streaming is not supported by the scripted model';
  if (typeof body.model !== 'string') return '`model` must be a string';
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return '`messages` must be a non-empty array';
  const messages: ScriptMessage[] = [];
  for (const [i, m] of body.messages.entries()) {
    if (!isObject(m) || typeof m.role !== 'string') return `messages[${i}] needs a role`;
    messages.push({
      role: m.role,
      content: textOf(m.content),
      ...(Array.isArray(m.tool_calls)
        ? { tool_calls: m.tool_calls.filter(isObject).map(readCall) }
        : {}),
      ...(typeof m.tool_call_id === 'string' ? { tool_call_id: m.tool_call_id } : {}),
    });
  }
  const tools: ScriptTool[] = [];
  for (const t of Array.isArray(body.tools) ? body.tools : []) {
    const fn = isObject(t) && isObject(t.function) ? t.function : undefined;
    if (fn === undefined || typeof fn.name !== 'string')
      return 'every tool must be {type:"function", function:{name}}';
    tools.push({
      name: fn.name,
      description: typeof fn.description === 'string' ? fn.description : '',
      parameters: isObject(fn.parameters) ? fn.parameters : {},
    });
  }
  const choice = body.tool_choice;
  const forced = isObject(choice) && isObject(choice.function) ? choice.function.name : undefined;
  return {
    model: body.model,
    messages,
    tools,
    ...(typeof forced === 'string' ? { forcedTool: forced } : {}),
    body,
  };
}

function readCall(call: JsonObject): { id: string; name: string; arguments: string } {
  const fn = isObject(call.function) ? call.function : {};
  return {
    id: typeof call.id === 'string' ? call.id : '',
    name: typeof fn.name === 'string' ? fn.name : '',
    arguments: typeof fn.arguments === 'string' ? fn.arguments : '',
  };
}

function textOf(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  return content
    .map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function readJson(req: IncomingMessage): Promise<JsonObject | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function sendJson(res: ServerResponse, status: number, body: JsonObject): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  sendJson(res, status, {
    error: { message, type: 'invalid_request_error', param: null, code: null },
  });
}
