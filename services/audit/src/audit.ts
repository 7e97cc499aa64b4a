import type { MessageInitShape } from '@bufbuild/protobuf';
import type {
  AuditRecord,
  ExportSessionRequest,
  QueryRequest,
  ReplaySessionRequest,
  SessionStep,
  StatsRequest,
  StatsResponseSchema,
  VerifyRequest,
  VerifyResponseSchema,
} from '@tollgate/contracts/audit/v1';
import { StatsGroup } from '@tollgate/contracts/audit/v1';
import { EventTypes, encodePageToken } from '@tollgate/kit';
import type { Filter } from 'mongodb';
import { ChainWalk, GENESIS } from './chain/chain.js';
import { CALL_EVENT_TYPES } from './outcome.js';
import { filterText, invalidField, pageAfter, pageSize } from './read/invalid.js';
import { parseQuery, timeRange } from './read/query.js';
import { storedEvent, toAuditRecord } from './read/records.js';
import { CALL_ROW_FIELDS, StatsAccumulator } from './read/stats.js';
import type { CallRow, Grouping } from './read/stats.js';
import { sessionStep, startPairing, stepLine } from './read/timeline.js';
import { MalformedRecordError, parseAuditDocument } from './record.js';
import type { AuditDocument } from './record.js';
import type { AuditStore } from './store.js';

const REPLAY_PAGE_SIZE = 500;
const MAX_REPLAY_PAGE_SIZE = 1000;
const MAX_WINDOWS = 10_000;
/** Export chunks hold whole lines and are flushed at about this size. */
const EXPORT_CHUNK_CHARS = 64 * 1024;

/**
 * The read side of the audit trail for one tenant at a time: filtered queries, session replay
 * and export, statistics, and chain verification. The caller decides the tenant (from the
 * authenticated principal); nothing here crosses tenants.
 */
export class AuditTrail {
  readonly #store: AuditStore;

  constructor(deps: { store: AuditStore }) {
    this.#store = deps.store;
  }

  async query(
    tenant: string,
    request: QueryRequest,
  ): Promise<{ records: AuditRecord[]; nextPageToken: string }> {
    const q = parseQuery(tenant, request);
    const docs = await this.#page({ ...q.filter, seq: { $gt: q.after } }, q.pageSize);
    return {
      records: docs.page.map((doc) => toAuditRecord(doc)),
      nextPageToken: docs.more ? encodePageToken(docs.page.at(-1)!.seq, q.seal) : '',
    };
  }

  async replaySession(
    tenant: string,
    request: ReplaySessionRequest,
  ): Promise<{ records: AuditRecord[]; steps: SessionStep[]; nextPageToken: string }> {
    const sessionId = requiredSession(request.sessionId);
    const seal = { tenant, session_id: sessionId, replay: true };
    const after = pageAfter(request.pageToken, seal);
    const size = pageSize('page_size', request.pageSize, REPLAY_PAGE_SIZE, MAX_REPLAY_PAGE_SIZE);
    const docs = await this.#page({ tenant, session_id: sessionId, seq: { $gt: after } }, size);
    const records: AuditRecord[] = [];
    const steps: SessionStep[] = [];
    const answered = await this.#answeredStarts(tenant, docs.page);
    const now = Date.now();
    for (const doc of docs.page) {
      const event = storedEvent(doc);
      records.push(toAuditRecord(doc, event));
      steps.push(sessionStep(doc, event, startPairing(event, answered.has(doc.call_id), now)));
    }
    return {
      records,
      steps,
      nextPageToken: docs.more ? encodePageToken(docs.page.at(-1)!.seq, seal) : '',
    };
  }

  /** The session's timeline as JSON Lines, in chunks of whole lines. */
  async *exportSession(tenant: string, request: ExportSessionRequest): AsyncGenerator<string> {
    const sessionId = requiredSession(request.sessionId);
    let chunk = '';
    let batch: AuditDocument[] = [];
    const lines = async (docs: AuditDocument[]): Promise<string> => {
      const answered = await this.#answeredStarts(tenant, docs);
      const now = Date.now();
      return docs
        .map((doc) => {
          const event = storedEvent(doc);
          const pairing = startPairing(event, answered.has(doc.call_id), now);
          return `${stepLine(sessionStep(doc, event, pairing))}\n`;
        })
        .join('');
    };
    for await (const doc of this.#store.findRecords({ tenant, session_id: sessionId })) {
      batch.push(doc);
      if (batch.length < REPLAY_PAGE_SIZE) continue;
      chunk += await lines(batch);
      batch = [];
      if (chunk.length >= EXPORT_CHUNK_CHARS) {
        yield chunk;
        chunk = '';
      }
    }
    chunk += await lines(batch);
    if (chunk !== '') yield chunk;
  }

  /** Call ids of the `call.started` records among `docs` whose call has an outcome record. */
  async #answeredStarts(tenant: string, docs: readonly AuditDocument[]): Promise<Set<string>> {
    const ids = docs
      .filter((doc) => doc.type === EventTypes.callStarted && doc.call_id !== '')
      .map((doc) => doc.call_id);
    const answered = new Set<string>();
    if (ids.length === 0) return answered;
    const outcomes = this.#store.findRecords(
      { tenant, call_id: { $in: ids }, type: { $in: [...CALL_EVENT_TYPES] } },
      { projection: { call_id: 1 } },
    );
    for await (const doc of outcomes) answered.add(doc.call_id);
    return answered;
  }

  async stats(
    tenant: string,
    request: StatsRequest,
  ): Promise<MessageInitShape<typeof StatsResponseSchema>> {
    const range = timeRange(request.from, request.to);
    const grouping = statsGrouping(request, range?.$gte, range?.$lt);
    const filter: Record<string, unknown> = { tenant, type: { $in: [...CALL_EVENT_TYPES] } };
    if (range) filter.occurred_at = range;
    for (const field of ['tool', 'agent', 'resource'] as const) {
      if (request[field] !== '') filter[field] = filterText(field, request[field]);
    }
    const projection = Object.fromEntries(CALL_ROW_FIELDS.map((f) => [f, 1 as const]));
    const stats = new StatsAccumulator(grouping);
    for await (const raw of this.#store.findRecords(filter as Filter<AuditDocument>, {
      projection: { _id: 1, ...projection },
    })) {
      stats.add(callRow(raw));
    }
    const result = stats.result();
    if (result.groups.length > MAX_WINDOWS) {
      throw invalidField('window_seconds', 'too many windows', `at most ${MAX_WINDOWS} windows`);
    }
    return result;
  }

  async verify(
    tenant: string,
    request: VerifyRequest,
  ): Promise<MessageInitShape<typeof VerifyResponseSchema>> {
    const from =
      request.fromSequence === 0n ? 1 : safeSequence('from_sequence', request.fromSequence);
    const to = request.toSequence === 0n ? 0 : safeSequence('to_sequence', request.toSequence);
    if (to !== 0 && to < from) {
      throw invalidField('to_sequence', 'before from_sequence', `>= ${from}`, String(to));
    }
    const walk = new ChainWalk(GENESIS);
    if (from > 1) {
      const raw = await this.#store.recordAt(tenant, from - 1);
      if (raw === null) {
        const last = await this.#store.lastRecordHead(tenant);
        if (from - 1 > last.seq) {
          throw invalidField(
            'from_sequence',
            'beyond the end of the chain',
            `at most ${last.seq + 1}`,
            String(from),
          );
        }
        walk.fail(from - 1, `record ${from - 1} is missing`);
      } else {
        const before = checked(raw, walk);
        if (before) walk.restart({ seq: before.seq, hash: before.hash });
      }
    }
    if (!walk.broken) {
      for await (const raw of this.#store.chainDocuments(tenant, from, to)) {
        const doc = checked(raw, walk);
        if (!doc || walk.next(doc)) break;
      }
    }
    if (!walk.broken && to !== 0 && walk.head.seq < to) {
      const missing = walk.head.seq + 1;
      walk.fail(missing, `record ${missing} is missing (the chain ends at ${walk.head.seq})`);
    }
    const broken = walk.broken;
    return {
      ok: broken === undefined,
      checked: BigInt(walk.checked),
      firstBrokenSequence: BigInt(broken?.seq ?? 0),
      reason: broken?.reason ?? '',
      headHash: walk.head.hash,
    };
  }

  async #page(
    filter: Filter<AuditDocument>,
    size: number,
  ): Promise<{ page: AuditDocument[]; more: boolean }> {
    const page: AuditDocument[] = [];
    for await (const doc of this.#store.findRecords(filter, { limit: size + 1 })) page.push(doc);
    const more = page.length > size;
    if (more) page.pop();
    return { page, more };
  }
}

function requiredSession(sessionId: string): string {
  if (sessionId === '') throw invalidField('session_id', 'required', 'a session id', '');
  return filterText('session_id', sessionId);
}

function safeSequence(path: string, value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw invalidField(path, 'too large', `at most ${Number.MAX_SAFE_INTEGER}`, value.toString());
  }
  return Number(value);
}

function statsGrouping(
  request: StatsRequest,
  from: Date | undefined,
  to: Date | undefined,
): Grouping {
  if (!Object.hasOwn(StatsGroup, request.groupBy)) {
    throw invalidField('group_by', 'unknown value', 'a StatsGroup', String(request.groupBy));
  }
  if (request.groupBy !== StatsGroup.WINDOW) return { by: request.groupBy };
  if (request.windowSeconds === 0) {
    throw invalidField(
      'window_seconds',
      'required when grouping by window',
      'a number of seconds >= 1',
      '0',
    );
  }
  const windowMs = request.windowSeconds * 1000;
  if (from && to && (to.getTime() - from.getTime()) / windowMs > MAX_WINDOWS) {
    throw invalidField(
      'window_seconds',
      'too many windows for the range',
      `at most ${MAX_WINDOWS} windows`,
      String(request.windowSeconds),
    );
  }
  return { by: StatsGroup.WINDOW, windowMs, originMs: from?.getTime() ?? 0 };
}

/** A record as Verify sees it: parsed, or the reason the walk breaks there. */
function checked(raw: unknown, walk: ChainWalk): AuditDocument | undefined {
  try {
    return parseAuditDocument(raw);
  } catch (err) {
    if (!(err instanceof MalformedRecordError)) throw err;
    const seq = (raw as { seq?: unknown })?.seq;
    walk.fail(typeof seq === 'number' ? seq : walk.head.seq + 1, err.message);
    return undefined;
  }
}

/** The statistics facets of a stored record, checked. */
function callRow(raw: unknown): CallRow {
  const row = raw as Record<string, unknown>;
  const strings = [
    'type',
    'tool',
    'agent',
    'resource',
    'status',
    'decision',
    'error_code',
  ] as const;
  for (const field of strings) {
    if (typeof row[field] !== 'string') throw new MalformedRecordError(row._id, field, 'a string');
  }
  if (!(row.occurred_at instanceof Date))
    throw new MalformedRecordError(row._id, 'occurred_at', 'a date');
  if (typeof row.latency_ms !== 'number')
    throw new MalformedRecordError(row._id, 'latency_ms', 'a number');
  if (typeof row.truncated !== 'boolean')
    throw new MalformedRecordError(row._id, 'truncated', 'a boolean');
  return row as unknown as CallRow;
}
