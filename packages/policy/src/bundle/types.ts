import type { EntityJson } from '@cedar-policy/cedar-wasm/nodejs';
import type { ErrorDetail, OperationClass } from '@tollgate/core';
import type { ActionGroup } from '../model/actions.js';
import type { ZoneKey } from '../model/clock.js';

/** The document format tag every bundle carries. */
export const BUNDLE_FORMAT = 'tollgate.policy-bundle/v2';

/** One operation of a resource, as its kind declared it when the bundle was compiled. */
export interface BundleOperation {
  name: string;
  /** Cedar action id. */
  action: string;
  class: OperationClass;
  /** Takes a `limit` (the permission set's cap is computed on it). */
  limited?: boolean;
}

/**
 * One Cedar action of the bundle and the groups it belongs to. An action in `read` is a read on
 * every resource declaring it; one that changes data anywhere is in `change` (and `destroy`
 * when destructive anywhere): raw Cedar permitting `read` never reaches a write, and raw Cedar
 * forbidding `change` reaches every write.
 */
export interface BundleAction {
  id: string;
  groups: ActionGroup[];
}

/** What a policy does when it matches. Cedar `forbid` is `deny`; permits are `allow` or `require_approval`. */
export type PolicyEffect = 'allow' | 'deny' | 'require_approval';

/**
 * Where a policy comes from, which decides the agent-visible reason when it decides a call:
 * the built-in guards (`tenant`, `environment`, `readonly`, `limit`, `field`), a resource's
 * `access` block (`access`, `field_roles`), a Policy's grants (`grant`) or its raw Cedar (`cedar`).
 */
export type PolicyKind =
  | 'tenant'
  | 'environment'
  | 'readonly'
  | 'limit'
  | 'field'
  | 'access'
  | 'field_roles'
  | 'grant'
  | 'cedar';

/** A grant's conditions after validation; kept so a denial can name the restriction that failed. */
export interface CompiledConditions {
  /** Normalised CIDRs. */
  ipCidr?: string[];
  timeWindow?: { start: number; end: number; zone: string };
  environment?: string[];
}

/** Who and what a compiled grant applies to. */
export interface GrantScope {
  principals: { roles: string[]; agents: string[] };
  /** `<resource>.<operation>` patterns, `*` for a whole segment. */
  actions: string[];
  conditions?: CompiledConditions;
}

/** One Cedar policy of a bundle and its Tollgate metadata. */
export interface CompiledPolicy {
  /** Stable id: `tollgate/…`, `resource/<name>/…`, `policy/<name>/grant/<i>`, `policy/<name>/cedar/<i>`. */
  id: string;
  effect: PolicyEffect;
  kind: PolicyKind;
  /** `tollgate`, `Resource/<name>` or `Policy/<name>`. */
  source: string;
  /** Resources it can apply to; absent means any. */
  resources?: string[];
  /**
   * Cedar actions it can apply to (operations' actions, `view_field`, `filter_field`); absent
   * means any. The decider preparses one policy set per resource × action from these.
   */
  actions?: string[];
  /** For `grant` policies. */
  grant?: GrantScope;
  /** Cedar text, annotated with `@id` and `@tollgate_effect`. */
  cedar: string;
}

/** A rate limit one grant sets for each matching principal × tool. */
export interface BundleRateLimit {
  policyId: string;
  principals: { roles: string[]; agents: string[] };
  actions: string[];
  requests: number;
  perSeconds: number;
}

/**
 * Everything a decider needs for one tenant, as one JSON document: Cedar schema, policies,
 * entities, and the metadata Cedar cannot hold (policy effects and kinds, time zones, rate
 * limits). `hash` is `sha256:<hex>` of the canonical JSON of every other member, so identical
 * inputs give identical bundles and a damaged one is detected.
 */
export interface PolicyBundle {
  format: typeof BUNDLE_FORMAT;
  tenant: string;
  /** Increases with every policy, agent or resource change of the tenant. */
  version: number;
  /** Cedar schema text. */
  schema: string;
  /** Every Cedar action the schema declares for operations, sorted by id. */
  actions: BundleAction[];
  /** Each resource's operations, in its kind's order. */
  operations: Record<string, BundleOperation[]>;
  /**
   * Per resource, its redacted fields whose rule exempts roles, by those roles: a principal
   * holding one sees the field as stored (`unredactedFields` of its permission set).
   */
  redactionExemptions: Record<string, Record<string, string[]>>;
  /** Zones whose local clocks the decider puts under `context.clock`. */
  zones: ZoneKey[];
  /** Sorted by id. */
  policies: CompiledPolicy[];
  /** Cedar entities: Tenant, Roles, Agents, Resources, Fields; sorted by type and id. */
  entities: EntityJson[];
  rateLimits: BundleRateLimit[];
  hash: string;
}

/** One reason a bundle (or a piece of raw Cedar) was rejected. */
export interface PolicyProblem extends ErrorDetail {
  /** 1-based, within the raw Cedar text, when the problem is in one. */
  line?: number;
  column?: number;
}

/** Result of compiling a tenant's descriptors. */
export type BundleCompilation =
  { ok: true; bundle: PolicyBundle } | { ok: false; problems: PolicyProblem[] };
