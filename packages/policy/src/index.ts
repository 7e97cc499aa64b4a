export { BUNDLE_FORMAT } from './bundle/types.js';
export type {
  BundleAction,
  BundleCompilation,
  BundleOperation,
  BundleRateLimit,
  CompiledConditions,
  CompiledPolicy,
  GrantScope,
  PolicyBundle,
  PolicyEffect,
  PolicyKind,
  PolicyProblem,
} from './bundle/types.js';
export { parseBundle } from './bundle/parse.js';
export { agentRoles, readBundleRoles } from './bundle/roles.js';
export type { BundleRoles } from './bundle/roles.js';
export { MAX_BUNDLE_JSON_BYTES, bundleText, encodeBundle, isGzip } from './bundle/encoding.js';
export type { BundleParse } from './bundle/parse.js';
export { bundleHash, compileBundle } from './compile/bundle.js';
export type { BundleInputs } from './compile/bundle.js';
export { DEFAULT_MAX_LIMIT } from './compile/resource.js';
export type { VersionedResource } from './compile/resource.js';
export { checkCedarPolicy } from './compile/check-cedar.js';
export { cedarWasmEngine } from './decide/engine.js';
export type { CedarEngine } from './decide/engine.js';
export { LocalDecider } from './decide/local-decider.js';
export type { DeciderOptions, DeciderStatus, LoadResult } from './decide/local-decider.js';
export type {
  ApplicableRateLimit,
  CallContext,
  DecisionOutcome,
  DecisionTrace,
  OfferedPermissions,
  PolicyDecision,
  Principal,
  TracedPolicy,
} from './decide/types.js';
export { approvalBindingHash } from './limits/approval.js';
export type { ApprovalBinding } from './limits/approval.js';
export { nextWindowState, rateLimitCounterKey, takeWindowSlots } from './limits/rate-limit.js';
export type { RateLimit, WindowDecision, WindowLease, WindowState } from './limits/rate-limit.js';
export { ACTION_GROUPS, groupsOfClass, parseActionPattern } from './model/actions.js';
export type { ActionGroup } from './model/actions.js';
export type { ActionPattern } from './model/actions.js';
export { bundleActions, cedarSchemaText } from './model/schema.js';
export { parseTimeWindow } from './model/time-window.js';
export type { TimeWindow } from './model/time-window.js';
