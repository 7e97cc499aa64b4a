/**
 * Tool results are compacted before they re-enter the model's context: at most `maxRows`
 * rows, long strings shortened, and the whole under `maxBytes` of JSON — with a note saying
 * what was left out, so the model knows to narrow the query or page on. Pure.
 */
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { fitToBytes } from '@tollgate/core';
import type { CallMeta } from '../result.js';

/** How much of a tool result the model gets to see. */
export interface CompactionLimits {
  /** Rows (array items, or the items of the result's one list) kept (default 20). */
  maxRows: number;
  /** Bytes of JSON of the compacted data (default 8000). */
  maxBytes: number;
  /** Characters kept of any one string (default 500). */
  maxStringChars: number;
}

export const DEFAULT_COMPACTION: CompactionLimits = {
  maxRows: 20,
  maxBytes: 8_000,
  maxStringChars: 500,
};

/** A result fit for the model's context. */
export interface CompactedResult {
  data: JsonValue;
  /** True when anything was left out here or by the executor. */
  truncated: boolean;
  /** What was left out, in words the model can act on. */
  notes: string[];
}

const ROW_KEYS = ['items', 'rows', 'hits', 'buckets', 'documents', 'results'];

export function compactResult(
  data: JsonValue,
  meta: CallMeta | undefined,
  limits: Partial<CompactionLimits> = {},
): CompactedResult {
  const { maxRows, maxBytes, maxStringChars } = { ...DEFAULT_COMPACTION, ...limits };
  const notes: string[] = [];
  const clipped = clipStrings(data, maxStringChars);
  if (clipped.count > 0)
    notes.push(
      `${clipped.count} long text value(s) were shortened to ${maxStringChars} characters`,
    );
  const list = rowList(clipped.value);
  let result = clipped.value;
  if (list !== undefined) {
    const capped = list.rows.slice(0, maxRows);
    const fitted = fitToBytes(capped, maxBytes, (rows) => list.wrap(rows));
    result = list.wrap(fitted.items);
    if (fitted.items.length < list.rows.length) {
      const total = meta?.total !== undefined ? `${meta.total} matches upstream, ` : '';
      notes.push(
        `showing ${fitted.items.length} of ${list.rows.length} rows returned (${total}the rest left out to save context)`,
      );
    }
  }
  if (byteLength(result) > maxBytes) {
    const text = JSON.stringify(result);
    result = { preview: truncateUtf8(text, maxBytes) };
    notes.push(`the result was larger than ${maxBytes} bytes; only a JSON prefix is shown`);
  }
  if (meta?.truncated)
    notes.push(
      'Tollgate capped the result (row or byte limit); ask for fewer fields or narrower filters',
    );
  if (meta?.nextCursor)
    notes.push(
      'more rows exist: call again with the same arguments and `cursor` set to next_cursor',
    );
  return { data: result, truncated: notes.length > 0, notes };
}

interface RowList {
  rows: JsonValue[];
  wrap: (rows: JsonValue[]) => JsonValue;
}

/** The result's rows: the array itself, or the one list inside an object (`items`, `buckets`, …). */
function rowList(value: JsonValue): RowList | undefined {
  if (Array.isArray(value)) return { rows: value, wrap: (rows) => rows };
  if (!isObject(value)) return undefined;
  const arrays = Object.entries(value).filter(([, v]) => Array.isArray(v));
  const named = arrays.find(([key]) => ROW_KEYS.includes(key));
  const [key, rows] = named ?? (arrays.length === 1 ? arrays[0]! : []);
  if (key === undefined || !Array.isArray(rows)) return undefined;
  return { rows, wrap: (kept) => ({ ...value, [key]: kept }) };
}

function clipStrings(value: JsonValue, maxChars: number): { value: JsonValue; count: number } {
  let count = 0;
  const visit = (v: JsonValue): JsonValue => {
    if (typeof v === 'string') {
      if (v.length <= maxChars) return v;
      count += 1;
      return `${v.slice(0, maxChars)}…`;
    }
    if (Array.isArray(v)) return v.map(visit);
    if (isObject(v))
      return Object.fromEntries(Object.entries(v).map(([k, child]) => [k, visit(child)]));
    return v;
  };
  return { value: visit(value), count };
}

function isObject(value: JsonValue): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function byteLength(value: JsonValue): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

function truncateUtf8(text: string, maxBytes: number): string {
  let cut = Math.min(text.length, maxBytes);
  while (cut > 0 && Buffer.byteLength(text.slice(0, cut), 'utf8') > maxBytes - 3)
    cut -= Math.max(1, Math.floor(cut / 16));
  return `${text.slice(0, cut)}…`;
}
