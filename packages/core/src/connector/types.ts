import type { ResourceDescriptor, ResourceSpec } from '../descriptor/types.js';
import type { DiscoveredSchema } from '../discovery/types.js';
import type { ResourceKind } from '../kind/kind.js';
import type { PermissionSet } from '../tools/types.js';
import type { CredentialResolver } from './credential.js';
import type { EgressGuard } from './egress.js';

/** Who a call is made for, as authenticated by the executor (never taken from arguments). */
export interface CallPrincipal {
  tenant: string;
  agent: string;
  /** The human the agent acts for, when there is one. */
  user?: string;
}

/** Everything `compile` may look at. Pure data: compiling does no I/O. */
export interface CompileContext {
  /** The resource version, merged with discovery and with defaults applied. */
  descriptor: ResourceDescriptor;
  /** What this principal may do; the compiler re-checks every argument against it. */
  permissions: PermissionSet;
  principal: CallPrincipal;
  /**
   * Key sealing pagination cursors to the query that issued them. Without one, cursors still
   * carry an unkeyed digest that rejects cursors from other queries, but not deliberate forgery.
   */
  cursorKey?: string;
}

/** Pagination state carried from compile to shape for operations that page. */
export interface PageInfo {
  /** Rows asked for. */
  limit: number;
  /** Number of sort keys a cursor must carry. */
  sortKeys: number;
  /** Digest of the query shape; cursors are signed with it. */
  seal: string;
  /** True when the request continued from a cursor. */
  continued: boolean;
}

/**
 * A compiled call: plain, JSON-serialisable data (tests assert it exactly; audit may record it).
 * `native` is the kind-specific request; the rest is what execute and shape need to know.
 */
export interface CompiledRequest<Native = unknown> {
  /** The kind's `type`. */
  kind: string;
  /** The operation's name. */
  operation: string;
  /** Resource name (`metadata.name`). */
  resource: string;
  /** Upstream timeout for one attempt, ms (the resource's `timeoutMs`, default 5000). */
  timeoutMs: number;
  /** The operation is idempotent (every read): retryable failures are retried. */
  idempotent: boolean;
  /** Fields the result may contain (requested ∩ visible), sorted. */
  fields: string[];
  /** Present for operations that return pages of rows. */
  page?: PageInfo;
  native: Native;
}

/** Runtime dependencies and limits of one `execute`. */
export interface ExecuteContext {
  descriptor: ResourceDescriptor;
  /** Resolves `spec.connection.credentialRef` just in time. */
  credentials: CredentialResolver;
  /** The caller's cancellation (e.g. the call's deadline passing). */
  signal?: AbortSignal;
  /** Absolute deadline, epoch ms; no attempt or backoff runs past it. */
  deadline?: number;
  /** Attempts for idempotent requests (default 3); writes always get exactly one. */
  maxAttempts?: number;
  /** First backoff delay, ms (default 100); doubles per attempt, with jitter, capped at 2000. */
  backoffMs?: number;
  /**
   * The operator's egress rules for the call's scope. The executor checked every endpoint
   * before the call got here; a kind that resolves names itself and pins the address asks
   * again with the address it is about to connect to (no rebinding between check and connect).
   */
  egress?: EgressGuard;
}

/** The raw upstream answer, before anything is checked or shaped. */
export interface UpstreamResponse {
  /** HTTP status (or the kind's equivalent) of the final attempt. */
  status: number;
  body: unknown;
  attempts: number;
  latencyMs: number;
}

/** Everything `shape` may look at. Pure data: shaping does no I/O. */
export interface ShapeContext {
  descriptor: ResourceDescriptor;
  permissions: PermissionSet;
  /** The request the response answers. */
  request: CompiledRequest;
  /** Byte budget for `data` serialised as JSON (default 32768). */
  maxBytes?: number;
}

/** Total number of matches, exact (`eq`) or a lower bound (`gte`). */
export interface ResultTotal {
  value: number;
  relation: 'eq' | 'gte';
}

/** What goes back to the agent: data plus the meta the reply envelope reports. */
export interface ShapedResult {
  data: unknown;
  /** Rows (or buckets) in `data`. */
  returned: number;
  total?: ResultTotal;
  /** True when rows or buckets were left out to respect a cap. */
  truncated: boolean;
  /** Opaque cursor for the next page, only when more rows may exist. */
  cursor?: string;
  /** Size of `data` serialised as JSON, bytes. */
  bytes: number;
}

/** An operation a connector stopped running because the live system changed under its pin. */
export interface OperationWithdrawal {
  tenant: string;
  environment: string;
  /** Resource name (`metadata.name`). */
  resource: string;
  operation: string;
  /**
   * `canonicalHash` of the spec whose pin no longer matches: a withdrawal speaks only for the
   * resource versions with that spec, never for a newer one that pinned the tool again.
   */
  specHash: string;
  /** What changed, part by part, as people read it. */
  changes: Array<{ part: string; pinned: string; live: string }>;
}

/** Options for `discover`. */
export interface DiscoverOptions {
  /** Timeout for the discovery request, ms (default: the connection's `timeoutMs`, else 5000). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The egress rules of the resource's scope, asked with each address before connecting. */
  egress?: EgressGuard;
}

/**
 * A resource kind with its controlled path to the data system: the pure half (`ResourceKind`)
 * plus five steps the executor wires without ever branching on the kind. `compile` and
 * `shape` are pure; `discover` and `execute` do I/O and report failures as `TollgateError`s
 * (connection failures as `UpstreamError`). Importing a connector must stay cheap: drivers are
 * loaded when first used, so the CLI and the SDK can read the kinds list.
 */
export interface Connector<
  Native = unknown,
  Spec extends ResourceSpec = ResourceSpec,
> extends ResourceKind<Spec> {
  /**
   * Reads the live schema behind the spec's target, resolving the credential just in time.
   * The spec is as declared (it may lack fields, and defaults may not be applied).
   */
  discover(
    spec: Spec,
    credentials: CredentialResolver,
    options?: DiscoverOptions,
  ): Promise<DiscoveredSchema>;
  /**
   * Turns validated tool arguments into a native request, re-checking every argument against
   * the permission set; violations throw `ARGUMENTS_INVALID` with one detail per offending path.
   */
  compile(operation: string, args: unknown, ctx: CompileContext): CompiledRequest<Native>;
  /** Sends the request within the resource timeout and caller deadline, retrying idempotent ones. */
  execute(request: CompiledRequest<Native>, ctx: ExecuteContext): Promise<UpstreamResponse>;
  /** Checks the upstream answer and reduces it to what this principal may see. */
  shape(operation: string, upstream: UpstreamResponse, ctx: ShapeContext): ShapedResult;
  /** Releases pooled upstream connections. */
  close(): Promise<void>;
  /**
   * For kinds whose versions pin what the live system showed when the operator confirmed
   * (an upstream's tool definitions, by hash): the spec with everything still unpinned pinned
   * to the live system, or undefined when nothing is left to pin (then nothing connects). The
   * registry calls it on every apply, with a valid spec whose credential references are in
   * the tenant's namespace, and validates the result again before saving it.
   */
  pinOnConfirm?(spec: Spec, credentials: CredentialResolver): Promise<Spec | undefined>;
  /**
   * For kinds that withdraw operations at run time (a pinned definition the live system no
   * longer matches): `listener` hears each withdrawal once (undefined: stop telling). The
   * executor announces them as `tool.withdrawn`.
   */
  onWithdrawal?(listener: ((withdrawal: OperationWithdrawal) => void) | undefined): void;
}
