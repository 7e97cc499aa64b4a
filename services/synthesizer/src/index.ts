export { Synthesizer } from './synthesizer.js';
export type { ListToolsInput, SynthesizerDeps } from './synthesizer.js';
export { startSynthesizer } from './service.js';
export type { RunningSynthesizer, StartOptions } from './service.js';
export { startSync } from './sync.js';
export type { Sync, SyncOptions } from './sync.js';
export { ToolCatalog } from './catalog.js';
export type { CatalogHit, CatalogSearch } from './catalog.js';
export { PolicyBundles } from './bundles.js';
export type { BundleChange, PrincipalAccess } from './bundles.js';
export { ToolSetCache, declaredOnly } from './tool-cache.js';
export type { ToolSet } from './tool-cache.js';
export { formatOf, wireTool } from './formats.js';
export { MemoryTools } from './memory-tools.js';
export type { NarrowedTool, PrincipalMemory } from './memory-tools.js';
export { encodeTools } from './encoding.js';
export { DEFAULT_TOP_K, MAX_TASK_LENGTH, MAX_TOP_K, listQuery, toolQuery } from './requests.js';
export type { ListQuery, Plane, RequestedPrincipal, ToolQuery } from './requests.js';
export { ACT_FOR_ROLES, actingPrincipal } from './identity.js';
export type { Acting } from './identity.js';
export {
  FREQUENT_RESOURCE_BOOST,
  MemoryPreferences,
  boostsFromPreferences,
  noPreferences,
} from './preferences.js';
export type {
  MemoryPreferencesOptions,
  PreferenceRequest,
  PreferenceSource,
} from './preferences.js';
export { BusListingRecorder, noListings } from './listings.js';
export type { Listing, ListingRecorder } from './listings.js';
export {
  getToolSubject,
  listToolsSubject,
  registerSynthesizerGrpc,
  serveSynthesizerBus,
} from './api.js';
export type { ApiDeps } from './api.js';
export { synthesizerConfig } from './config.js';
