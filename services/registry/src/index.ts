export { registerRegistryApi } from './api.js';
export type { RegistryApiDeps } from './api.js';
export { Catalog } from './catalog.js';
export type { CatalogPage, CatalogQuery } from './catalog.js';
export { registryConfig } from './config.js';
export { diffDocuments } from './diff.js';
export type { DiffEntry } from './diff.js';
export { DraftStore } from './draft-store.js';
export type { DraftRecord, DraftStatus } from './draft-store.js';
export { startDraftSweeper } from './draft-sweeper.js';
export type { DraftSweeper, DraftSweeperOptions } from './draft-sweeper.js';
export { Drafts } from './drafts.js';
export type { DraftView, DraftsDeps } from './drafts.js';
export { echoProposal } from './echo.js';
export { applyMergePatch } from '@tollgate/core';
export {
  discoveryPaths,
  checkPartial,
  completeEnvelope,
  composeProposal,
  discoveryTarget,
} from './proposal.js';
export type { DiscoveryOutcome, FieldReport, Proposal } from './proposal.js';
export { Projector, announceChanges, changeEventId } from './projector.js';
export { projectionValue, recordOf } from './projection-value.js';
export type { ProjectionValue } from './projection-value.js';
export { Reconciler } from './reconciler.js';
export type { ReconcileReport, ReconcilerOptions } from './reconciler.js';
export { COLLECTIONS, ResourceStore } from './store.js';
export { fromVersionDocument, toVersionDocument } from './records.js';
export type { ChangeKind, VersionDocument, VersionRecord } from './records.js';
export { Registry, validResource } from './registry.js';
export type {
  ApplyOptions,
  ChangeOutcome,
  ChangeSink,
  HistoryQuery,
  ListQuery,
  Page,
  RegistryDeps,
  ResourceQuery,
} from './registry.js';
export { RegistryRequestProblems, checkRequest } from './requests.js';
export { resourceId, scopeOf, versionId } from './scope.js';
export type { ResourceRef, Scope } from './scope.js';
export { startRegistry } from './service.js';
export type { RegistryParts, RegistryServiceOptions } from './service.js';
export { applyWarnings } from './warnings.js';
export type { Warning } from './warnings.js';
