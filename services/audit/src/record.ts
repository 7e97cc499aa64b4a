/**
 * The stored shape of an audit record: the event as published (screened), its place in the
 * tenant's hash chain, and flat facets copied out of the event for filtering and statistics.
 * Every field but `hash` is covered by `hash`, so changing any of them is detectable.
 */

/** Fields copied out of the event so records can be filtered and counted without decoding. */
export interface RecordFacets {
  session_id: string;
  call_id: string;
  agent: string;
  user: string;
  tool: string;
  tool_version: string;
  resource: string;
  resource_version: number;
  /** `ok`, `error`, `pending_approval`, `accepted`, or '' when the event is not a call outcome. */
  status: string;
  /** `allow`, `deny`, `require_approval`, or ''. */
  decision: string;
  policy_ids: string[];
  approval_id: string;
  idempotency_key: string;
  /** Stable error code (`ARGUMENTS_INVALID`, …) or ''. */
  error_code: string;
  /** Error category (`fix_arguments`, …) or ''. */
  error_category: string;
  latency_ms: number;
  upstream_status: number;
  returned: number;
  /** Total matches upstream; null when unknown. */
  total: number | null;
  truncated: boolean;
  bytes: number;
  trace_id: string;
}

/** Version of the record layout and hash rule below; stored in every record. */
export const RECORD_FORMAT = 1;

/** One audit record as stored in `audit_records`. */
export interface AuditDocument extends RecordFacets {
  /** `<chain>/<dedupe key>`: the same event (or the same call outcome) is stored once. */
  _id: string;
  format: number;
  /** The chain the record belongs to: the event's tenant, or `_unattributed`. */
  tenant: string;
  /** Position in the chain, from 1 with no gaps. */
  seq: number;
  event_id: string;
  type: string;
  occurred_at: Date;
  recorded_at: Date;
  /** The EventEnvelope in protobuf JSON form, after argument screening. */
  event: string;
  /** `hash` of the record at `seq - 1`; '' for the first. */
  prev_hash: string;
  /** Lowercase hex SHA-256 of the canonical JSON of every other field. */
  hash: string;
}

/** A record before it is placed in a chain. */
export type RecordDraft = Omit<AuditDocument, 'seq' | 'prev_hash' | 'hash' | 'recorded_at'>;

/** Chain of events whose envelope names no tenant (e.g. a call refused before authentication). */
export const UNATTRIBUTED_CHAIN = '_unattributed';

/** A stored document that does not have the record shape; names the field and what was wrong. */
export class MalformedRecordError extends Error {
  constructor(
    readonly id: unknown,
    readonly field: string,
    readonly expected: string,
  ) {
    super(`stored audit record ${JSON.stringify(id)}: ${field} is not ${expected}`);
    this.name = 'MalformedRecordError';
  }
}

type Check = (value: unknown) => boolean;
const isString: Check = (v) => typeof v === 'string';
const isCount: Check = (v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isDate: Check = (v) => v instanceof Date && !Number.isNaN(v.getTime());

const FIELDS: ReadonlyArray<[keyof AuditDocument, Check, string]> = [
  ['_id', isString, 'a string'],
  ['format', (v) => v === RECORD_FORMAT, `the record format ${RECORD_FORMAT}`],
  ['tenant', isString, 'a string'],
  ['seq', (v) => isCount(v) && (v as number) >= 1, 'a sequence number >= 1'],
  ['event_id', isString, 'a string'],
  ['type', isString, 'a string'],
  ['occurred_at', isDate, 'a date'],
  ['recorded_at', isDate, 'a date'],
  ['event', isString, 'a string (JSON)'],
  ['prev_hash', isString, 'a string'],
  ['hash', isString, 'a string'],
  ['session_id', isString, 'a string'],
  ['call_id', isString, 'a string'],
  ['agent', isString, 'a string'],
  ['user', isString, 'a string'],
  ['tool', isString, 'a string'],
  ['tool_version', isString, 'a string'],
  ['resource', isString, 'a string'],
  ['resource_version', isCount, 'a non-negative integer'],
  ['status', isString, 'a string'],
  ['decision', isString, 'a string'],
  ['policy_ids', (v) => Array.isArray(v) && v.every(isString), 'an array of strings'],
  ['approval_id', isString, 'a string'],
  ['idempotency_key', isString, 'a string'],
  ['error_code', isString, 'a string'],
  ['error_category', isString, 'a string'],
  ['latency_ms', isCount, 'a non-negative integer'],
  ['upstream_status', isCount, 'a non-negative integer'],
  ['returned', isCount, 'a non-negative integer'],
  ['total', (v) => v === null || isCount(v), 'null or a non-negative integer'],
  ['truncated', (v) => typeof v === 'boolean', 'a boolean'],
  ['bytes', isCount, 'a non-negative integer'],
  ['trace_id', isString, 'a string'],
];

/** Checks a document read back from Mongo; throws `MalformedRecordError` on the first bad field. */
export function parseAuditDocument(raw: unknown): AuditDocument {
  if (raw === null || typeof raw !== 'object') {
    throw new MalformedRecordError(undefined, 'document', 'an object');
  }
  const doc = raw as Record<string, unknown>;
  for (const [field, check, expected] of FIELDS) {
    if (!check(doc[field])) throw new MalformedRecordError(doc._id, field, expected);
  }
  return doc as unknown as AuditDocument;
}
