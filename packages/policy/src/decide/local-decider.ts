import type { Context, EntityJson } from '@cedar-policy/cedar-wasm/nodejs';
import type { Operation } from '@tollgate/core';
import { parseBundle } from '../bundle/parse.js';
import type { PolicyBundle } from '../bundle/types.js';
import { DecisionCache } from './decision-cache.js';
import { cedarWasmEngine } from './engine.js';
import type { CedarEngine } from './engine.js';
import { tracePolicies } from './explain.js';
import { loadBundle, preparedSet } from './loaded-bundle.js';
import type { LoadedBundle } from './loaded-bundle.js';
import { EvaluationFailure, computePermissions, noPermissions } from './permissions.js';
import { applicableRateLimits } from './rate-limits.js';
import { denied, interpretResponse, unavailable } from './reasons.js';
import { actionEntity, cedarContext, checkPrincipal, checkRequest } from './request.js';
import type { Admitted } from './request.js';
import type {
  ApplicableRateLimit,
  CallContext,
  DecisionTrace,
  OfferedPermissions,
  PolicyDecision,
  Principal,
} from './types.js';

/** How a decider is built. */
export interface DeciderOptions {
  /** Cedar implementation; defaults to `@cedar-policy/cedar-wasm`. */
  engine?: CedarEngine;
  /** Decisions remembered per loaded bundle, keyed by the exact Cedar input (0 disables). Default 10 000. */
  cacheSize?: number;
  /** Current time, epoch ms; defaults to `Date.now`. */
  clock?: () => number;
}

/** Outcome of `load`. A stale or foreign bundle is refused and the current one kept. */
export type LoadResult =
  { ok: true; version: number; hash: string } | { ok: false; reason: string; kept: boolean };

/** What the decider is deciding with. */
export type DeciderStatus =
  | { state: 'empty' }
  | { state: 'ready'; tenant: string; version: number; hash: string }
  | { state: 'failed'; reason: string };

type State =
  { kind: 'empty' } | { kind: 'ready'; loaded: LoadedBundle } | { kind: 'failed'; reason: string };

let deciders = 0;

/**
 * Decides calls locally from a policy bundle, with no network hop; executors and the
 * synthesizer embed one per tenant. Fails closed: with no bundle, after a corrupt one, or when
 * Cedar cannot evaluate, every call is denied with POLICY_UNAVAILABLE. Decisions are frozen
 * objects and may be shared between callers.
 */
export class LocalDecider {
  private state: State = { kind: 'empty' };
  private readonly engine: CedarEngine;
  private readonly cacheSize: number;
  private readonly clock: () => number;
  private readonly namespace = `tollgate-decider-${++deciders}`;
  private decisions: DecisionCache;
  private permissions = new Map<string, OfferedPermissions>();

  constructor(options: DeciderOptions = {}) {
    this.engine = options.engine ?? cedarWasmEngine;
    this.cacheSize = options.cacheSize ?? 10_000;
    this.clock = options.clock ?? Date.now;
    this.decisions = new DecisionCache(this.cacheSize);
  }

  /** A decider loaded with `bundle`; if the bundle is unusable the decider denies everything. */
  static fromBundle(
    bundle: PolicyBundle | Uint8Array | string,
    options: DeciderOptions = {},
  ): LocalDecider {
    const decider = new LocalDecider(options);
    decider.load(bundle);
    return decider;
  }

  /**
   * Replaces the bundle. A corrupt bundle (bad JSON, wrong shape, hash mismatch, Cedar that does
   * not parse) leaves the decider failed — denying everything — since the policy it was meant
   * to replace is known to be outdated. An older version, or another tenant's bundle, is
   * refused and the current bundle kept.
   */
  load(input: PolicyBundle | Uint8Array | string): LoadResult {
    const parsed = parseBundle(input);
    if (!parsed.ok) return this.fail(parsed.reason);
    const bundle = parsed.bundle;
    const current = this.state.kind === 'ready' ? this.state.loaded.bundle : undefined;
    if (current && bundle.tenant !== current.tenant) {
      return {
        ok: false,
        kept: true,
        reason: `bundle is for tenant "${bundle.tenant}"; this decider serves "${current.tenant}"`,
      };
    }
    if (current && bundle.version < current.version) {
      return {
        ok: false,
        kept: true,
        reason: `bundle version ${bundle.version} is older than the loaded ${current.version}`,
      };
    }
    if (current && bundle.hash === current.hash)
      return { ok: true, version: bundle.version, hash: bundle.hash };
    let loaded: LoadedBundle | string;
    try {
      loaded = loadBundle(bundle, this.engine, this.namespace);
    } catch (err) {
      loaded = `policy engine failed while loading: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (typeof loaded === 'string') return this.fail(loaded);
    this.state = { kind: 'ready', loaded };
    this.decisions = new DecisionCache(this.cacheSize);
    this.permissions = new Map();
    return { ok: true, version: bundle.version, hash: bundle.hash };
  }

  status(): DeciderStatus {
    if (this.state.kind === 'empty') return { state: 'empty' };
    if (this.state.kind === 'failed') return { state: 'failed', reason: this.state.reason };
    const { tenant, version, hash } = this.state.loaded.bundle;
    return { state: 'ready', tenant, version, hash };
  }

  /** Decides one call: allow, deny or require_approval, with the deciding policy ids and a reason. */
  decide(
    principal: Principal,
    action: Operation,
    resource: string,
    context?: CallContext,
  ): PolicyDecision {
    const admitted = this.admit(principal, action, resource, context);
    if (!('request' in admitted)) return admitted;
    const key = this.decisions.key(admitted);
    const cached = this.decisions.get(key);
    if (cached) return cached;
    const decision = Object.freeze(this.evaluate(admitted).decision);
    Object.freeze(decision.policyIds);
    if (decision.errorCode !== 'POLICY_UNAVAILABLE') this.decisions.set(key, decision);
    return decision;
  }

  /** The operator view of `decide`: context and entities given to Cedar, every policy considered, errors. */
  explain(
    principal: Principal,
    action: Operation,
    resource: string,
    context?: CallContext,
  ): DecisionTrace {
    const admitted = this.admit(principal, action, resource, context);
    const bundle = this.state.kind === 'ready' ? this.state.loaded.bundle : undefined;
    const base = {
      ...(bundle
        ? { bundle: { tenant: bundle.tenant, version: bundle.version, hash: bundle.hash } }
        : {}),
      request: { principal, action, resource },
    };
    if (!('request' in admitted)) {
      const errors = this.state.kind === 'failed' ? [this.state.reason] : [];
      return { ...base, decision: admitted, policies: [], determining: [], errors };
    }
    const { decision, context: cedar, entities, error } = this.evaluate(admitted);
    const traced = tracePolicies({
      ...admitted,
      engine: this.engine,
      context: cedar,
      entities,
      decision,
    });
    return {
      ...base,
      request: {
        ...base.request,
        roles: admitted.agent.roles,
        resourceVersion: admitted.resource.version,
      },
      decision,
      context: cedar,
      entities,
      ...traced,
      errors: error ? [error, ...traced.errors] : traced.errors,
    };
  }

  /** What `principal` may do on `resource`: the projection tool synthesis uses and executors enforce. */
  permissionSet(principal: Principal, resource: string): OfferedPermissions {
    if (this.state.kind !== 'ready')
      return noPermissions(
        this.state.kind === 'failed' ? this.state.reason : 'no policy bundle loaded',
      );
    const loaded = this.state.loaded;
    const who = checkPrincipal(principal);
    if (typeof who === 'string' || who.tenant !== loaded.bundle.tenant) return noPermissions();
    const agent = loaded.agents.get(who.agent);
    const view = loaded.resources.get(resource);
    if (!agent || !view) return noPermissions();
    const key = [who.agent, resource, who.environment, who.user ?? ''].join('\u0000');
    const cached = this.permissions.get(key);
    if (cached) return cached;
    try {
      const permissions = computePermissions(loaded, this.engine, {
        who,
        agent,
        resource: view,
        now: this.clock(),
      });
      this.permissions.set(key, permissions);
      return permissions;
    } catch (err) {
      const reason = err instanceof EvaluationFailure ? err.message : 'policy engine failed';
      return noPermissions(`policy evaluation failed: ${reason}`);
    }
  }

  /** Rate limits that apply to `principal` calling `tool` (`es_orders_search` or `es_orders.search`). */
  rateLimitsFor(principal: Principal, tool: string): ApplicableRateLimit[] {
    return this.state.kind === 'ready'
      ? applicableRateLimits(this.state.loaded, principal, tool)
      : [];
  }

  private fail(reason: string): LoadResult {
    this.state = { kind: 'failed', reason };
    this.decisions = new DecisionCache(this.cacheSize);
    this.permissions = new Map();
    return { ok: false, kept: false, reason };
  }

  /** Every check before Cedar; returns the denial when one fails. */
  private admit(
    principal: Principal,
    action: Operation,
    resource: string,
    context: CallContext | undefined,
  ): Admitted | PolicyDecision {
    if (this.state.kind === 'empty') return unavailable('no policy bundle loaded');
    if (this.state.kind === 'failed') return unavailable('the policy bundle could not be loaded');
    const loaded = this.state.loaded;
    const version = loaded.bundle.version;
    const request = checkRequest(principal, action, resource, context, this.clock);
    if (typeof request === 'string') return denied(`malformed request: ${request}`, version);
    if (request.tenant !== loaded.bundle.tenant) {
      return denied('principal and resource belong to different tenants', version, [
        'tollgate/tenant-isolation',
      ]);
    }
    const agent = loaded.agents.get(request.agent);
    if (!agent)
      return denied(`unknown agent: "${request.agent}" is not declared in this tenant`, version);
    const view = loaded.resources.get(request.resource);
    if (!view)
      return denied(
        `unknown resource: "${request.resource}" is not declared in this tenant`,
        version,
      );
    // The caller names the operation; Cedar is asked about the action its kind declared for it
    // (an operation the resource does not offer is asked as the bundle action of that name).
    const cedarAction =
      view.operations.find((op) => op.name === request.action)?.action ??
      (loaded.actions.has(request.action) ? request.action : undefined);
    const set = cedarAction === undefined ? undefined : view.sets.get(cedarAction);
    if (cedarAction === undefined || !set)
      return denied(
        `unknown operation: "${request.resource}" has no operation "${request.action}"`,
        version,
      );
    request.action = cedarAction;
    const unprepared = preparedSet(this.engine, set);
    if (unprepared !== undefined) return unavailable('policy engine failed', version);
    return { loaded, request, agent, resource: view, set };
  }

  private evaluate({ loaded, request, agent, resource, set }: Admitted): {
    decision: PolicyDecision;
    context: Context;
    entities: EntityJson[];
    error?: string;
  } {
    const context = cedarContext(request, loaded.clock, set.reads);
    const entities = [
      agent.entity,
      resource.entity,
      ...actionEntity(request.action, set.reads, loaded),
    ];
    const version = loaded.bundle.version;
    try {
      const answer = this.engine.statefulIsAuthorized({
        principal: agent.entity.uid,
        action: { type: 'Action', id: request.action },
        resource: resource.entity.uid,
        context,
        entities,
        preparsedPolicySetId: set.id,
      });
      if (answer.type === 'failure') {
        const error = answer.errors.map((e) => e.message).join('; ');
        return {
          decision: unavailable('policy evaluation failed', version),
          context,
          entities,
          error,
        };
      }
      return {
        decision: interpretResponse(answer.response, loaded, request, agent, resource),
        context,
        entities,
      };
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      return { decision: unavailable('policy engine failed', version), context, entities, error };
    }
  }
}
