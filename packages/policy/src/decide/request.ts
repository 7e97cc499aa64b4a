import type { Context, EntityJson } from '@cedar-policy/cedar-wasm/nodejs';
import { isOperationName } from '@tollgate/core';
import type { Operation } from '@tollgate/core';
import { normalizeSourceIp } from '../model/ip.js';
import type { ZoneClock } from '../model/clock.js';
import type {
  AgentView,
  LoadedBundle,
  PolicySetView,
  ResourceView,
  SetReads,
} from './loaded-bundle.js';
import type { CallContext, Principal } from './types.js';

/** A request whose every input has been checked; the decider builds Cedar input from it. */
export interface DecisionRequest {
  tenant: string;
  agent: string;
  environment: string;
  user?: string;
  action: Operation;
  resource: string;
  /** Normalised for Cedar. */
  sourceIp?: string;
  now: number;
  limit?: number;
}

/** A request that passed every check before Cedar, with what it resolved to. */
export interface Admitted {
  loaded: LoadedBundle;
  request: DecisionRequest;
  agent: AgentView;
  resource: ResourceView;
  set: PolicySetView;
}

const CONTEXT_KEYS = ['sourceIp', 'now', 'limit'];
const PRINCIPAL_KEYS = ['tenant', 'agent', 'environment', 'user', 'roles'];

/** Checks the principal alone (permission sets need no action or context). */
export function checkPrincipal(
  principal: unknown,
): Pick<DecisionRequest, 'tenant' | 'agent' | 'environment' | 'user'> | string {
  if (typeof principal !== 'object' || principal === null) return 'principal is missing';
  const p = principal as Record<string, unknown>;
  const unknown = Object.keys(p).find((k) => !PRINCIPAL_KEYS.includes(k));
  if (unknown) return `principal.${unknown} is not a known attribute`;
  for (const key of ['tenant', 'agent', 'environment'] as const) {
    if (typeof p[key] !== 'string' || p[key] === '') return `principal.${key} is required`;
  }
  if (p.user !== undefined && (typeof p.user !== 'string' || p.user === ''))
    return 'principal.user must be a non-empty string';
  return {
    tenant: p.tenant as string,
    agent: p.agent as string,
    environment: p.environment as string,
    ...(p.user !== undefined ? { user: p.user as string } : {}),
  };
}

/** Checks a decision request; returns what is wrong, in words an agent can act on. */
export function checkRequest(
  principal: Principal,
  action: unknown,
  resource: unknown,
  context: CallContext | undefined,
  clock: () => number,
): DecisionRequest | string {
  const who = checkPrincipal(principal);
  if (typeof who === 'string') return who;
  if (!isOperationName(action)) return `action ${quote(action)} is not an operation`;
  if (typeof resource !== 'string' || resource === '') return 'resource is required';
  const ctx = (context ?? {}) as Record<string, unknown>;
  if (typeof ctx !== 'object' || ctx === null) return 'context must be an object';
  const unknown = Object.keys(ctx).find((k) => !CONTEXT_KEYS.includes(k));
  if (unknown) return `context.${unknown} is not a known attribute`;

  const request: DecisionRequest = { ...who, action, resource, now: clock() };
  if (ctx.sourceIp !== undefined) {
    const ip = typeof ctx.sourceIp === 'string' ? normalizeSourceIp(ctx.sourceIp) : undefined;
    if (ip === undefined) return `context.sourceIp ${quote(ctx.sourceIp)} is not an IP address`;
    request.sourceIp = ip;
  }
  if (ctx.now !== undefined) {
    const now = ctx.now instanceof Date ? ctx.now.getTime() : ctx.now;
    if (typeof now !== 'number' || !Number.isFinite(now)) return 'context.now must be a valid time';
    request.now = now;
  }
  if (ctx.limit !== undefined) {
    if (!Number.isSafeInteger(ctx.limit) || (ctx.limit as number) < 1)
      return 'context.limit must be a positive whole number';
    request.limit = ctx.limit as number;
  }
  return request;
}

/**
 * The Cedar context for a checked request, with only what the policy set reads: Cedar's cost
 * grows with its input, and an attribute no policy mentions cannot change the outcome.
 */
export function cedarContext(request: DecisionRequest, clock: ZoneClock, reads: SetReads): Context {
  const context: Context = { tenant: request.tenant, environment: request.environment };
  if (reads.clock) context.clock = clock.read(request.now);
  if (reads.sourceIp && request.sourceIp !== undefined)
    context.sourceIp = { __extn: { fn: 'ip', arg: request.sourceIp } };
  if (reads.limit && request.limit !== undefined) context.limit = request.limit;
  if (reads.user && request.user !== undefined)
    context.user = { __entity: { type: 'User', id: request.user } };
  return context;
}

/** The request's action as an entity in its groups, for sets that test a group. */
export function actionEntity(action: string, reads: SetReads, loaded: LoadedBundle): EntityJson[] {
  if (!reads.actionGroup) return [];
  const parents = (loaded.actions.get(action)?.groups ?? []).map((id) => ({ type: 'Action', id }));
  return [{ uid: { type: 'Action', id: action }, attrs: {}, parents }];
}

function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}
