import { create } from '@bufbuild/protobuf';
import type { JsonObject } from '@bufbuild/protobuf';
import type { NatsConnection } from '@nats-io/transport-node';
import { agentCompletionSubject, agentInboxPrefix } from '@tollgate/core';
import { CallRequestSchema, CallResultSchema } from '@tollgate/contracts/call/v1';
import {
  GetToolRequestSchema,
  GetToolResponseSchema,
  ListToolsRequestSchema,
  ListToolsResponseSchema,
} from '@tollgate/contracts/synthesizer/v1';
import { checkArguments } from './arguments.js';
import { awaitCompletion, CallWatch } from './await-completion.js';
import { CompletionFeed } from './completions.js';
import type { CompletionEvent, CompletionSubscription } from './completions.js';
import { connectWithToken } from './connection.js';
import type { BusConnectOptions } from './connection.js';
import { DataPlane } from './data-plane.js';
import { toolCallError } from './errors.js';
import { subjects } from '@tollgate/contracts/bus';
import { protoFormat, readTokenClaims } from './protocol.js';
import type { TokenClaims, ToolFormatName } from './protocol.js';
import { readCallResult } from './result.js';
import type { CallOutcome, ReadResult, WaitOptions } from './result.js';
import { readTool } from './tools.js';
import type { Tool } from './tools.js';
import { errorFromTransport, malformed } from './wire-errors.js';

/** How a client talks to Tollgate over an existing NATS connection. */
export interface ClientOptions {
  /** The agent's signed principal token; sent as `authorization: Bearer <token>` on every request. */
  token: string;
  /** Default budget of a request, ms (default 30 000). */
  timeoutMs?: number;
  /** Default budget of `wait()` on a parked or accepted call, ms (default 300 000). */
  completionTimeoutMs?: number;
  /** Default polling interval of `wait()`, ms (default 2000). */
  pollIntervalMs?: number;
  /** Told about failures of completion handlers (which never break the client). */
  onError?: (err: unknown) => void;
}

/**
 * `TollgateClient.connect` options: where NATS is, plus the client options. The principal
 * token is also what authenticates the connection: the bus lets the agent publish only tool
 * calls and listings, and read only its own inbox (docs/bus.md).
 */
export interface ConnectOptions extends ClientOptions, BusConnectOptions {}

export interface ListToolsOptions {
  /** What the agent is about to do; ranks resources by relevance. */
  task?: string;
  /** Rendering format (default `json_schema`). */
  format?: ToolFormatName;
  /** Tools of at most this many resources (default: the server's). */
  topK?: number;
  sessionId?: string;
}

export interface CallOptions {
  /** Conversation the call belongs to (memory, audit, replay). */
  sessionId?: string;
  /** Required for writes; reuse it when retrying the same write. */
  idempotencyKey?: string;
  /**
   * Budget of the whole call, ms (default: the client's `timeoutMs`): the answer — a result, or
   * a retryable error when the executor is gone — arrives within it (the executor keeps a
   * reserve of its budget for recording and replying).
   */
  timeoutMs?: number;
  /** Call id (UUID) to use; default a fresh one. */
  callId?: string;
}

/**
 * The agent-side client of Tollgate's data plane: lists the tools this principal may use,
 * calls them, and follows calls that are parked for approval or run long. Every request
 * carries the principal token and a W3C `traceparent`. Failures before a call exists (bad
 * token, unknown tool, no service answering) are thrown as `ToolCallError`s typed by category;
 * a call's own outcome — including policy denials and bad arguments — is the returned
 * `CallOutcome`.
 */
export class TollgateClient {
  readonly #nc: NatsConnection;
  readonly #ownsConnection: boolean;
  readonly #plane: DataPlane;
  readonly #claims: TokenClaims;
  readonly #timeoutMs: number;
  readonly #completionTimeoutMs: number;
  readonly #pollIntervalMs: number;
  readonly #feed: CompletionFeed;
  readonly #tools = new Map<string, Tool>();
  readonly #watches = new Set<CallWatch>();
  readonly #reportError: (err: unknown) => void;

  private constructor(nc: NatsConnection, ownsConnection: boolean, options: ClientOptions) {
    this.#nc = nc;
    this.#ownsConnection = ownsConnection;
    this.#claims = claimsOf(options.token);
    this.#plane = new DataPlane(nc, options.token);
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#completionTimeoutMs = options.completionTimeoutMs ?? 300_000;
    this.#pollIntervalMs = options.pollIntervalMs ?? 2_000;
    this.#reportError = options.onError ?? (() => undefined);
    this.#feed = new CompletionFeed(nc, agentCompletionSubject(this.#claims), this.#reportError);
  }

  /** Connects to NATS; `close()` closes the connection. */
  static async connect(options: ConnectOptions): Promise<TollgateClient> {
    const claims = claimsOf(options.token);
    const nc = await connectWithToken(options, {
      name: `tollgate-sdk-${claims.agent}`,
      inboxPrefix: agentInboxPrefix(claims),
    });
    return new TollgateClient(nc, true, options);
  }

  /** A client over a connection the caller owns (and closes). */
  static over(nc: NatsConnection, options: ClientOptions): TollgateClient {
    return new TollgateClient(nc, false, options);
  }

  /** Who the token says this agent is (read, not verified: the services verify it). */
  get principal(): TokenClaims {
    return { ...this.#claims };
  }

  /** The tools this principal may use, most relevant to `task` first. */
  async listTools(options: ListToolsOptions = {}): Promise<Tool[]> {
    const request = create(ListToolsRequestSchema, {
      task: options.task ?? '',
      format: protoFormat(options.format ?? 'json_schema'),
      topK: options.topK ?? 0,
      sessionId: options.sessionId ?? '',
    });
    const response = await this.#plane.request({
      subject: subjects.listTools,
      schema: ListToolsRequestSchema,
      message: request,
      replySchema: ListToolsResponseSchema,
      timeoutMs: this.#timeoutMs,
    });
    const tools = response.tools.map(readTool);
    for (const tool of tools) this.#tools.set(tool.name, tool);
    return tools;
  }

  /** One tool by name (UNKNOWN_TOOL, a FixArgumentsError, when this principal has no such tool). */
  async getTool(name: string, options: { format?: ToolFormatName } = {}): Promise<Tool> {
    const request = create(GetToolRequestSchema, {
      name,
      format: protoFormat(options.format ?? 'json_schema'),
    });
    const response = await this.#plane.request({
      subject: subjects.getTool,
      schema: GetToolRequestSchema,
      message: request,
      replySchema: GetToolResponseSchema,
      timeoutMs: this.#timeoutMs,
    });
    if (response.tool === undefined)
      throw malformed(`get_tool answered without a tool for ${name}`);
    const tool = readTool(response.tool);
    this.#tools.set(tool.name, tool);
    return tool;
  }

  /**
   * Calls a tool. The outcome is `ok` (data + meta), `error` (a ToolCallError by category),
   * `pending_approval` or `accepted` (both with `wait()` for the final outcome).
   */
  async call(
    tool: string | Tool,
    args: JsonObject,
    options: CallOptions = {},
  ): Promise<CallOutcome> {
    const problems = checkArguments(args);
    if (problems.length > 0) {
      throw toolCallError({
        code: 'ARGUMENTS_INVALID',
        message: 'arguments are not a JSON object',
        details: problems,
      });
    }
    const definition =
      typeof tool === 'string' ? (this.#tools.get(tool) ?? (await this.getTool(tool))) : tool;
    const callId = options.callId ?? crypto.randomUUID();
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const request = create(CallRequestSchema, {
      callId,
      tool: definition.name,
      arguments: args,
      sessionId: options.sessionId ?? '',
      idempotencyKey: options.idempotencyKey ?? '',
      timeoutMs,
      toolVersion: definition.version,
    });
    // Listen before sending, so a completion that beats the reply is not missed.
    let watch: CallWatch;
    try {
      watch = this.#watch(callId);
    } catch (err) {
      throw errorFromTransport(err, definition.callSubject, timeoutMs);
    }
    let read: ReadResult;
    try {
      const reply = await this.#plane.request({
        subject: definition.callSubject,
        schema: CallRequestSchema,
        message: request,
        replySchema: CallResultSchema,
        timeoutMs,
        attributes: { 'tollgate.tool': definition.name, 'tollgate.call_id': callId },
      });
      read = readCallResult(reply, callId);
    } catch (err) {
      this.#unwatch(watch);
      throw err;
    }
    if (read.status === 'ok' || read.status === 'error') {
      this.#unwatch(watch);
      if (read.status === 'error' && read.error.code === 'UNKNOWN_TOOL')
        this.#tools.delete(definition.name);
      return read;
    }
    const wait = (waitOptions: WaitOptions = {}) =>
      awaitCompletion({
        watch,
        kind: read.status,
        poll: () => this.fetchResult(callId),
        options: {
          timeoutMs: waitOptions.timeoutMs ?? this.#completionTimeoutMs,
          pollIntervalMs: waitOptions.pollIntervalMs ?? this.#pollIntervalMs,
          signal: waitOptions.signal,
        },
      }).finally(() => {
        if (watch.event !== undefined) this.#unwatch(watch);
      });
    return { ...read, wait };
  }

  /** What the executor knows about a call now (`call_result`); parked calls stay pending. */
  async fetchResult(callId: string): Promise<ReadResult> {
    const request = create(CallRequestSchema, { callId });
    const reply = await this.#plane.request({
      subject: subjects.callResult,
      schema: CallRequestSchema,
      message: request,
      replySchema: CallResultSchema,
      timeoutMs: this.#timeoutMs,
    });
    return readCallResult(reply, callId);
  }

  /**
   * Delivers this principal's completion events (same tenant, agent, environment and — when
   * the token names one — user) until `close()`. The executor sends them to this principal's
   * own inbox; services that react to a whole tenant's calls use `CompletionSubscriber`.
   */
  onCompletion(handler: (event: CompletionEvent) => void | Promise<void>): CompletionSubscription {
    const mine = this.#claims;
    return this.#feed.listen((event) => {
      const p = event.principal;
      if (p === undefined || p.tenant !== mine.tenant || p.agent !== mine.agent) return;
      if (p.environment !== mine.environment) return;
      if (mine.user !== undefined && p.user !== mine.user) return;
      const done = handler(event);
      if (done instanceof Promise) done.catch((err: unknown) => this.#reportError(err));
    });
  }

  /** Stops listening for completions; closes the NATS connection when `connect` opened it. */
  async close(): Promise<void> {
    for (const watch of this.#watches) watch.close();
    this.#watches.clear();
    this.#feed.close();
    if (this.#ownsConnection) await this.#nc.drain();
  }

  #watch(callId: string): CallWatch {
    const watch = new CallWatch(this.#feed, callId);
    this.#watches.add(watch);
    return watch;
  }

  #unwatch(watch: CallWatch): void {
    watch.close();
    this.#watches.delete(watch);
  }
}

function claimsOf(token: string): TokenClaims {
  const claims = readTokenClaims(token);
  if (claims === undefined) {
    throw toolCallError({
      code: 'UNAUTHENTICATED',
      message:
        'the principal token is not a Tollgate token (a JWT with tenant, sub and env claims)',
    });
  }
  return claims;
}
