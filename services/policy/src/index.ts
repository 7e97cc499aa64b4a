export { registerPolicyApi } from './api/api.js';
export type { PolicyApiDeps } from './api/api.js';
export { Approvals, isOwn } from './approvals/approvals.js';
export type { ApprovalsDeps, PendingListQuery, RecordOutcome } from './approvals/approvals.js';
export { ApprovalIntake } from './approvals/intake.js';
export { approverName } from './approvals/record.js';
export type {
  ApprovalDecision,
  ApprovalOutcome,
  ApprovalRecord,
  ApprovalState,
  RequesterPrincipal,
} from './approvals/record.js';
export { readApprovalRequested } from './approvals/requested.js';
export { Bundles } from './bundles/bundles.js';
export {
  TenantCompiler,
  atVersion,
  bundleContentHash,
  cedarOfPolicy,
  compileTenant,
  tenantContentHash,
  withVersion,
} from './bundles/compile.js';
export type {
  ExcludedResource,
  Hashed,
  HashedInputs,
  TenantBundle,
  TenantCompilation,
  TenantInputs,
} from './bundles/compile.js';
export { TenantDeciders } from './bundles/deciders.js';
export { BundleCompileError, BundlePublisher } from './bundles/publisher.js';
export type { PublishedBundle } from './bundles/publisher.js';
export { RebuildScheduler } from './bundles/scheduler.js';
export { policyConfig } from './config.js';
export { AccessControl, ROLES } from './declarations/access.js';
export type { ServiceRole } from './declarations/access.js';
export { Declarations } from './declarations/declarations.js';
export { checkCandidate, validDescriptor } from './declarations/validate.js';
export type { TenantSnapshot } from './declarations/validate.js';
export type { ApplyOptions, ChangeOutcome } from './declarations/declarations.js';
export { diffDocuments } from './declarations/diff.js';
export { Decisions } from './decisions.js';
export type { DecisionQuery } from './decisions.js';
export type { DeclarationChange } from './events.js';
export { startPolicyService } from './service.js';
export type { PolicyParts, PolicyServiceOptions } from './service.js';
export { APPROVAL_COLLECTIONS } from './store/approvals.js';
export { BUNDLE_COLLECTIONS } from './store/bundle-ledger.js';
export { DEAD_LETTERS } from './store/dead-letters.js';
export { DECLARATION_COLLECTIONS } from './store/declarations.js';
