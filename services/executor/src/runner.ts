import { CallStatus } from '@tollgate/contracts/call/v1';
import type { CallResult } from '@tollgate/contracts/call/v1';
import type { EventEnvelope } from '@tollgate/contracts/events/v1';
import {
  TollgateError,
  businessIdempotencyKey,
  canonicalHash,
  egressGuard,
  idempotencyRuleOf,
  isTollgateError,
} from '@tollgate/core';
import type {
  CompiledRequest,
  Connector,
  EgressRules,
  ConnectorRegistry,
  CredentialNamespaces,
  CredentialResolver,
  Operation,
  PermissionSet,
  Principal,
  PublishedResource,
} from '@tollgate/core';
import { setTimeout as sleep } from 'node:timers/promises';
import { inSpan, publishEnvelope } from '@tollgate/kit';
import type { AddressLookup, EventPublisher, Logger } from '@tollgate/kit';
import type { CallTrail, Stage } from './call-trail.js';
import { completedEvent, deniedEvent, startedEvent } from './pipeline/audit-event.js';
import { compileCall, principalCursorKey } from './pipeline/compile.js';
import { resolveCredential } from './pipeline/credential.js';
import { checkEgress } from './pipeline/egress.js';
import { executeCall } from './pipeline/execute.js';
import { idempotencyKeyRequired } from './state/idempotency.js';
import type { IdempotencyStore, StoredUpstream } from './state/idempotency.js';
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
 * (core `agentCompletionSubject`), the only place an agent may listen (docs/bus.md).
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
  egressRules: EgressRules;
  resolveHost?: AddressLookup;
  events: EventPublisher;
  notify?: CompletionNotify;
  idempotency: IdempotencyStore;
  results: CallResults;
  logger: Logger;
  clock: () => number;
  cursorKey: string;
  maxResultBytes: number;
}

/** Attempts at storing a `call.completed` after the call was answered (same event id each time). */
export const COMPLETION_ATTEMPTS = 6;
const COMPLETION_BACKOFF_MS = 100;

/** Codes that mean the call was refused before it ran (`call.denied` rather than `call.completed`). */
const DENIALS = new Set([
  'UNAUTHENTICATED',
  'POLICY_DENIED',
  'POLICY_UNAVAILABLE',
  'TENANT_MISMATCH',
]);

/**
 * The stages every call shares once it is decided and validated — idempotency, credential,
 * compile, execute, shape — and the recording of its outcome. A call that reaches this point
 * first publishes the write-ahead `call.started` (a read: alongside its upstream query; a write:
 * stored before the upstream is touched) and is answered only once that is stored; its
 * `call.completed` then follows the answer. Calls that stop earlier, denials and pollable calls
 * are answered only once their outcome event (and stored result) is recorded. Either way no
 * answered call is missing from the audit trail.
 */
export class CallRunner {
  readonly #deps: RunnerDeps;
  /** `call.completed` events still being stored after their answer. */
  readonly #completing = new Set<Promise<void>>();

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

  /**
   * Stores what must be durable before the answer: the write-ahead `call.started` when the call
   * published one (its `call.completed` is then stored after the answer); else — no write-ahead,
   * or it could not be stored — the result (pollable calls) and the outcome event, in that order.
   */
  async record(
    trail: CallTrail,
    result: CallResult,
    kind: 'completed' | 'denied',
  ): Promise<RecordedResult> {
    const started = performance.now();
    const recorded = await inSpan('executor.reply', async () => {
      try {
        if (
          trail.started !== undefined &&
          kind === 'completed' &&
          !trail.pollable &&
          (await trail.started.then(
            () => true,
            () => false,
          ))
        ) {
          this.#completeAfterAnswer(trail, result);
          return { result, recorded: true };
        }
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

  /** Resolves once every `call.completed` still being stored after its answer is settled. */
  async settled(): Promise<void> {
    while (this.#completing.size > 0) await Promise.all([...this.#completing]);
  }

  /**
   * Stores `call.completed` after the call was answered (its `call.started` is stored): built
   * once the answer is on its way, retried under the same event id (JetStream stores it once),
   * then told to the caller's inbox. When every attempt fails the audit trail keeps the call as
   * started with its outcome unknown, and the executor says so in its log.
   */
  #completeAfterAnswer(trail: CallTrail, result: CallResult): void {
    const done = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      const event = completedEvent(trail, result);
      for (let attempt = 1; ; attempt++) {
        try {
          await publishEnvelope(this.#deps.events, event);
          break;
        } catch (err) {
          if (attempt >= COMPLETION_ATTEMPTS) {
            this.#deps.logger.error(
              {
                err: { name: (err as Error)?.name, message: (err as Error)?.message },
                callId: trail.callId,
                attempts: attempt,
              },
              'call.completed could not be stored after the answer; the audit trail shows the call as started with its outcome unknown',
            );
            return;
          }
          await sleep(COMPLETION_BACKOFF_MS * 2 ** (attempt - 1));
        }
      }
      if (trail.principal !== undefined) this.#deps.notify?.(trail.principal, event);
    });
    const tracked = done.finally(() => this.#completing.delete(tracked));
    this.#completing.add(tracked);
  }

  /** Compiles the approved call for its principal: the same context when run and when replayed. */
  #compile(connector: Connector, call: ApprovedCall): CompiledRequest {
    return compileCall(connector, call.operation, call.args, {
      descriptor: call.resource.descriptor,
      permissions: call.permissions,
      principal: {
        tenant: call.principal.tenant,
        agent: call.principal.agent,
        ...(call.principal.user !== undefined ? { user: call.principal.user } : {}),
      },
      cursorKey: principalCursorKey(this.#deps.cursorKey, call.principal),
    });
  }

  /**
   * Publishes the write-ahead `call.started` and keeps its outcome on the trail. A write waits
   * for it before anything is sent upstream, so nothing is ever written that the audit trail
   * does not know was attempted; a read goes ahead and the acknowledgement overlaps its query.
   */
  async #writeAhead(trail: CallTrail, call: ApprovedCall): Promise<void> {
    const started = publishEnvelope(this.#deps.events, startedEvent(trail));
    started.catch(() => undefined);
    trail.started = started;
    if (operationClass(this.#deps.connectors, call.resource.descriptor, call.operation) === 'read')
      return;
    try {
      await started;
    } catch {
      throw new TollgateError(
        'SERVICE_UNAVAILABLE',
        'The call could not be recorded in the audit trail, so it was not run; nothing was written. Retry shortly.',
      );
    }
  }

  /**
   * Refuses a write that has neither the caller's idempotency key nor a business rule of its
   * resource to build one — before it is parked for approval, so nobody approves a call that
   * could not run.
   */
  requireIdempotencyKey(trail: CallTrail, call: ApprovedCall): void {
    const { descriptor } = call.resource;
    if (trail.idempotencyKey !== '') return;
    if (operationClass(this.#deps.connectors, descriptor, call.operation) === 'read') return;
    if (idempotencyRuleOf(descriptor.spec.access, call.operation) !== undefined) return;
    throw idempotencyKeyRequired();
  }

  /**
   * Idempotency for every write (any operation the kind classes write or destructive), then
   * the upstream stages. A write whose operation the resource gives a business idempotency
   * rule is keyed by its arguments for every caller of the resource (the caller's own key is
   * not needed); a replay to a caller with other permissions is shaped anew for that caller
   * from the stored upstream answer, never handed what the first caller could see. Errors
   * after a claim are results, not throws.
   */
  async perform(trail: CallTrail, call: ApprovedCall): Promise<CallResult> {
    await this.#writeAhead(trail, call);
    const { descriptor } = call.resource;
    if (operationClass(this.#deps.connectors, descriptor, call.operation) === 'read')
      return this.#upstream(trail, call);
    const rule = idempotencyRuleOf(descriptor.spec.access, call.operation);
    const shapedFor = canonicalHash(call.permissions);
    const claim = await this.stage(trail, 'idempotency', () =>
      this.#deps.idempotency.claim({
        principal: call.principal,
        key:
          rule === undefined
            ? trail.idempotencyKey
            : businessIdempotencyKey(rule, call.operation, call.args, this.#deps.clock()),
        ...(rule === undefined ? {} : { business: { resource: call.resource.name, shapedFor } }),
        request: {
          resource: call.resource.name,
          operation: call.operation,
          ...(rule === undefined ? { tool: trail.tool?.name ?? '' } : {}),
          args: call.args,
        },
        callId: trail.callId,
        deadline: trail.deadline,
      }),
    );
    if (claim.kind === 'replay') {
      // An error outcome carries nothing shaped; a success is shaped for this caller.
      if (
        rule !== undefined &&
        claim.shapedFor !== shapedFor &&
        claim.result.status !== CallStatus.ERROR
      ) {
        if (claim.upstream === undefined)
          throw new TollgateError('INTERNAL', 'A stored business write has no answer to shape.');
        return this.#reshape(trail, call, claim.upstream);
      }
      claim.result.callId = trail.callId;
      return claim.result;
    }
    let result: CallResult;
    let upstream: StoredUpstream | undefined;
    try {
      result = await this.#upstream(trail, call, (answer) => (upstream = answer));
    } catch (err) {
      result = errorResult(trail, agentError(err, trail), this.#deps.clock());
    }
    await claim
      .finish(result, upstream)
      .catch((err: unknown) =>
        this.#deps.logger.error(
          { err: { message: (err as Error)?.message }, callId: trail.callId },
          'idempotency record could not be completed',
        ),
      );
    return result;
  }

  /** A stored upstream answer shaped for this caller (compile is pure: no request is sent). */
  async #reshape(
    trail: CallTrail,
    call: ApprovedCall,
    stored: StoredUpstream,
  ): Promise<CallResult> {
    const { descriptor } = call.resource;
    const connector = this.#deps.connectors.get(descriptor.spec.type);
    const compiled = this.#compile(connector, call);
    trail.upstreamStatus = stored.status;
    const shaped = await this.stage(trail, 'shape', () =>
      shapeCall(
        connector,
        compiled,
        { status: stored.status, body: stored.body, attempts: 0, latencyMs: 0 },
        { descriptor, permissions: call.permissions, maxBytes: this.#deps.maxResultBytes },
      ),
    );
    return okResult(trail, shaped, this.#deps.clock());
  }

  async #upstream(
    trail: CallTrail,
    call: ApprovedCall,
    answered?: (upstream: StoredUpstream) => void,
  ): Promise<CallResult> {
    const { descriptor } = call.resource;
    const connector = this.#deps.connectors.get(descriptor.spec.type);
    const scope = { tenant: call.principal.tenant, environment: call.principal.environment };
    await this.stage(trail, 'egress', () =>
      checkEgress(
        {
          kinds: this.#deps.connectors,
          rules: this.#deps.egressRules,
          logger: this.#deps.logger,
          ...(this.#deps.resolveHost === undefined ? {} : { resolveHost: this.#deps.resolveHost }),
        },
        descriptor,
        scope,
      ),
    );
    const credentials: CredentialResolver = await this.stage(trail, 'credential', () =>
      resolveCredential(
        {
          credentials: this.#deps.credentials,
          namespaces: this.#deps.credentialNamespaces,
          logger: this.#deps.logger,
        },
        descriptor,
        scope,
      ),
    );
    const compiled = await this.stage(trail, 'compile', () => this.#compile(connector, call));
    const upstream = await this.stage(trail, 'execute', () =>
      executeCall(connector, compiled, {
        descriptor,
        credentials,
        deadline: trail.deadline,
        egress: egressGuard(this.#deps.egressRules, scope),
      }),
    );
    trail.upstreamStatus = upstream.status;
    answered?.({ status: upstream.status, body: upstream.body });
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

/** Operation classes by resource version: the kind says which operations write. */
const classes = new WeakMap<object, Map<string, string>>();

export function operationClass(
  connectors: ConnectorRegistry,
  descriptor: PublishedResource['descriptor'],
  operation: string,
): string {
  let byName = classes.get(descriptor);
  if (byName === undefined) {
    const operations = connectors.get(descriptor.spec.type).operations(descriptor);
    byName = new Map(operations.map((o) => [o.name, o.class]));
    classes.set(descriptor, byName);
  }
  // An operation the kind does not list is treated as a write: idempotency never skipped.
  return byName.get(operation) ?? 'write';
}

/** Refused before running: authentication or resolution failed, or policy said no. */
function isDenial(trail: CallTrail, error: TollgateError): boolean {
  if (trail.pollable) return false;
  if (trail.stage === 'authenticate' || trail.stage === 'resolve') return true;
  return trail.stage === 'decide' && DENIALS.has(error.code);
}
