/**
 * STAND-IN for the synthesizer's and executor's data-plane endpoints — a test double of our
 * own services, used by the SDK's tests only until the real services exist. It speaks the
 * protocol of docs/services.md ("Data plane over NATS") over the real NATS server: protobuf
 * bodies, `authorization` header checked, failures as a `tollgate-error` header, completion
 * notices on the calling principal's own inbox (core `agentCompletionSubject`).
 */
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import type { JsonObject, MessageInitShape } from '@bufbuild/protobuf';
import { timestampNow } from '@bufbuild/protobuf/wkt';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { agentCompletionSubject } from '@tollgate/core';
import type { Msg, MsgHdrs, NatsConnection, Subscription } from '@nats-io/transport-node';
import { CallRequestSchema, CallResultSchema, CallStatus } from '@tollgate/contracts/call/v1';
import type { CallRequest, CallResult } from '@tollgate/contracts/call/v1';
import { EventEnvelopeSchema } from '@tollgate/contracts/events/v1';
import {
  GetToolRequestSchema,
  GetToolResponseSchema,
  ListToolsRequestSchema,
  ListToolsResponseSchema,
} from '@tollgate/contracts/synthesizer/v1';
import type { ListToolsRequest } from '@tollgate/contracts/synthesizer/v1';
import { ToolDefinitionSchema, ToolFormat } from '@tollgate/contracts/tools/v1';
import type { ToolDefinition } from '@tollgate/contracts/tools/v1';

export interface StandInTool {
  name: string;
  resource: string;
  operation: string;
  inputSchema: JsonObject;
  description?: string;
}

export type CallResultInit = MessageInitShape<typeof CallResultSchema>;

/** What the stand-in executor answers to a call; `'no-reply'` leaves the request hanging. */
export type CallBehaviour = (request: CallRequest) => CallResultInit | 'no-reply';

export interface StandInOptions {
  nc: NatsConnection;
  /** The one token accepted (compared as a string). */
  token: string;
  principal: { tenant: string; agent: string; environment: string; user?: string };
  tools: StandInTool[];
  onCall: CallBehaviour;
  kind?: string;
}

export class StandInServices {
  readonly listRequests: ListToolsRequest[] = [];
  readonly calls: CallRequest[] = [];
  readonly headers: MsgHdrs[] = [];
  readonly polls: string[] = [];
  readonly #results = new Map<string, CallResult>();
  readonly #subs: Subscription[] = [];
  readonly #options: StandInOptions;
  readonly #kind: string;

  constructor(options: StandInOptions) {
    this.#options = options;
    this.#kind = options.kind ?? 'elasticsearch';
    const { nc } = options;
    this.#serve(nc.subscribe('tollgate.v1.svc.synthesizer.list_tools'), (msg) =>
      this.#listTools(msg),
    );
    this.#serve(nc.subscribe('tollgate.v1.svc.synthesizer.get_tool'), (msg) => this.#getTool(msg));
    this.#serve(nc.subscribe('tollgate.v1.svc.executor.call_result'), (msg) =>
      this.#callResult(msg),
    );
    for (const resource of new Set(options.tools.map((t) => t.resource))) {
      const sub = nc.subscribe(this.callSubject(resource), { queue: `executor-${this.#kind}` });
      this.#serve(sub, (msg) => this.#call(msg));
    }
  }

  callSubject(resource: string): string {
    return `tollgate.v1.call.${this.#kind}.${resource}`;
  }

  /** Finishes a parked or accepted call: the final result is stored and the event published. */
  complete(callId: string, init: CallResultInit): void {
    const result = this.storeResult(callId, init);
    this.publishCompletion(callId, result.status, init.error ? { error: init.error } : {});
  }

  /** Stores a call's result for `call_result` without publishing anything. */
  storeResult(callId: string, init: CallResultInit): CallResult {
    const result = create(CallResultSchema, { ...init, callId });
    this.#results.set(callId, result);
    return result;
  }

  /** Publishes a `call.completed` event (for any principal, to test filtering). */
  publishCompletion(
    callId: string,
    status: CallStatus,
    extra: {
      error?: CallResultInit['error'];
      principal?: StandInOptions['principal'];
      approvalId?: string;
    } = {},
  ): void {
    const principal = extra.principal ?? this.#options.principal;
    const envelope = create(EventEnvelopeSchema, {
      eventId: crypto.randomUUID(),
      type: 'call.completed',
      occurredAt: timestampNow(),
      tenant: principal.tenant,
      schemaVersion: 1,
      payload: {
        case: 'callCompleted',
        value: {
          callId,
          principal: { ...principal, user: principal.user ?? '' },
          tool: this.#options.tools[0]?.name ?? '',
          status,
          approvalId: extra.approvalId ?? '',
          ...(extra.error ? { error: extra.error } : {}),
          meta: { resource: this.#options.tools[0]?.resource ?? '', latencyMs: 3 },
        },
      },
    });
    // Where the executor sends it: the calling principal's own inbox.
    this.#options.nc.publish(
      agentCompletionSubject(principal),
      toBinary(EventEnvelopeSchema, envelope),
    );
  }

  close(): void {
    for (const sub of this.#subs) sub.unsubscribe();
  }

  #serve(sub: Subscription, handler: (msg: Msg) => Uint8Array | 'no-reply'): void {
    this.#subs.push(sub);
    void (async () => {
      for await (const msg of sub) {
        if (msg.headers) this.headers.push(msg.headers);
        if (msg.headers?.get('authorization') !== `Bearer ${this.#options.token}`) {
          fail(msg, 'UNAUTHENTICATED', 'denied', 'the principal token was not accepted');
          continue;
        }
        let body: Uint8Array | 'no-reply';
        try {
          body = handler(msg);
        } catch {
          fail(msg, 'INVALID_ARGUMENT', 'fix_arguments', 'the request is not a valid message');
          continue;
        }
        if (body !== 'no-reply') msg.respond(body);
      }
    })();
  }

  #listTools(msg: Msg): Uint8Array {
    const request = fromBinary(ListToolsRequestSchema, msg.data);
    this.listRequests.push(request);
    const tools = this.#options.tools.map((tool) => this.#definition(tool, request.format));
    return toBinary(ListToolsResponseSchema, create(ListToolsResponseSchema, { tools }));
  }

  #getTool(msg: Msg): Uint8Array | 'no-reply' {
    const request = fromBinary(GetToolRequestSchema, msg.data);
    const tool = this.#options.tools.find((t) => t.name === request.name);
    if (tool === undefined) {
      fail(msg, 'UNKNOWN_TOOL', 'fix_arguments', `no tool named ${request.name}`);
      return 'no-reply';
    }
    return toBinary(
      GetToolResponseSchema,
      create(GetToolResponseSchema, { tool: this.#definition(tool, request.format) }),
    );
  }

  #call(msg: Msg): Uint8Array | 'no-reply' {
    const request = fromBinary(CallRequestSchema, msg.data);
    this.calls.push(request);
    const answer = this.#options.onCall(request);
    if (answer === 'no-reply') return 'no-reply';
    const result = create(CallResultSchema, { ...answer, callId: answer.callId ?? request.callId });
    // A call finished while it was being answered keeps its final result.
    if (!this.#results.has(request.callId)) this.#results.set(request.callId, result);
    return toBinary(CallResultSchema, result);
  }

  #callResult(msg: Msg): Uint8Array | 'no-reply' {
    const { callId } = fromBinary(CallRequestSchema, msg.data);
    this.polls.push(callId);
    const result = this.#results.get(callId);
    if (result === undefined) {
      fail(msg, 'NOT_FOUND', 'fix_arguments', `no call ${callId}`);
      return 'no-reply';
    }
    return toBinary(CallResultSchema, result);
  }

  #definition(tool: StandInTool, format: ToolFormat): ToolDefinition {
    const description = tool.description ?? `Search ${tool.resource}.`;
    const rendering: JsonObject =
      format === ToolFormat.OPENAI
        ? {
            type: 'function',
            function: { name: tool.name, description, parameters: tool.inputSchema, strict: true },
          }
        : { name: tool.name, description, inputSchema: tool.inputSchema };
    return create(ToolDefinitionSchema, {
      name: tool.name,
      description,
      version: `v-${tool.name}`,
      resource: tool.resource,
      resourceVersion: 1,
      operation: tool.operation,
      inputSchema: tool.inputSchema,
      format,
      rendering,
      resourceKind: this.#kind,
      callSubject: this.callSubject(tool.resource),
    });
  }
}

function fail(msg: Msg, code: string, category: string, message: string): void {
  const hdrs = natsHeaders();
  hdrs.set('tollgate-error', JSON.stringify({ code, category, message, details: [] }));
  msg.respond(new Uint8Array(), { headers: hdrs });
}

export { CallStatus };
