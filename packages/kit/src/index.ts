export {
  ConfigError,
  DEV_ISSUER_FILE,
  cfg,
  commonConfig,
  loadConfig,
  mongoConfig,
} from './config/config.js';
export type { ConfigField, ConfigOf, ConfigSpec } from './config/config.js';
export { REDACTED_PATHS, createLogger } from './log/logger.js';
export type { Logger, LoggerOptions } from './log/logger.js';
export { startTelemetry } from './telemetry/telemetry.js';
export type { Telemetry, TelemetryOptions } from './telemetry/telemetry.js';
export {
  BusUnavailableError,
  busAuthFromEnv,
  busAuthOptions,
  connectBus,
  serviceInboxPrefix,
} from './bus/connect.js';
export type { BusAuth, BusOptions } from './bus/connect.js';
// The NATS contract is contracts' (the SDK reads the same); kit passes it on to services.
export {
  AUTHORIZATION_HEADER,
  ERROR_HEADER,
  EVENTS_STREAM,
  EventTypes,
  buckets,
  isCallSubject,
  parsePolicyBundleKey,
  policyBundleKey,
  policyBundleLookup,
  parseWithdrawalKey,
  resourceKey,
  subjects,
  withdrawalKey,
} from '@tollgate/contracts/bus';
export type { EventType } from '@tollgate/contracts/bus';
export { SpanKind, currentTraceId, extractTrace, inSpan, injectTrace } from './bus/trace.js';
export { request, serve, wireError } from './bus/rpc.js';
export type { BusReply, RequestOptions, ServeOptions, ServeReply } from './bus/rpc.js';
export {
  EventPublisher,
  JETSTREAM_MANAGEMENT_TIMEOUT_MS,
  PULL_OPTIONS,
  consumeEvents,
  deadLetter,
  ensureEventStream,
  streamManager,
} from './bus/events.js';
export { storageReplicas } from './bus/replicas.js';
export type {
  ConsumerMessages,
  DurableConsumerOptions,
  EventStreamOptions,
  JsMsg,
} from './bus/events.js';
export { openBucket, watchBucket } from './bus/kv.js';
export type { BucketWatch, KV, KvEntry } from './bus/kv.js';
export { MemoryProjection } from './bus/memory-projection.js';
export { ResourceCatalog, readCatalogEntry } from './bus/resource-catalog.js';
export type {
  CatalogChange,
  CatalogEntry,
  CatalogScope,
  FollowOptions,
  ReadOptions,
} from './bus/resource-catalog.js';
export {
  DUPLICATE_KEY,
  StoreUnavailableError,
  connectMongo,
  ensureIndexes,
  insertNew,
  isDuplicateKey,
} from './mongo/mongo.js';
export type { IndexPlan, MongoHandle } from './mongo/mongo.js';
export {
  PAGE_SIZE,
  decodePageToken,
  encodePageToken,
  pagePositions,
  pageSize,
  readPageToken,
} from './requests/page-token.js';
export type { PageLimits, PageTokenRead } from './requests/page-token.js';
export {
  RequestProblems,
  checkRequest,
  hasControlCharacter,
  requestChecker,
  shown,
} from './requests/problems.js';
export { Lifecycle, runService } from './lifecycle/service.js';
export type { Stoppable } from './lifecycle/service.js';
export { ListenError, listenGrpc } from './grpc/server.js';
export type { GrpcServerHandle } from './grpc/server.js';
export { tollgateErrorToRpc } from './grpc/errors.js';
export { diffMessages } from './grpc/diff.js';
export { bootService } from './runtime.js';
export type { BootOptions, ServiceRuntime } from './runtime.js';
export { serviceEndpoints } from './endpoints.js';
export type { ServiceName } from './endpoints.js';
export { createCredentialResolver } from './credentials/resolver.js';
export type { CredentialResolverOptions } from './credentials/resolver.js';
export { announceEgressRules, egressRefusal, egressRulesConfig } from './egress/egress.js';
export type { AddressLookup, EgressRefusal } from './egress/egress.js';
export {
  announceCredentialNamespaces,
  credentialNamespacesConfig,
} from './credentials/namespaces.js';
export {
  EVENT_SCHEMA_VERSION,
  decodeEnvelope,
  derivedEventId,
  encodeEnvelope,
  envelope,
  publishEnvelope,
} from './bus/envelope.js';
export { ensureDevIssuer, loadTokenVerifier, tokenVerifierFor } from './auth/issuers.js';
export { authenticateRpc, tenantOf } from './auth/rpc.js';
export { OperatorRoles, roleList } from './auth/roles.js';
export type { CallerRoles, RolesReader } from './auth/roles.js';
