/**
 * The answer of an http operation as the agent sees it: validated against the declared
 * response first, then reduced to the records at the operation's pointer, each with only the
 * fields the principal may see (redaction applied), capped in bytes, with a cursor when the
 * operation pages and more records may follow.
 */
import {
  DEFAULT_MAX_BYTES,
  DROPPED,
  TollgateError,
  effectiveRedactions,
  encodeCursor,
  fitToBytes,
  redactValue,
} from '@tollgate/core';
import type { RedactionMethod, ShapeContext, ShapedResult, UpstreamResponse } from '@tollgate/core';
import type { HttpAnswerBody } from '../execute/execute.js';
import { httpSpec } from '../kind/spec.js';
import type { HttpRequest } from '../native.js';
import { checkResponse } from './validate.js';

/** The value at a JSON pointer (RFC 6901), undefined when absent. */
export function atPointer(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let node = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Longest query a next link may carry into a cursor (the cursor argument takes 2,048). */
const MAX_CARRIED_QUERY = 1024;

/** The target of the `rel="next"` link of a `Link` header (RFC 8288), if any. */
function nextTarget(header: string): string | undefined {
  for (const link of header.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(link[2] ?? '');
    if ((rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/).includes('next')) return link[1];
  }
  return undefined;
}

/**
 * What the next page adds to the request's query, from the upstream's `Link` header: a
 * `rel="next"` link counts only on the request's origin and path, and only its parameters the
 * request did not set itself are taken (those `carried` from the previous link are replaced);
 * the parameters the agent and the operator set are sent as they were, whatever the link says.
 * Undefined when there is no such link, it did not move, or it is too long to carry.
 */
export function nextLinkQuery(
  header: string | undefined,
  requestUrl: string,
  carried: readonly string[],
): string | undefined {
  const target = header === undefined ? undefined : nextTarget(header);
  if (target === undefined) return undefined;
  const current = new URL(requestUrl);
  let next: URL;
  try {
    next = new URL(target, current);
  } catch {
    return undefined;
  }
  if (
    next.origin !== current.origin ||
    next.pathname !== current.pathname ||
    next.username !== '' ||
    next.password !== ''
  )
    return undefined;
  const moved = new Set(carried);
  const own = new Set([...current.searchParams.keys()].filter((name) => !moved.has(name)));
  const position = new URLSearchParams();
  const before = new URLSearchParams();
  for (const [name, value] of next.searchParams) if (!own.has(name)) position.append(name, value);
  for (const [name, value] of current.searchParams) if (moved.has(name)) before.append(name, value);
  position.sort();
  before.sort();
  const text = position.toString();
  if (text === '' || text === before.toString() || text.length > MAX_CARRIED_QUERY)
    return undefined;
  return text;
}

function project(
  record: unknown,
  fields: readonly string[],
  redact: Record<string, RedactionMethod>,
): unknown {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return {};
  const source = record as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    if (!Object.hasOwn(source, field)) continue;
    const method = redact[field];
    const value = method === undefined ? source[field] : redactValue(source[field], method);
    if (value !== DROPPED) out[field] = value;
  }
  return out;
}

export function shapeResult(
  operationName: string,
  upstream: UpstreamResponse,
  ctx: ShapeContext,
): ShapedResult {
  const spec = httpSpec(ctx.descriptor);
  const operation = Object.hasOwn(spec.operations, operationName)
    ? spec.operations[operationName]
    : undefined;
  if (operation === undefined)
    throw new TollgateError('INTERNAL', `No shaping for operation "${operationName}".`);
  const body = upstream.body as HttpAnswerBody;
  checkResponse(operation.responses, upstream.status, body, ctx.request.resource);
  const visible = new Set(ctx.permissions.visibleFields);
  const fields = ctx.request.fields.filter((field) => visible.has(field));
  const redact = effectiveRedactions(spec.access, ctx.permissions);
  const maxBytes = ctx.maxBytes ?? DEFAULT_MAX_BYTES;
  const records = atPointer(body.json, operation.records ?? '');
  if (!Array.isArray(records)) {
    const data = records === undefined ? null : project(records, fields, redact);
    return {
      data,
      returned: data === null ? 0 : 1,
      truncated: false,
      bytes: Buffer.byteLength(JSON.stringify(data)),
    };
  }
  const native = ctx.request.native as HttpRequest;
  const paging = native.paging;
  const limit = ctx.request.page?.limit ?? records.length;
  const rows = records.slice(0, limit).map((record) => project(record, fields, redact));
  const fitted = fitToBytes(rows, maxBytes);
  const truncated = fitted.truncated || records.length > limit;
  let cursor: string | undefined;
  if (paging !== undefined && ctx.request.page !== undefined) {
    const seal = ctx.request.page.seal;
    if (paging.style === 'cursor') {
      const next = atPointer(body.json, paging.nextPointer ?? '');
      if (typeof next === 'string' && next !== '') cursor = encodeCursor([next], seal);
    } else if (paging.style === 'link') {
      const next = nextLinkQuery(body.link, native.url, paging.carried ?? []);
      if (next !== undefined) cursor = encodeCursor([next], seal);
    } else if (fitted.items.length > 0 && (records.length >= limit || fitted.truncated)) {
      cursor = encodeCursor([paging.offset + fitted.items.length], seal);
    }
  }
  return {
    data: fitted.items,
    returned: fitted.items.length,
    truncated,
    ...(cursor === undefined ? {} : { cursor }),
    bytes: fitted.bytes,
  };
}
