/**
 * The MCP front end's logic, transport-free: a principal's tools as MCP tools (paginated, from
 * a short-lived per-principal listing), and tool calls forwarded to the executor as that
 * principal with the MCP session as the Tollgate session. Names never offered to the
 * principal are refused here, before anything is sent.
 */
import { createHash } from 'node:crypto';
import type { JsonObject } from '@bufbuild/protobuf';
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { canonicalJson, isTollgateError } from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import {
  CALL_STATUS_TOOL,
  FIND_TOOLS_TOOL,
  GATEWAY_TOOL_NAMES,
  callStatusArgs,
  callStatusTool,
  findToolsArgs,
  findToolsTool,
} from '../mcp/gateway-tools.js';
import { callToolResult, errorResult } from '../mcp/results.js';
import { mcpTool, operationClass } from '../mcp/tools.js';
import type { CallOutcome, GatewayTool, ToolSource } from './tool-source.js';

/** Who is asking, from where, in which session. */
export interface CallContext {
  principal: Principal;
  /** The caller's address, as the HTTP edge established it (absent on stdio). */
  sourceIp?: string;
  /** The MCP session, used as the Tollgate session. */
  sessionId: string;
  /** Whether the client can run tool calls as MCP tasks. */
  tasks: boolean;
}

export interface GatewaySettings {
  pageSize: number;
  /** How long one principal's listing is reused (0: never). */
  listTtlMs: number;
  callTimeoutMs: number;
  findTools: boolean;
}

export interface GatewayDeps {
  source: ToolSource;
  /** The short-lived Tollgate token for a principal calling from an address. */
  tokenFor(principal: Principal, sourceIp: string | undefined): Promise<string>;
  settings: GatewaySettings;
  clock?: () => number;
}

/** One page of `tools/list`. */
export interface ToolPage {
  [key: string]: unknown;
  tools: Tool[];
  nextCursor?: string;
  /** Why the principal is offered no tools of its own, when that is the case. */
  _meta?: { [NOTICE_META]: string };
}

/** The `_meta` key of a listing's notice (reverse-DNS, as MCP asks of vendor keys). */
export const NOTICE_META = 'tollgate.dev/notice';

/**
 * Refusals of a listing that mean "this principal has no tools yet" (no policy bundle for its
 * tenant, the agent not declared in it), not a failure: the answer is an empty list that says
 * what is missing, so a client shows the server as connected with nothing to offer and lists
 * again when told the tools changed.
 */
const NO_TOOLS_YET: ReadonlySet<string> = new Set(['POLICY_UNAVAILABLE', 'POLICY_DENIED']);

/** A bad `tools/list` cursor (answered as invalid params). */
export class InvalidCursorError extends Error {}

export class McpGateway {
  readonly #deps: GatewayDeps;
  readonly #clock: () => number;
  readonly #listings = new Map<string, { tools: Promise<GatewayTool[]>; until: number }>();
  #generation = 0;

  constructor(deps: GatewayDeps) {
    this.#deps = deps;
    this.#clock = deps.clock ?? Date.now;
  }

  /** Forgets every cached listing (a resource, policy or saved query changed). */
  invalidate(): void {
    this.#generation++;
    this.#listings.clear();
  }

  /** How many times listings were invalidated; part of every cursor, so pages never mix lists. */
  get generation(): number {
    return this.#generation;
  }

  async listTools(ctx: CallContext, cursor: string | undefined): Promise<ToolPage> {
    const offset = cursor === undefined ? 0 : this.#offsetOf(cursor);
    let offered: GatewayTool[];
    let notice: string | undefined;
    try {
      offered = await this.#listing(ctx);
    } catch (err) {
      if (!isTollgateError(err) || !NO_TOOLS_YET.has(err.code)) throw err;
      offered = [];
      notice = err.message;
    }
    const all = [
      ...offered.map((t) => mcpTool(t, { tasks: ctx.tasks })),
      ...(notice === undefined ? [callStatusTool] : []),
      ...(notice === undefined && this.#deps.settings.findTools ? [findToolsTool] : []),
    ];
    if (offset > all.length)
      throw new InvalidCursorError('the cursor points past the list; list again');
    const end = offset + this.#deps.settings.pageSize;
    return {
      tools: all.slice(offset, end),
      ...(end < all.length ? { nextCursor: this.#cursorOf(end) } : {}),
      ...(notice === undefined ? {} : { _meta: { [NOTICE_META]: notice } }),
    };
  }

  /** Runs one `tools/call`; every failure is a result that says what to do. */
  async callTool(
    ctx: CallContext,
    name: string,
    args: Record<string, unknown> | undefined,
    options: { callId?: string; idempotencyKey?: string } = {},
  ): Promise<CallToolResult> {
    try {
      if (name === CALL_STATUS_TOOL) return await this.#callStatus(ctx, args ?? {});
      if (name === FIND_TOOLS_TOOL && this.#deps.settings.findTools)
        return await this.#findTools(ctx, args ?? {});
      const outcome = await this.call(ctx, name, args, options);
      return callToolResult(outcome);
    } catch (err) {
      return failureResult(err);
    }
  }

  /** Forwards a call of an offered tool to the executor and returns its outcome. */
  async call(
    ctx: CallContext,
    name: string,
    args: Record<string, unknown> | undefined,
    options: { callId?: string; idempotencyKey?: string } = {},
  ): Promise<CallOutcome> {
    const tool = (await this.#listing(ctx)).find((t) => t.name === name);
    if (tool === undefined || GATEWAY_TOOL_NAMES.has(name)) {
      return refused(
        'UNKNOWN_TOOL',
        'fix_arguments',
        `There is no tool ${JSON.stringify(name.slice(0, 80))} for you; call only the tools you were listed (list tools again).`,
      );
    }
    const argsObject = (args ?? {}) as JsonObject;
    const idempotencyKey =
      operationClass(tool) === 'read'
        ? ''
        : (options.idempotencyKey ?? derivedIdempotencyKey(ctx.sessionId, name, argsObject));
    const token = await this.#deps.tokenFor(ctx.principal, ctx.sourceIp);
    return this.#deps.source.call(token, {
      tool,
      args: argsObject,
      callId: options.callId ?? crypto.randomUUID(),
      sessionId: ctx.sessionId,
      idempotencyKey,
      timeoutMs: this.#deps.settings.callTimeoutMs,
    });
  }

  /** The stored outcome of a parked or accepted call of this principal. */
  async status(ctx: CallContext, callId: string): Promise<CallOutcome> {
    const token = await this.#deps.tokenFor(ctx.principal, ctx.sourceIp);
    return this.#deps.source.status(token, callId);
  }

  async #callStatus(ctx: CallContext, args: Record<string, unknown>): Promise<CallToolResult> {
    const parsed = callStatusArgs(args);
    if (typeof parsed === 'string') return badArguments(parsed);
    return callToolResult(await this.status(ctx, parsed.callId));
  }

  async #findTools(ctx: CallContext, args: Record<string, unknown>): Promise<CallToolResult> {
    const parsed = findToolsArgs(args);
    if (typeof parsed === 'string') return badArguments(parsed);
    const token = await this.#deps.tokenFor(ctx.principal, ctx.sourceIp);
    const ranked = await this.#deps.source.list(token, {
      task: parsed.task,
      topK: parsed.topK,
      sessionId: ctx.sessionId,
    });
    const tools = ranked.map((t) => ({ name: t.name, description: t.description }));
    const text =
      tools.length === 0
        ? 'None of your tools fits this task.'
        : tools.map((t, i) => `${i + 1}. ${t.name}: ${t.description.split('\n')[0]}`).join('\n');
    return { content: [{ type: 'text', text }], structuredContent: { tools } };
  }

  #listing(ctx: CallContext): Promise<GatewayTool[]> {
    const { tenant, agent, environment, user } = ctx.principal;
    const key = JSON.stringify([tenant, agent, environment, user ?? null]);
    const now = this.#clock();
    const hit = this.#listings.get(key);
    if (hit !== undefined && hit.until > now) return hit.tools;
    const tools = this.#deps
      .tokenFor(ctx.principal, ctx.sourceIp)
      .then((token) => this.#deps.source.list(token, {}));
    const ttl = this.#deps.settings.listTtlMs;
    if (ttl > 0) {
      this.#listings.set(key, { tools, until: now + ttl });
      tools.catch(() => this.#listings.delete(key));
    }
    return tools;
  }

  #cursorOf(offset: number): string {
    return Buffer.from(JSON.stringify({ o: offset, g: this.#generation })).toString('base64url');
  }

  #offsetOf(cursor: string): number {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    } catch {
      throw new InvalidCursorError('the cursor is not one this server gave out');
    }
    const { o, g } = (parsed ?? {}) as { o?: unknown; g?: unknown };
    if (typeof o !== 'number' || !Number.isSafeInteger(o) || o < 0)
      throw new InvalidCursorError('the cursor is not one this server gave out');
    if (g !== this.#generation)
      throw new InvalidCursorError(
        'the tool list changed since this cursor; list again from the start',
      );
    return o;
  }
}

/**
 * The idempotency key of a write the client gave none for: the same session calling the same
 * tool with the same arguments is the same write, so a retry (or a model repeating itself)
 * runs it at most once.
 */
export function derivedIdempotencyKey(sessionId: string, tool: string, args: JsonObject): string {
  const digest = createHash('sha256')
    .update(canonicalJson({ sessionId, tool, args }))
    .digest('base64url');
  return `mcp-${digest.slice(0, 40)}`;
}

function refused(code: string, category: string, message: string): CallOutcome {
  return { status: 'error', callId: '', error: { code, category, message, details: [] } };
}

function badArguments(message: string): CallToolResult {
  return errorResult({
    code: 'ARGUMENTS_INVALID',
    category: 'fix_arguments',
    message,
    details: [],
  });
}

function failureResult(err: unknown): CallToolResult {
  if (isTollgateError(err)) {
    return errorResult({
      code: err.code,
      category: err.category,
      message: err.message,
      details: err.details.map((d) => ({ ...d })),
    });
  }
  return errorResult({
    code: 'INTERNAL',
    category: 'internal',
    message: 'The gateway could not complete the call.',
    details: [],
  });
}
