export { MAX_REQUEST_BYTES, serveExecutor } from './api.js';
export type { ApiOptions, ExecutorApi } from './api.js';
export { CALL_ID, deadlineOf } from './call-trail.js';
export type { CallPhase, CallTrail, SavedQueryUse, Stage } from './call-trail.js';
export { executorConfig } from './config.js';
export { Executor } from './executor.js';
export type { CallInput, ExecutorDeps, ExecutorSettings } from './executor.js';
export { Authenticator } from './pipeline/authenticate.js';
export type { AuthenticatorOptions } from './pipeline/authenticate.js';
export { auditArguments } from './pipeline/audit-event.js';
export { decideCall, policyPrincipal } from './pipeline/decide.js';
export { applyDefaultFields } from './pipeline/default-fields.js';
export type { Verdict } from './pipeline/decide.js';
export { resolveResource } from './pipeline/resolve.js';
export {
  SavedQueryParameters,
  findSavedQuery,
  isSavedQueryCall,
  validateSavedQueryCall,
} from './pipeline/saved-query.js';
export type { FoundSavedQuery, ValidatedSavedQueryCall } from './pipeline/saved-query.js';
export {
  baseOperation,
  operationOf,
  resourceOperations,
  toolValidatorOf,
  validateCall,
} from './pipeline/validate.js';
export type { ValidatedCall } from './pipeline/validate.js';
export { CallRunner } from './runner.js';
export type { ApprovedCall, RecordedResult } from './runner.js';
export { startExecutor } from './service.js';
export type { RunningExecutor, StartExecutorOptions } from './service.js';
export { DEFAULT_BUCKETS, openExecutorBuckets } from './state/buckets.js';
export type { ExecutorBucketNames, ExecutorBuckets } from './state/buckets.js';
export { CallResults } from './state/call-results.js';
export { PolicyDeciders } from './state/deciders.js';
export { IdempotencyStore } from './state/idempotency.js';
export type { IdempotencyClaim, IdempotentWrite } from './state/idempotency.js';
export { ParkedCalls } from './state/parked-calls.js';
export type { ParkedCall } from './state/parked-calls.js';
export { RateLimiter } from './state/rate-limits.js';
