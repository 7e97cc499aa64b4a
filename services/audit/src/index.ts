export { AuditTrail } from './audit.js';
export { registerAuditApi } from './api.js';
export { auditConfig } from './config.js';
export { canonicalJson } from './chain/canonical.js';
export { ChainWalk, GENESIS, linkRecords, recordHash } from './chain/chain.js';
export type { ChainBreak, ChainHead } from './chain/chain.js';
export { AuditIngest } from './ingest/ingest.js';
export type { IngestDependencies, IngestSettings } from './ingest/ingest.js';
export type { IngestCounts } from './ingest/batch.js';
export { IngestMetrics } from './ingest/metrics.js';
export { prepareMessage } from './ingest/prepare.js';
export type { Preparation, PrepareLimits, StreamMessage } from './ingest/prepare.js';
export { readEvent } from './ingest/decode.js';
export type { EventReading } from './ingest/decode.js';
export { REDACTED, screenArguments, screenEvent } from './ingest/screen.js';
export { dedupeKey, draftRecord } from './ingest/draft.js';
export { ChainWriter } from './ingest/writer.js';
export type { AppendResult } from './ingest/writer.js';
export { callOutcome } from './outcome.js';
export { StatsAccumulator, percentile } from './read/stats.js';
export { sessionStep, stepLine } from './read/timeline.js';
export {
  MalformedRecordError,
  RECORD_FORMAT,
  UNATTRIBUTED_CHAIN,
  parseAuditDocument,
} from './record.js';
export type { AuditDocument, RecordDraft, RecordFacets } from './record.js';
export { AuditStore, collections } from './store.js';
export type { DeadLetter, InsertOutcome } from './store.js';
