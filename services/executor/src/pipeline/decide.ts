import { TollgateError, narrowToDeclared } from '@tollgate/core';
import type { Operation, PermissionSet, Principal, PublishedResource } from '@tollgate/core';
import { watchBucket } from '@tollgate/kit';
import type { BucketWatch, KV, Logger } from '@tollgate/kit';
import { LocalDecider } from '@tollgate/policy';
import type {
  DeciderOptions,
  OfferedPermissions,
  PolicyDecision,
  Principal as PolicyPrincipal,
} from '@tollgate/policy';

/**
 * One local decider per tenant, loaded from the compiled bundles in `tollgate_policy_bundles`
 * (key `<tenant>`) and hot-reloaded on every change. A tenant without a bundle has no decider,
 * and a damaged bundle leaves its decider denying everything: either way calls fail closed.
 */
export class PolicyDeciders {
  readonly #deciders = new Map<string, LocalDecider>();
  readonly #logger: Logger;
  readonly #options: DeciderOptions;
  #watch: BucketWatch | undefined;

  constructor(logger: Logger, options: DeciderOptions = {}) {
    this.#logger = logger;
    this.#options = options;
  }

  /** Deciders following `kv`; resolves once the current bundles are loaded. */
  static async follow(kv: KV, logger: Logger, options?: DeciderOptions): Promise<PolicyDeciders> {
    const deciders = new PolicyDeciders(logger, options);
    deciders.#watch = await watchBucket(kv, (key, value) => deciders.apply(key, value), logger);
    await deciders.#watch.ready;
    return deciders;
  }

  /** Applies one KV entry (`value` undefined: the tenant's bundle was removed). */
  apply(tenant: string, value: Uint8Array | undefined): void {
    if (value === undefined) {
      this.#deciders.delete(tenant);
      this.#logger.warn({ tenant }, 'policy bundle removed; calls of this tenant are denied');
      return;
    }
    let decider = this.#deciders.get(tenant);
    if (decider === undefined) {
      decider = new LocalDecider(this.#options);
      this.#deciders.set(tenant, decider);
    }
    const loaded = decider.load(value);
    if (loaded.ok) {
      this.#logger.info({ tenant, version: loaded.version }, 'policy bundle loaded');
    } else if (loaded.kept) {
      this.#logger.warn(
        { tenant, reason: loaded.reason },
        'policy bundle refused; keeping the loaded one',
      );
    } else {
      this.#logger.error(
        { tenant, reason: loaded.reason },
        'policy bundle unusable; calls of this tenant are denied',
      );
    }
    const status = decider.status();
    if (status.state === 'ready' && status.tenant !== tenant) {
      this.#deciders.delete(tenant);
      this.#logger.error(
        { tenant, bundleTenant: status.tenant },
        'policy bundle stored under another tenant; ignored',
      );
    }
  }

  forTenant(tenant: string): LocalDecider | undefined {
    return this.#deciders.get(tenant);
  }

  stop(): void {
    this.#watch?.stop();
  }
}

/** The policy's answer for one call and what the principal may do on the resource. */
export interface Verdict {
  decision: PolicyDecision;
  /** Offered permissions, narrowed to the fields the current descriptor declares. */
  permissions: PermissionSet;
  /** The tenant's decider; absent when the tenant has no bundle. */
  decider: LocalDecider | undefined;
}

/**
 * Decides a call locally. The decider only knows the principal attributes it was built for,
 * so the token id is left out; the caller's address is unknown over NATS, so IP-restricted
 * grants do not allow. The `limit` a search asks for is part of the decision when it is within
 * the offered cap (a larger one fails validation with the cap named, which a model can fix).
 */
export function decideCall(
  deciders: PolicyDeciders,
  principal: Principal,
  resource: PublishedResource,
  operation: Operation,
  args: Record<string, unknown>,
  now: number,
): Verdict {
  const decider = deciders.forTenant(principal.tenant);
  const who = policyPrincipal(principal);
  if (decider === undefined) {
    const decision: PolicyDecision = {
      decision: 'deny',
      policyIds: [],
      reason: 'no policy is loaded for this tenant',
      errorCode: 'POLICY_UNAVAILABLE',
    };
    return { decision, permissions: noPermissions(), decider: undefined };
  }
  const offered = decider.permissionSet(who, resource.name);
  const permissions = narrowToDescriptor(offered, resource);
  const limit = args.limit;
  const withinCap =
    typeof limit === 'number' &&
    Number.isSafeInteger(limit) &&
    limit >= 1 &&
    limit <= permissions.limitCap;
  const decision = decider.decide(who, operation, resource.name, {
    now,
    ...(withinCap ? { limit } : {}),
  });
  return { decision, permissions, decider };
}

/** The principal as the decider takes it: the attributes it knows, nothing else. */
export function policyPrincipal(principal: Principal): PolicyPrincipal {
  return {
    tenant: principal.tenant,
    agent: principal.agent,
    environment: principal.environment,
    ...(principal.user !== undefined ? { user: principal.user } : {}),
  };
}

/** The error an agent sees for a denial: the rule's kind in words, never its text. */
export function denialError(decision: PolicyDecision): TollgateError {
  const code = decision.errorCode ?? 'POLICY_DENIED';
  const message =
    code === 'POLICY_UNAVAILABLE'
      ? `Denied: policy could not be evaluated (${decision.reason}); nothing was run.`
      : `Denied by policy: ${decision.reason}.`;
  return new TollgateError(code, message);
}

/**
 * The offered permissions without fields the descriptor no longer declares: a descriptor can
 * change before the tenant's bundle is recompiled, and a removed field must stop working at
 * once. Only ever narrows.
 */
function narrowToDescriptor(
  offered: OfferedPermissions,
  resource: PublishedResource,
): PermissionSet {
  let byResource = narrowed.get(offered);
  if (byResource === undefined) {
    byResource = new WeakMap();
    narrowed.set(offered, byResource);
  }
  const known = byResource.get(resource);
  if (known !== undefined) return known;
  const set = narrowToDeclared(offered, resource.descriptor);
  byResource.set(resource, set);
  return set;
}

/**
 * Narrowed sets by offered set (the decider keeps one per principal × resource until its
 * bundle changes) and resource version, so steady traffic reuses one object — and the tool
 * set compiled for it.
 */
const narrowed = new WeakMap<OfferedPermissions, WeakMap<PublishedResource, PermissionSet>>();

function noPermissions(): PermissionSet {
  return { operations: [], visibleFields: [], filterableFields: [], limitCap: 1 };
}
