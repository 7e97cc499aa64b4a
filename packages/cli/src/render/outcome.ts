import type { JsonValue } from '@bufbuild/protobuf';
import type { CallMeta, CallOutcome, FinalOutcome } from '@tollgate/sdk';
import type { Style } from '../output/style.js';
import { renderFields, renderTable } from '../output/table.js';
import { traceText } from './trace.js';

/** A call's envelope as JSON output: the same facts the SDK returns, without functions. */
export interface PlainOutcome {
  callId: string;
  status: CallOutcome['status'];
  data?: JsonValue;
  error?: { code: string; category: string; message: string; details: unknown[] };
  approvalId?: string;
  taskId?: string;
  meta?: CallMeta;
}

export function plainOutcome(outcome: CallOutcome | FinalOutcome): PlainOutcome {
  const base = {
    callId: outcome.callId,
    status: outcome.status,
    ...(outcome.meta ? { meta: outcome.meta } : {}),
  };
  switch (outcome.status) {
    case 'ok':
      return { ...base, data: outcome.data };
    case 'error':
      return { ...base, error: outcome.error.toJSON() };
    case 'pending_approval':
      return { ...base, approvalId: outcome.approvalId };
    case 'accepted':
      return { ...base, taskId: outcome.taskId };
  }
}

/** The envelope for people: a status line, the meta, then the data or the error. */
export function renderOutcome(outcome: PlainOutcome, style: Style): string {
  const lines: string[] = [];
  const meta = outcome.meta;
  const tool = meta?.tool ? `${meta.tool} ` : '';
  switch (outcome.status) {
    case 'ok':
      lines.push(`${style.green('ok')} ${tool}${style.dim(metaLine(meta))}`);
      lines.push(renderData(outcome.data ?? null, style));
      break;
    case 'error': {
      const e = outcome.error!;
      lines.push(
        `${style.red('error')} ${tool}${style.bold(e.code)} ${style.dim(`(${e.category})`)}: ${e.message}`,
      );
      for (const d of e.details as Array<{ path?: string; message?: string }>) {
        lines.push(`  ${d.path ? `${d.path}: ` : ''}${d.message ?? ''}`);
      }
      if (meta?.traceId) lines.push(style.dim(traceText(meta.traceId)));
      break;
    }
    case 'pending_approval':
      lines.push(
        `${style.yellow('pending approval')} ${tool}${style.dim(meta?.traceId ? traceText(meta.traceId) : '')}`,
      );
      lines.push(`  approval ${style.bold(outcome.approvalId ?? '')}   call ${outcome.callId}`);
      lines.push(`  an approver runs: tollgate approvals approve ${outcome.approvalId ?? ''}`);
      break;
    case 'accepted':
      lines.push(
        `${style.cyan('accepted')} ${tool}task ${outcome.taskId ?? ''} (call ${outcome.callId})`,
      );
      break;
  }
  return lines.filter((l) => l !== '').join('\n');
}

/** `v3 · 1 of 1 returned · 12 ms · trace <id>`. */
export function metaLine(meta: CallMeta | undefined): string {
  if (meta === undefined) return '';
  const parts = [`${meta.resource}@v${meta.resourceVersion}`];
  const total = meta.total !== undefined ? ` of ${meta.total}` : '';
  parts.push(`${meta.returned}${total} returned${meta.truncated ? ' (truncated)' : ''}`);
  parts.push(`${meta.latencyMs} ms`);
  if (meta.traceId) parts.push(traceText(meta.traceId));
  if (meta.nextCursor) parts.push('more: pass meta.nextCursor as cursor');
  return parts.join(' · ');
}

/** Rows of objects as a table (when they fit), anything else as indented JSON. */
export function renderData(data: JsonValue, style: Style): string {
  const rows = Array.isArray(data) ? data : [data];
  const objects = rows.every((r) => typeof r === 'object' && r !== null && !Array.isArray(r));
  if (objects && rows.length > 0) {
    const records = rows as Array<Record<string, JsonValue>>;
    const columns = [...new Set(records.flatMap((r) => Object.keys(flatten(r))))];
    if (records.length === 1 && columns.length > 6) {
      const row = flatten(records[0]!);
      return renderFields(
        columns.map((column) => [column, cellText(row[column])] as const),
        style,
      );
    }
    if (columns.length > 0 && columns.length <= 12) {
      return renderTable(
        columns.map((column) => ({
          header: column,
          cell: (r: Record<string, JsonValue>) => cellText(flatten(r)[column]),
          max: 28,
        })),
        records,
        style,
      );
    }
  }
  if (Array.isArray(data) && data.length === 0) return style.dim('(no results)');
  return JSON.stringify(data, null, 2);
}

/** `{customer: {email: x}}` → `{"customer.email": x}` (arrays stay values). */
function flatten(record: Record<string, JsonValue>, prefix = ''): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(record)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      Object.assign(out, flatten(value, path));
    } else out[path] = value;
  }
  return out;
}

function cellText(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
