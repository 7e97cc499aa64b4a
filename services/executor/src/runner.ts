import type { CallResult } from '@tollgate/contracts/call/v1';
import type { EventEnvelope } from '@tollgate/contracts/events/v1';
import { TollgateError, isTollgateError } from '@tollgate/core';
import type {
  ConnectorRegistry,
  CredentialNamespaces,
  CredentialResolver,
  Operation,
  PermissionSet,
  Principal,
  PublishedResource,
} from '@tollgate/core';
import { inSpan, publishEnvelope } from '@tollgate/kit';
import type { EventPublisher, Logger } from '@tollgate/kit';
import type { CallTrail, Stage } from './call-trail.js';
import { completedEvent, deniedEvent } from './pipeline/audit-event.js';
import { compileCall, principalCursorKey } from './pipeline/compile.js';
import { resolveCredential } from './pipeline/credential.js';
import { executeCall } from './pipeline/execute.js';
import type { IdempotencyStore } from './state/idempotency.js';
import { agentError, errorResult, okResult } from './pipeline/reply.js';
import { shapeCall } from './pipeline/shape.js';
import type { CallResults } from './state/call-results.js';

/** Everything the stages from idempotency to shape need about a decided, validated call. */
export interface ApprovedCall {
  principal: Principal;
  resource: PublishedResource;
  permissions: PermissionSet;
  operation: Operation;
  args: Record<string, unknown>;
}

/**
 * Tells a principal that one of its calls completed: `call.completed` on its own inbox prefix
 * (core `agentCompletionSubject`), the only place an agent may listen (DESIGN §14).
 */
export type CompletionNotify = (principal: Principal, event: EventEnvelope) => void;

/** A call's answer and whether its audit event was stored (it is never sent otherwise). */
export interface RecordedResult {
  result: CallResult;
  recorded: boolean;
}

export interface RunnerDeps {
  connectors: ConnectorRegistry;
  credentials: CredentialResolver;
  credentialNamespaces: CredentialNamespaces;
  events: EventPublisher;
  notify?: CompletionNotify;
  idempotency: IdempotencyStore;
  results: CallResults;
  logger: Logger;
  clock: () => number;
  cursorKey: string;
  maxResultBytes: number;
}

/** Codes that mean the call was refused before it ran (`call.denied` rather than `call.completed`). */
const DENIALS = new Set([
  'UNAUTHENTICATED',
  'POLICY_DENIED',
  'POLICY_UNAVAILABLE',
  'TENANT_MISMATCH',
]);

/**
 * The stages every call shares once it is decided and validated — idempotency, credential,
 * compile, execute, shape — and the recording of its outcome: result stored for polling when
 * the call is pollable, then the audit event stored by JetStream, and only then the answer.
 */
export class CallRunner {
  readonly #deps: RunnerDeps;

  constructor(deps: RunnerDeps) {
    this.#deps = deps;
  }

  /** Runs one stage in its own span (`executor.<stage>`), marking where the call is. */
  async stage<T>(trail: CallTrail, stage: Stage, fn: () => Promise<T> | T): Promise<T> {
    trail.stage = stage;
    const started = performance.now();
    try {
      return await inSpan(`executor.${stage}`, async () => fn());
    } finally {
      trail.timings[stage] = (trail.timings[stage] ?? 0) + performance.now() - started;
    }
  }

  /** Runs `work` and records its outcome; never rejects. */
  async runAndRecord(trail: CallTrail, work: () => Promise<CallResult>): Promise<RecordedResult> {
    let result: CallResult;
    let kind: 'completed' | 'denied' = 'completed';
    try {
      result = await work();
    } catch (err) {
      const error = agentError(err, trail);
      if (!isTollgateError(err)) {
        this.#deps.logger.error(
          {
            err: { name: (err as Error)?.name, message: (err as Error)?.message },
            callId: trail.callId,
            stage: trail.stage,
          },
          'call failed unexpectedly',
        );
      }
      result = errorResult(trail, error, this.#deps.clock());
      if (isDenial(trail, error)) kind = 'denied';
    }
    if (trail.phase === 'running') trail.phase = 'finishing';
    return this.record(trail, result, kind);
  }

  /** Stores the result (pollable calls) and the audit event, in that order, before any answer. */
  async record(
    trail: CallTrail,
    result: CallResult,
    kind: 'completed' | 'denied',
  ): Promise<RecordedResult> {
    const started = performance.now();
    const recorded = await inSpan('executor.reply', async () => {
      try {
        if (trail.pollable && trail.principal !== undefined) {
          if (trail.acceptance !== undefined) await trail.acceptance;
          await this.#deps.results.put(trail.principal, result);
        }
        const event =
          kind === 'denied' ? deniedEvent(trail, result) : completedEvent(trail, result);
        await publishEnvelope(this.#deps.events, event);
        if (kind === 'completed' && trail.principal !== undefined)
          this.#deps.notify?.(trail.principal, event);
        return { result, recorded: true };
      } catch (err) {
        this.#deps.logger.error(
          {
            err: { name: (err as Error)?.name, message: (err as Error)?.message },
            callId: trail.callId,
          },
          'the audit event could not be stored; the call is answered with an error',
        );
        const withheld = new TollgateError(
          'INTERNAL',
          'The call could not be recorded in the audit trail, so its outcome is withheld. A write may have been applied: retry with the same idempotency key to learn its outcome.',
        );
        return { result: errorResult(trail, withheld, this.#deps.clock()), recorded: false };
      }
    });
    trail.timings.reply = (trail.timings.reply ?? 0) + performance.now() - started;
    return recorded;
  }

  /** Idempotency for writes, then the upstream stages. Errors after a claim are results, not throws. */
  async perform(trail: CallTrail, call: ApprovedCall): Promise<CallResult> {
    if (call.operation !== 'write') return this.#upstream(trail, call);
    const claim = await this.stage(trail, 'idempotency', () =>
      this.#deps.idempotency.claim({
        principal: call.principal,
        key: trail.idempotencyKey,
        request: { resource: call.resource.name, tool: trail.tool?.name ?? '', args: call.args },
        callId: trail.callId,
        deadline: trail.deadline,
      }),
    );
    if (claim.kind === 'replay') {
      claim.result.callId = trail.callId;
      return claim.result;
    }
    let result: CallResult;
    try {
      result = await this.#upstream(trail, call);
    } catch (err) {
      result = errorResult(trail, agentError(err, trail), this.#deps.clock());
    }
    await claim
      .finish(result)
      .catch((err: unknown) =>
        this.#deps.logger.error(
          { err: { message: (err as Error)?.message }, callId: trail.callId },
          'idempotency record could not be completed',
        ),
      );
    return result;
  }

  async #upstream(trail: CallTrail, call: ApprovedCall): Promise<CallResult> {
    const { descriptor } = call.resource;
    const connector = this.#deps.connectors.get(descriptor.spec.type);
    const credentials: CredentialResolver = await this.stage(trail, 'credential', () =>
      resolveCredential(
        {
          credentials: this.#deps.credentials,
          namespaces: this.#deps.credentialNamespaces,
          logger: this.#deps.logger,
        },
        descriptor,
        { tenant: call.principal.tenant, environment: call.principal.environment },
      ),
    );
    const compiled = await this.stage(trail, 'compile', () =>
      compileCall(connector, call.operation, call.args, {
        descriptor,
        permissions: call.permissions,
        principal: {
          tenant: call.principal.tenant,
          agent: call.principal.agent,
          ...(call.principal.user !== undefined ? { user: call.principal.user } : {}),
        },
        cursorKey: principalCursorKey(this.#deps.cursorKey, call.principal),
      }),
    );
    const upstream = await this.stage(trail, 'execute', () =>
      executeCall(connector, compiled, { descriptor, credentials, deadline: trail.deadline }),
    );
    trail.upstreamStatus = upstream.status;
    const shaped = await this.stage(trail, 'shape', () =>
      shapeCall(connector, compiled, upstream, {
        descriptor,
        permissions: call.permissions,
        maxBytes: this.#deps.maxResultBytes,
      }),
    );
    return okResult(trail, shaped, this.#deps.clock());
  }
}

/** Refused before running: authentication or resolution failed, or policy said no. */
function isDenial(trail: CallTrail, error: TollgateError): boolean {
  if (trail.pollable) return false;
  if (trail.stage === 'authenticate' || trail.stage === 'resolve') return true;
  return trail.stage === 'decide' && DENIALS.has(error.code);
}
