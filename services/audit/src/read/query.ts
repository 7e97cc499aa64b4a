import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import type { Filter } from 'mongodb';
import type { QueryRequest } from '@tollgate/contracts/audit/v1';
import { CallStatus } from '@tollgate/contracts/call/v1';
import { ErrorCode } from '@tollgate/contracts/common/v1';
import { DecisionEffect } from '@tollgate/contracts/policy/v1';
import { isEventType } from '../ingest/decode.js';
import { decisionName, errorCodeName, statusName } from '../ingest/draft.js';
import type { AuditDocument } from '../record.js';
import { filterText, invalidField, pageAfter, pageSize } from './invalid.js';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/** A validated `Query`: the Mongo filter (tenant included), page size and position. */
export interface RecordQuery {
  filter: Filter<AuditDocument>;
  pageSize: number;
  /** Sequence the page starts after. */
  after: number;
  /** What page tokens are bound to: these filters. */
  seal: unknown;
}

/** Checks every filter of a `QueryRequest` and builds the query for `tenant`. */
export function parseQuery(tenant: string, request: QueryRequest): RecordQuery {
  const filter: Record<string, unknown> = { tenant };
  const types = request.types.map((type, i) => {
    if (!isEventType(type)) {
      throw invalidField(`types[${i}]`, 'unknown event type', 'e.g. call.completed', type);
    }
    return type;
  });
  if (types.length > 0) filter.type = { $in: types };
  const texts: Array<[keyof QueryRequest & string, keyof AuditDocument]> = [
    ['sessionId', 'session_id'],
    ['callId', 'call_id'],
    ['agent', 'agent'],
    ['user', 'user'],
    ['resource', 'resource'],
    ['tool', 'tool'],
  ];
  for (const [field, column] of texts) {
    const value = request[field] as string;
    if (value !== '') filter[column] = filterText(snake(field), value);
  }
  if (request.status !== CallStatus.UNSPECIFIED) {
    filter.status = knownEnum('status', CallStatus, request.status, statusName);
  }
  if (request.decision !== DecisionEffect.UNSPECIFIED) {
    filter.decision = knownEnum('decision', DecisionEffect, request.decision, decisionName);
  }
  if (request.errorCode !== ErrorCode.UNSPECIFIED) {
    filter.error_code = knownEnum('error_code', ErrorCode, request.errorCode, errorCodeName);
  }
  const range = timeRange(request.from, request.to);
  if (range) filter.occurred_at = range;
  const seal = { ...filter, occurred_at: range && rangeText(range) };
  const after = pageAfter(request.pageToken, seal);
  const size = pageSize('page_size', request.pageSize, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  return { filter: filter as Filter<AuditDocument>, pageSize: size, after, seal };
}

/** A half-open `[from, to)` filter on `occurred_at`, or undefined when both ends are open. */
export function timeRange(
  from: Timestamp | undefined,
  to: Timestamp | undefined,
): { $gte?: Date; $lt?: Date } | undefined {
  const start = from && checkedDate('from', from);
  const end = to && checkedDate('to', to);
  if (start && end && start.getTime() >= end.getTime()) {
    throw invalidField('to', 'not after from', 'a time after from', end.toISOString());
  }
  if (!start && !end) return undefined;
  return { ...(start ? { $gte: start } : {}), ...(end ? { $lt: end } : {}) };
}

function checkedDate(path: string, ts: Timestamp): Date {
  const date = timestampDate(ts);
  if (Number.isNaN(date.getTime()) || ts.nanos < 0 || ts.nanos > 999_999_999) {
    throw invalidField(path, 'not a valid time', 'a valid timestamp');
  }
  return date;
}

function rangeText(range: { $gte?: Date; $lt?: Date }): unknown {
  return { from: range.$gte?.toISOString(), to: range.$lt?.toISOString() };
}

function knownEnum(
  path: string,
  values: object,
  value: number,
  name: (v: never) => string,
): string {
  if (!Object.hasOwn(values, value)) {
    throw invalidField(path, 'unknown value', 'a value of the enum', String(value));
  }
  return name(value as never);
}

function snake(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
