/**
 * Live updates for the pages: one JetStream ordered consumer on the events stream (new
 * events only) fans each event out, as a short summary, to the Server-Sent-Events streams of
 * the sessions in its tenant. Browsers never reach NATS; no arguments or results leave here.
 */
import type { ServerResponse } from 'node:http';
import { DeliverPolicy, jetstream } from '@nats-io/jetstream';
import type { ConsumerMessages } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { CallStatus } from '@tollgate/contracts/call/v1';
import type { EventEnvelope } from '@tollgate/contracts/events/v1';
import { ApprovalStatus } from '@tollgate/contracts/policy/v1';
import { ErrorCode } from '@tollgate/contracts/common/v1';
import { EVENTS_STREAM, PULL_OPTIONS, decodeEnvelope } from '@tollgate/kit';
import type { Logger } from '@tollgate/kit';

/** What a page learns of one event. */
export interface EventSummary {
  id: string;
  type: string;
  occurredAt: string;
  traceId: string;
  callId?: string;
  sessionId?: string;
  agent?: string;
  user?: string;
  tool?: string;
  resource?: string;
  status?: string;
  errorCode?: string;
  latencyMs?: number;
  approvalId?: string;
  approvalStatus?: string;
  name?: string;
  version?: number;
}

const HEARTBEAT_MS = 15_000;
/** Streams one tenant may hold open at once (tabs of all its operators). */
const MAX_STREAMS_PER_TENANT = 200;

/** Reads the parts of an event that pages show. */
export function summarize(e: EventEnvelope): EventSummary {
  const base: EventSummary = {
    id: e.eventId,
    type: e.type,
    occurredAt: e.occurredAt ? timestampDate(e.occurredAt).toISOString() : new Date().toISOString(),
    traceId: e.traceId,
  };
  const p = e.payload;
  switch (p.case) {
    case 'callCompleted':
      return {
        ...base,
        callId: p.value.callId,
        sessionId: p.value.sessionId,
        agent: p.value.principal?.agent ?? '',
        user: p.value.principal?.user ?? '',
        tool: p.value.tool,
        resource: p.value.resource,
        status: CallStatus[p.value.status],
        ...(p.value.error ? { errorCode: ErrorCode[p.value.error.code] } : {}),
        latencyMs: p.value.meta?.latencyMs ?? 0,
        approvalId: p.value.approvalId,
      };
    case 'callDenied':
      return {
        ...base,
        callId: p.value.callId,
        sessionId: p.value.sessionId,
        agent: p.value.principal?.agent ?? '',
        user: p.value.principal?.user ?? '',
        tool: p.value.tool,
        resource: p.value.resource,
        status: 'DENIED',
        ...(p.value.error ? { errorCode: ErrorCode[p.value.error.code] } : {}),
      };
    case 'approvalRequested':
    case 'approvalDecided':
      return {
        ...base,
        approvalId: p.value.approval?.id ?? '',
        approvalStatus: ApprovalStatus[p.value.approval?.status ?? 0],
        callId: p.value.approval?.callId ?? '',
        tool: p.value.approval?.tool ?? '',
        resource: p.value.approval?.resource ?? '',
        agent: p.value.approval?.principal?.agent ?? '',
      };
    case 'resourceChanged':
      return { ...base, name: p.value.name, version: p.value.version };
    case 'policyChanged':
      return { ...base, name: p.value.name, version: p.value.version };
    case 'memoryWritten':
      return { ...base, agent: p.value.agent, version: p.value.version };
    case 'toolsListed':
      return { ...base, sessionId: p.value.sessionId, agent: p.value.principal?.agent ?? '' };
    default:
      return base;
  }
}

/** How often a console started before the events stream looks for it again. */
const FOLLOW_RETRY_MS = 3_000;

function isStreamMissing(err: unknown): boolean {
  const e = err as { name?: unknown; message?: unknown };
  return e?.name === 'StreamNotFoundError' || String(e?.message ?? '').includes('stream not found');
}

/** The fan-out from JetStream to the open event streams. */
export class EventFeed {
  readonly #streams = new Map<string, Set<ServerResponse>>();
  readonly #nc: NatsConnection;
  readonly #logger: Logger;
  #messages: ConsumerMessages | undefined;
  #running: Promise<void> | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #retry: NodeJS.Timeout | undefined;
  #following = false;
  #stopped = false;

  constructor(deps: { nc: NatsConnection; logger: Logger }) {
    this.#nc = deps.nc;
    this.#logger = deps.logger;
  }

  /**
   * Starts following the events stream. When the stream does not exist yet (the console came
   * up before every service that creates it), the console serves anyway: the live pages stay
   * quiet and the feed tries again every few seconds until it appears or `stop()` is called.
   */
  async start(): Promise<void> {
    this.#heartbeat = setInterval(() => {
      for (const set of this.#streams.values())
        for (const res of set) res.write(': keep-alive\n\n');
    }, HEARTBEAT_MS);
    if (await this.#follow()) return;
    this.#logger.warn(
      { stream: EVENTS_STREAM },
      'no events stream yet (it is created by the other services): live pages wait for it',
    );
    this.#retry = setInterval(() => {
      if (this.#following || this.#stopped) return;
      void this.#follow().then(
        (started) => {
          if (started && this.#retry) clearInterval(this.#retry);
          if (started) this.#logger.info({ stream: EVENTS_STREAM }, 'following the events stream');
        },
        (err: unknown) =>
          this.#logger.warn(
            { err: { message: (err as Error).message } },
            'events stream not followed',
          ),
      );
    }, FOLLOW_RETRY_MS);
  }

  /** Opens the ordered consumer; false when the stream does not exist (yet). */
  async #follow(): Promise<boolean> {
    this.#following = true;
    try {
      // The stream holds only events; an ordered consumer of new messages sees each once.
      let consumer;
      try {
        consumer = await jetstream(this.#nc).consumers.get(EVENTS_STREAM, {
          deliver_policy: DeliverPolicy.New,
        });
      } catch (err) {
        if (isStreamMissing(err)) return false;
        throw err;
      }
      const messages = await consumer.consume(PULL_OPTIONS);
      if (this.#stopped) {
        await messages.close();
        return true;
      }
      this.#messages = messages;
      this.#running = (async () => {
        for await (const msg of messages) {
          try {
            this.#publish(decodeEnvelope(msg.data));
          } catch (err) {
            this.#logger.warn(
              { err: { message: (err as Error).message }, subject: msg.subject },
              'undecodable event skipped',
            );
          }
        }
      })();
      return true;
    } finally {
      this.#following = false;
    }
  }

  /** Opens a stream of `tenant`'s events on `res`; it ends when the browser goes away. */
  open(tenant: string, res: ServerResponse): void {
    let set = this.#streams.get(tenant);
    if (set === undefined) {
      set = new Set();
      this.#streams.set(tenant, set);
    }
    if (set.size >= MAX_STREAMS_PER_TENANT) {
      res.writeHead(429, { 'content-type': 'text/plain' }).end('too many open event streams');
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 2000\n: connected\n\n');
    set.add(res);
    res.on('close', () => set.delete(res));
  }

  #publish(e: EventEnvelope): void {
    const set = this.#streams.get(e.tenant);
    if (set === undefined || set.size === 0) return;
    const frame = `event: ${e.type}\ndata: ${JSON.stringify(summarize(e))}\n\n`;
    for (const res of set) res.write(frame);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    if (this.#retry) clearInterval(this.#retry);
    for (const set of this.#streams.values()) for (const res of set) res.end();
    this.#streams.clear();
    await this.#messages?.close();
    await this.#running;
  }
}
