export { API_VERSION } from './descriptor/types.js';
export type {
  AccessSpec,
  AgentDescriptor,
  ConnectionSpec,
  Descriptor,
  DescriptorKind,
  FieldSpec,
  FieldType,
  Grant,
  GrantConditions,
  GrantEffect,
  PolicyDescriptor,
  RedactionMethod,
  RedactionRule,
  RoleExemptRedaction,
  ResourceDescriptor,
  ResourceMetadata,
  ResourceSpec,
  RowFilter,
  IdempotencyRule,
  ArgumentPointer,
  AgentSpec,
  Description,
  EnvironmentName,
  FieldRoles,
  GrantAction,
  GrantPrincipals,
  LabelValue,
  Labels,
  PolicySpec,
  PrincipalMetadata,
  PrincipalName,
  RateLimit,
  ResourceName,
  ResourceSchema,
  RoleName,
  TenantName,
  TimeWindow,
} from './descriptor/types.js';
export { JSON_SCHEMA_DIALECT } from './tools/types.js';
export type {
  JsonObject,
  JsonSchema,
  JsonValue,
  Operation,
  PermissionSet,
  ToolDefinition,
  ToolFormat,
  VersionedResource,
} from './tools/types.js';
export {
  OPERATION_CLASSES,
  OPERATION_NAME,
  RESERVED_OPERATION_NAMES,
  changesData,
  findOperation,
  isOperationName,
} from './kind/operation.js';
export type { OperationClass, OperationSpec } from './kind/operation.js';
export type {
  CredentialUse,
  EndpointUse,
  ResourceKind,
  ToolOffer,
  ToolRequest,
} from './kind/kind.js';
export { readCommonMention, readMentionedFields } from './kind/mention.js';
export type { CommonMention } from './kind/mention.js';
export { createConnectorRegistry, createKindRegistry } from './kind/registry.js';
export type { ConnectorRegistry, KindRegistry } from './kind/registry.js';
export type {
  AggregateArgs,
  AggregationKind,
  CountArgs,
  Filter,
  FilterOp,
  FilterValue,
  GetArgs,
  InsertArgs,
  KeyArgs,
  SearchArgs,
  SortSpec,
  UpdateArgs,
  WriteArgs,
} from './table/args.js';
export {
  isNumericClass,
  isOrderedClass,
  isScalarClass,
  isSearchableClass,
  traitsOrOpaque,
} from './table/family.js';
export type {
  FieldTraits,
  RecordKey,
  TableDialect,
  TableModel,
  TableWrite,
  ValueClass,
} from './table/family.js';
export {
  DECIMAL_PATTERN,
  RANGE_OPS,
  aggregationKinds,
  documentSchema,
  filterGroups,
  filterOpsOf,
  isSortable,
  scalarSchema,
} from './table/fields.js';
export type { FilterGroup } from './table/fields.js';
export {
  TABLE_OPERATIONS,
  TABLE_READS,
  offerTableTools,
  tableFieldRules,
  tableOperations,
} from './table/kind.js';
export {
  AGGREGATION_KINDS,
  CALENDAR_INTERVALS,
  DEFAULT_BUCKETS,
  DEFAULT_LIMIT,
  DEFAULT_MAX_LIMIT,
  FILTER_OPS,
  MAX_BUCKETS,
  MAX_FILTERS,
  MAX_IN_VALUES,
  MAX_SORT_KEYS,
  checkAggregationField,
  checkAggregationKind,
  checkBucketSize,
  checkFilterList,
  checkFilterOp,
  checkInterval,
  checkLimit,
  checkValueList,
  limitCapOf,
  pickFields,
  pickSortEntries,
} from './table/compile.js';
export type { CalendarInterval, SortEntry } from './table/compile.js';
export { project } from './table/projection.js';
export type { FilterBranch, Projection } from './table/projection.js';
export {
  ErrorCategory,
  ErrorCodes,
  TollgateError,
  categoryOf,
  isTollgateError,
} from './errors/codes.js';
export type { ErrorCode, ErrorDetail, TollgateErrorOptions } from './errors/codes.js';
export type {
  CallPrincipal,
  CompileContext,
  CompiledRequest,
  Connector,
  DiscoverOptions,
  ExecuteContext,
  OperationWithdrawal,
  PageInfo,
  ResultTotal,
  ShapeContext,
  ShapedResult,
  UpstreamResponse,
} from './connector/types.js';
export { parseCredentialSecret } from './connector/credential.js';
export type { Credential, CredentialResolver } from './connector/credential.js';
export { parseCredentialRef, renderCredentialRef } from './connector/credential-ref.js';
export type {
  CredentialRefParse,
  CredentialRefParts,
  CredentialRefScheme,
} from './connector/credential-ref.js';
export {
  DEFAULT_CREDENTIAL_NAMESPACES,
  UNRESTRICTED_CREDENTIAL_NAMESPACES,
  checkCredentialNamespace,
  credentialNamespacePrefixes,
  describeCredentialPrefixes,
  parseCredentialNamespaces,
} from './connector/credential-namespace.js';
export type {
  CredentialNamespaceRule,
  CredentialNamespaceVerdict,
  CredentialNamespaces,
  CredentialScope,
} from './connector/credential-namespace.js';
export { businessIdempotencyKey, idempotencyRuleOf } from './connector/business-key.js';
export {
  DEFAULT_EGRESS_RULES,
  UNRESTRICTED_EGRESS_RULES,
  checkEgressAddress,
  checkEgressTarget,
  describeEgressDestinations,
  egressDestinations,
  egressGuard,
  egressTarget,
  parseEgressRules,
} from './connector/egress.js';
export type {
  EgressDestination,
  EgressEntry,
  EgressGuard,
  EgressRules,
  EgressScope,
  EgressTarget,
  EgressVerdict,
} from './connector/egress.js';
export { UpstreamError, isUpstreamError } from './connector/upstream-error.js';
export type { UpstreamErrorOptions } from './connector/upstream-error.js';
export {
  DEFAULT_BACKOFF_MS,
  DEFAULT_MAX_ATTEMPTS,
  MAX_ATTEMPTS,
  MAX_BACKOFF_MS,
  callerLimits,
  withAttempts,
} from './connector/attempts.js';
export type {
  Attempt,
  AttemptFailure,
  AttemptLimits,
  AttemptSteps,
  CallerLimits,
} from './connector/attempts.js';
export { decodeCursor, encodeCursor, sealQuery } from './connector/cursor.js';
export { canonicalHash, canonicalJson, compareCodeUnits } from './canonical.js';
export type { CursorValue } from './connector/cursor.js';
export {
  DROPPED,
  effectiveRedactions,
  redactValue,
  redactionExemptRoles,
  redactionFor,
  redactionMethod,
} from './connector/redact.js';
export { DEFAULT_MAX_BYTES, fitToBytes } from './connector/budget.js';
export type { FittedItems } from './connector/budget.js';
export { mergeSchema } from './discovery/merge.js';
export { CAPABILITIES, declaredCapabilities, noCapabilities } from './discovery/capabilities.js';
export type { Capability, CapabilitySet } from './discovery/capabilities.js';
export type {
  DiscoveredField,
  DiscoveredSchema,
  DiscoveredSource,
  DiscoveredSpecValue,
  DiscoveryWarning,
  DiscoveryWarningCode,
  FieldConflict,
  MergeResult,
  SchemaIssue,
  SchemaIssueCode,
} from './discovery/types.js';
export { validateDescriptor } from './descriptor/validate.js';
export type { ResourceKinds } from './descriptor/validate.js';
export { parseDescriptors } from './descriptor/parse.js';
export type { ParsedDescriptorDocument, ParsedDescriptors } from './descriptor/parse.js';
export { describeDescriptorProblems, descriptorInvalid } from './descriptor/problems.js';
export type { DescriptorProblem, ValidationResult } from './descriptor/problems.js';
export { RESOURCE_DEFAULTS, applyDescriptorDefaults } from './descriptor/defaults.js';
export { descriptorHash } from './descriptor/hash.js';
export { applyMergePatch } from './merge-patch.js';
export {
  Violations,
  checkKeys,
  describeValue,
  isPlainObject,
  oneOf,
  own,
} from './tools/violations.js';
export {
  findSecrets,
  isCredentialReference,
  isSecretKey,
  looksLikeSecret,
} from './descriptor/secrets.js';
export type { SecretFinding } from './descriptor/secrets.js';
export {
  REDACTED,
  findSecretValues,
  pointerJoin,
  redactSecrets,
  secretReason,
} from './screen/conversation-secrets.js';
export type { SecretHit } from './screen/conversation-secrets.js';
export { formatPath, joinPath, parsePath, pointerSegments } from './descriptor/path.js';
export { setAtPointer, valueAtPointer } from './memory/pointer.js';
export type { PathSegment } from './descriptor/path.js';
export {
  SCHEMA_BASE_ID,
  agentSchema,
  kindSpecSchemaId,
  policySchema,
  resourceMetadataSchema,
  resourceSchemaFor,
} from './descriptor/shape.js';
export { checkCredentialRef, checkEndpoint, fieldNameProblem } from './descriptor/formats.js';
export { mismatch, problem, renderFound } from './descriptor/problems.js';
export { asRecord, stringItems } from './descriptor/record.js';
export { synthesizeTools, toolName, toolVersionHash } from './synthesis/synthesize.js';
export { DEFAULT_LIMITS } from './synthesis/limits.js';
export type { FilterLayout, SynthesisLimits, SynthesisOptions } from './synthesis/limits.js';
export {
  narrowToDeclared,
  normalizePermissions,
  permissionSetHash,
  permissionsFromAccess,
} from './synthesis/permissions.js';
export type { AccessPrincipal } from './synthesis/permissions.js';
export { estimateTokens } from './synthesis/tokens.js';
export { TOOL_FORMATS, openAISchema, renderTool } from './tools/render.js';
export type {
  AnthropicTool,
  JsonSchemaTool,
  McpTool,
  McpToolAnnotations,
  OpenAITool,
  RenderedTools,
} from './tools/render.js';
export { checkToolFormat } from './tools/format-check.js';
export { createStrictAjv } from './tools/ajv.js';
export { compileToolValidator, validateToolArguments } from './tools/validator.js';
export type { ArgumentValidation, ToolValidator } from './tools/validator.js';
export { ToolValidatorCache } from './tools/validator-cache.js';
export type { CompiledToolSet, ToolValidatorCacheOptions } from './tools/validator-cache.js';
export { RecallIndex } from './recall/recall-index.js';
export type { RecallHit, RecallSearchOptions } from './recall/recall-index.js';
export { recallDocumentFromResource } from './recall/document.js';
export type { RecallDocument, RecallScope } from './recall/document.js';
export { tokenize } from './recall/tokenize.js';
export {
  TOKEN_ALGORITHM,
  TOKEN_AUDIENCE,
  TokenVerifier,
  generateIssuerKeys,
  issuePrincipalToken,
} from './auth/token.js';
export type { IssuerKeys, Principal, TrustedIssuer } from './auth/token.js';
export { EVENTS_TOKEN_AUDIENCE, agentCompletionSubject, agentInboxPrefix } from './auth/bus.js';
export { parsePublishedResource } from './descriptor/published.js';
export type { PublishedResource } from './descriptor/published.js';
export { diffDocuments } from './descriptor/diff.js';
export type { DiffEntry } from './descriptor/diff.js';
export {
  SAVED_QUERY_PARAMETER_TYPES,
  fieldPreferenceKey,
  memoryItemKey,
  memoryOwnersOf,
  memoryUserToken,
  parseMemoryItemKey,
  parsePublishedMemoryItem,
  savedQueryKey,
} from './memory/published.js';
export type {
  MemoryItemKey,
  PublishedFieldPreference,
  PublishedMemoryItem,
  PublishedSavedQuery,
  SavedQueryParameter,
} from './memory/published.js';
export {
  SAVED_QUERY_TOOL_PREFIX,
  annotateDefaultFields,
  defaultFieldsFor,
  expandSavedQueryCall,
  savedQueryDetails,
  savedQueryInputSchema,
  savedQueryNameOf,
  savedQueryTool,
  savedQueryToolName,
  withDefaultFields,
} from './memory/saved-query-tool.js';
export type { SavedQueryOrigin, SavedQueryToolDefinition } from './memory/saved-query-tool.js';
export { findInjection } from './screen/instructions.js';
export type { InstructionContext } from './screen/instructions.js';
export { screenForms } from './screen/normalise.js';
export type { ScreenForms } from './screen/normalise.js';
export { natsServers } from './nats-servers.js';
