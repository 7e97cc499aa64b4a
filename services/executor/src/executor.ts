import { CallStatus } from '@tollgate/contracts/call/v1';
import type { CallRequest, CallResult } from '@tollgate/contracts/call/v1';
import type { Approval } from '@tollgate/contracts/policy/v1';
import { TollgateError, ToolValidatorCache } from '@tollgate/core';
import type {
  ConnectorRegistry,
  CredentialNamespaces,
  CredentialResolver,
  EgressRules,
  Principal,
} from '@tollgate/core';
import { publishEnvelope } from '@tollgate/kit';
import type {
  AddressLookup,
  EventPublisher,
  Logger,
  MemoryProjection,
  ResourceCatalog,
} from '@tollgate/kit';
import { STALE_MARGIN_MS, settleApproval } from './approvals.js';
import { CALL_ID, deadlineOf, traceIdOf } from './call-trail.js';
import type { CallTrail } from './call-trail.js';
import { parkedCallOf } from './pipeline/approval.js';
import { approvalRequest, approvalRequestedEvent, completedEvent } from './pipeline/audit-event.js';
import type { Authenticator } from './pipeline/authenticate.js';
import { decideCall, denialError, policyPrincipal } from './pipeline/decide.js';
import type { Verdict } from './pipeline/decide.js';
import type { PolicyDeciders } from './state/deciders.js';
import type { IdempotencyStore } from './state/idempotency.js';
import type { RateLimiter } from './state/rate-limits.js';
import { refuseOversizedArguments } from './pipeline/argument-shape.js';
import { applyDefaultFields } from './pipeline/default-fields.js';
import { acceptedResult, errorResult, pendingResult } from './pipeline/reply.js';
import { resolveResource } from './pipeline/resolve.js';
import {
  SavedQueryParameters,
  findSavedQuery,
  isSavedQueryCall,
  validateSavedQueryCall,
} from './pipeline/saved-query.js';
import { operationOf, resourceOperations, validateCall } from './pipeline/validate.js';
import { CallRunner, operationClass } from './runner.js';
import type { ApprovedCall, CompletionNotify } from './runner.js';
import type { CallResults, StoredResult } from './state/call-results.js';
import type { ParkedCalls } from './state/parked-calls.js';

/** The executor's tunables (see config.ts for their variables and defaults). */
export interface ExecutorSettings {
  /** Key sealing pagination cursors; the same on every instance. */
  cursorKey: string;
  defaultCallTimeoutMs: number;
  maxCallTimeoutMs: number;
  /** Answer `accepted` after this long (0: never). */
  acceptAfterMs: number;
  /**
   * How long past its deadline an accepted call still showing `accepted` (its executor died, or
   * could not record the outcome) or a claimed approval is settled as unknown (default 60 s).
   */
  staleMarginMs?: number;
  maxResultBytes: number;
  approvalTtlMs: number;
}

/** What an executor is built from; tests construct it with real clients. */
export interface ExecutorDeps {
  authenticator: Authenticator;
  resources: ResourceCatalog;
  deciders: PolicyDeciders;
  /** Saved queries and preferred fields (the memory bucket), hot-reloaded. */
  memory: MemoryProjection;
  connectors: ConnectorRegistry;
  credentials: CredentialResolver;
  /** Which credential references each tenant's resources may name (checked before resolving). */
  credentialNamespaces: CredentialNamespaces;
  /** Which destinations each tenant's resources may connect to (checked before connecting). */
  egressRules: EgressRules;
  /** How endpoint host names are resolved for that check (default: the system's resolver). */
  resolveHost?: AddressLookup;
  events: EventPublisher;
  /** Tells the calling principal of each stored `call.completed` (its own inbox; optional). */
  notify?: CompletionNotify;
  idempotency: IdempotencyStore;
  rateLimits: RateLimiter;
  parked: ParkedCalls;
  results: CallResults;
  logger: Logger;
  settings: ExecutorSettings;
  /** Compiled tool validators; one per executor by default. */
  validators?: ToolValidatorCache;
  clock?: () => number;
}

/** Transport facts about one call request. */
export interface CallInput {
  /** The `authorization` header, as sent. */
  authorization: string | undefined;
  /** Resource kind and name from the subject `tollgate.v1.call.<kind>.<resource>`. */
  kind: string;
  resource: string;
  /** Epoch ms the request arrived. */
  receivedAt: number;
  /** The caller's W3C `traceparent`, for the trace id when no tracer is running here. */
  traceparent?: string;
  /** Receives the call's stage timings (ms) once it is answered, for the transport's log line. */
  timings?: (timings: CallTrail['timings']) => void;
}

/**
 * Turns a tool call into at most one controlled upstream query: authenticate → resolve →
 * (expand a saved query) → decide → (rate limit) → validate → approval → idempotency → credential → compile → execute →
 * shape → record → answer. Transport-free: `api.ts` feeds it NATS messages.
 */
export class Executor {
  readonly #deps: ExecutorDeps;
  readonly #runner: CallRunner;
  readonly #validators: ToolValidatorCache;
  readonly #parameters = new SavedQueryParameters();
  readonly #clock: () => number;

  constructor(deps: ExecutorDeps) {
    this.#deps = deps;
    this.#clock = deps.clock ?? Date.now;
    this.#validators = deps.validators ?? new ToolValidatorCache({ kinds: deps.connectors });
    this.#runner = new CallRunner({
      connectors: deps.connectors,
      credentials: deps.credentials,
      credentialNamespaces: deps.credentialNamespaces,
      egressRules: deps.egressRules,
      ...(deps.resolveHost ? { resolveHost: deps.resolveHost } : {}),
      events: deps.events,
      ...(deps.notify ? { notify: deps.notify } : {}),
      idempotency: deps.idempotency,
      results: deps.results,
      logger: deps.logger,
      clock: this.#clock,
      cursorKey: deps.settings.cursorKey,
      maxResultBytes: deps.settings.maxResultBytes,
    });
  }

  /**
   * Handles one call and resolves with the answer to send, once what the audit trail needs
   * before it is stored (`CallRunner.record`).
   * A call still running after `acceptAfterMs` is answered `accepted` and finishes with an event.
   */
  async call(request: CallRequest, input: CallInput): Promise<CallResult> {
    const trail = this.#trailOf(request, input);
    const finished = this.#runner
      .runAndRecord(trail, () => this.#pipeline(trail, request, input))
      .then((recorded) => {
        input.timings?.(trail.timings);
        return recorded.result;
      });
    const wait = this.#deps.settings.acceptAfterMs;
    if (wait <= 0 || trail.budgetMs <= wait) return finished;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), wait);
    });
    const first = await Promise.race([finished, late]);
    clearTimeout(timer);
    if (first !== 'late' || trail.phase !== 'running') return finished;
    trail.phase = 'accepted';
    trail.pollable = true;
    const acceptance = this.#accept(trail);
    trail.acceptance = acceptance.catch(() => undefined);
    return acceptance;
  }

  /** What `call_result` answers: the stored result of a parked or accepted call of the caller. */
  async poll(callId: string, authorization: string | undefined): Promise<CallResult> {
    const principal = await this.#deps.authenticator.authenticate(authorization);
    const stored = CALL_ID.test(callId)
      ? await this.#deps.results.get(callId, principal)
      : undefined;
    if (stored === undefined) {
      throw new TollgateError(
        'NOT_FOUND',
        `No call ${JSON.stringify(callId.slice(0, 64))} of yours is waiting or finished here; only parked and accepted calls are kept, for 24 h.`,
      );
    }
    const margin = this.#deps.settings.staleMarginMs ?? STALE_MARGIN_MS;
    if (
      stored.result.status === CallStatus.ACCEPTED &&
      stored.accepted !== undefined &&
      this.#clock() > stored.accepted.deadline + margin
    )
      return this.#settleAbandoned(stored as Required<StoredResult>, principal);
    return stored.result;
  }

  /**
   * An accepted call still showing `accepted` long past its deadline: the executor running it
   * died, or could not store the outcome. No executor runs a call past its deadline, so it is
   * settled here — outcome unknown, in the audit trail and for the next poll — instead of
   * answering `accepted` until the result expires. Any instance may do it; two at once record
   * the same outcome, which audit stores once.
   */
  async #settleAbandoned(
    stored: Required<StoredResult>,
    principal: Principal,
  ): Promise<CallResult> {
    const { result, accepted } = stored;
    const now = this.#clock();
    const trail: CallTrail = {
      callId: result.callId,
      sessionId: accepted.sessionId,
      requestedTool: accepted.tool,
      arguments: {},
      idempotencyKey: '',
      startedAt: now,
      budgetMs: 0,
      deadline: now,
      stage: 'reply',
      phase: 'finishing',
      traceId: accepted.traceId,
      principal,
      pollable: true,
      timings: {},
    };
    const unknown =
      accepted.operationClass !== 'read'
        ? new TollgateError(
            'WRITE_OUTCOME_UNKNOWN',
            'The executor running this call stopped before it finished; the write may or may not have been applied. Check before writing again, or retry with the same idempotency key.',
          )
        : new TollgateError(
            'INTERNAL',
            'The executor running this call stopped before it finished; call again.',
          );
    const final = errorResult(trail, unknown, now);
    const recorded = await this.#runner.record(trail, final, 'completed');
    return recorded.result;
  }

  /** Resolves once every answered call's `call.completed` is stored (or given up); for shutdown. */
  settled(): Promise<void> {
    return this.#runner.settled();
  }

  /** Handles an `approval.decided` event; 'retry' asks for redelivery. */
  settleApproval(approval: Approval): Promise<'ack' | 'retry'> {
    return settleApproval(approval, {
      ...this.#deps,
      runner: this.#runner,
      validators: this.#validators,
      clock: this.#clock,
    });
  }

  async #pipeline(trail: CallTrail, request: CallRequest, input: CallInput): Promise<CallResult> {
    const { authenticator, resources, deciders, rateLimits, memory } = this.#deps;
    const run = this.#runner;
    const principal = await run.stage(trail, 'authenticate', () =>
      authenticator.authenticate(input.authorization),
    );
    trail.principal = principal;
    const resource = await run.stage(trail, 'resolve', () =>
      resolveResource(resources, principal, input.kind, input.resource),
    );
    trail.resource = resource;
    // Arguments beyond any tool's shape are refused before anything validates them in full.
    await run.stage(trail, 'validate', () => refuseOversizedArguments(trail.arguments));
    // A saved query becomes its base-tool call here, so everything after sees that call.
    const operations = resourceOperations(this.#deps.connectors, resource);
    const saved = isSavedQueryCall(resource, operations.offered, trail.requestedTool)
      ? await run.stage(trail, 'expand', () => {
          const found = findSavedQuery(
            memory,
            principal,
            resource,
            operations.offered,
            trail.requestedTool,
          );
          trail.savedQuery = found.use;
          trail.operation = found.operation;
          trail.expanded = this.#parameters.expand(found, resource, trail.arguments);
          return found;
        })
      : undefined;
    const args = trail.expanded ?? trail.arguments;
    const verdict: Verdict = await run.stage(trail, 'decide', () => {
      trail.operation ??= operationOf(resource, operations, trail.requestedTool);
      const decided = decideCall(
        deciders,
        principal,
        resource,
        trail.operation,
        args,
        this.#clock(),
      );
      trail.decision = decided.decision;
      if (decided.decision.decision === 'deny') throw denialError(decided.decision);
      return decided;
    });
    const operation = trail.operation!;
    const baseTool = saved?.query.tool ?? trail.requestedTool;
    const limits = verdict.decider?.rateLimitsFor(policyPrincipal(principal), baseTool) ?? [];
    if (limits.length > 0) await run.stage(trail, 'rate_limit', () => rateLimits.admit(limits));
    const validated = await run.stage(trail, 'validate', () => {
      if (saved === undefined) {
        return validateCall(
          this.#validators,
          resource,
          verdict.permissions,
          trail.requestedTool,
          request.toolVersion,
          args,
        );
      }
      const checked = validateSavedQueryCall(
        this.#validators,
        resource,
        verdict.permissions,
        saved,
        request.toolVersion,
        args,
      );
      saved.use.toolVersion = checked.narrow.version;
      return checked;
    });
    trail.tool = validated.tool;
    const defaulted = applyDefaultFields(
      memory,
      principal,
      operation,
      validated.tool,
      validated.args,
    );
    trail.args = defaulted.args;
    if (defaulted.defaulted.length > 0) trail.defaultFields = defaulted.defaulted;
    const call: ApprovedCall = {
      principal,
      resource,
      permissions: verdict.permissions,
      operation,
      args: defaulted.args,
    };
    await run.stage(trail, 'validate', () => run.requireIdempotencyKey(trail, call));
    if (verdict.decision.decision === 'require_approval') {
      return run.stage(trail, 'approval', () => this.#park(trail, call, verdict));
    }
    return run.perform(trail, call);
  }

  /** Parks a call that needs a person's approval and tells the policy service about it. */
  async #park(trail: CallTrail, call: ApprovedCall, verdict: Verdict): Promise<CallResult> {
    const now = this.#clock();
    const parked = parkedCallOf({
      callId: trail.callId,
      sessionId: trail.sessionId,
      principal: call.principal,
      resource: call.resource,
      tool: trail.tool!,
      operation: call.operation,
      args: call.args,
      decision: verdict.decision,
      idempotencyKey: trail.idempotencyKey,
      budgetMs: trail.budgetMs,
      now,
      ttlMs: this.#deps.settings.approvalTtlMs,
      traceId: trail.traceId,
      ...(trail.savedQuery ? { savedQuery: trail.savedQuery } : {}),
    });
    if (!(await this.#deps.parked.park(parked))) {
      throw new TollgateError(
        'INVALID_ARGUMENT',
        'This call_id was already used; send a fresh one.',
        {
          details: [{ path: 'call_id', message: 'already used', found: trail.callId }],
        },
      );
    }
    trail.approvalId = parked.approvalId;
    trail.pollable = true;
    const approval = approvalRequest(trail, {
      id: parked.approvalId,
      bindingHash: parked.bindingHash,
      requestedAt: parked.requestedAt,
      expiresAt: parked.expiresAt,
    });
    await publishEnvelope(this.#deps.events, approvalRequestedEvent(trail, approval));
    return pendingResult(trail, parked.approvalId, now);
  }

  /** Records and answers `accepted`; the final result follows as an event and for polling. */
  async #accept(trail: CallTrail): Promise<CallResult> {
    const result = acceptedResult(trail, this.#clock());
    try {
      const event = completedEvent(trail, result);
      await publishEnvelope(this.#deps.events, event);
      if (trail.principal !== undefined) this.#deps.notify?.(trail.principal, event);
      if (trail.principal !== undefined)
        await this.#deps.results.put(trail.principal, result, {
          deadline: trail.deadline,
          operationClass:
            trail.resource !== undefined && trail.operation !== undefined
              ? operationClass(this.#deps.connectors, trail.resource.descriptor, trail.operation)
              : 'write',
          sessionId: trail.sessionId,
          tool: trail.requestedTool,
          traceId: trail.traceId,
        });
      return result;
    } catch {
      const withheld = new TollgateError(
        'INTERNAL',
        'The call is still running but could not be recorded as accepted; poll call_result for its outcome.',
      );
      return errorResult(trail, withheld, this.#clock());
    }
  }

  #trailOf(request: CallRequest, input: CallInput): CallTrail {
    const { defaultCallTimeoutMs, maxCallTimeoutMs } = this.#deps.settings;
    const budgetMs = Math.min(
      request.timeoutMs > 0 ? request.timeoutMs : defaultCallTimeoutMs,
      maxCallTimeoutMs,
    );
    return {
      callId: request.callId,
      sessionId: request.sessionId.slice(0, 128),
      requestedTool: request.tool,
      arguments: request.arguments ?? {},
      idempotencyKey: request.idempotencyKey,
      startedAt: input.receivedAt,
      budgetMs,
      deadline: deadlineOf(input.receivedAt, budgetMs),
      stage: 'authenticate',
      phase: 'running',
      traceId: traceIdOf(input.traceparent),
      timings: {},
    };
  }
}
