import {
  DEFAULT_MAX_BYTES,
  effectiveRedactions,
  encodeCursor,
  fitToBytes,
  TollgateError,
} from '@tollgate/core';
import type { ShapeContext, ShapedResult, UpstreamResponse } from '@tollgate/core';

import type { EsRequest, EsSearchRequest } from '../native.js';
import { checkAggregation, MAX_BUCKETS } from './aggregation.js';
import type { Bucket } from './aggregation.js';
import { projectDocument } from './project.js';
import { asCount, asRecord, badResponse, checkHits } from './response.js';
import type { CheckedHit } from './response.js';

/**
 * Checks the upstream answer and reduces it to what the agent may see: visible fields only,
 * redaction applied, row and byte caps enforced, and a cursor when more rows may exist.
 */
export function shapeResult(
  operation: string,
  upstream: UpstreamResponse,
  ctx: ShapeContext,
): ShapedResult {
  const native = ctx.request.native as EsRequest;
  const maxBytes = ctx.maxBytes ?? DEFAULT_MAX_BYTES;
  switch (operation) {
    case 'search':
      return shapeSearch(upstream.body, ctx, maxBytes);
    case 'get':
      return shapeGet(upstream.body, ctx, maxBytes);
    case 'count': {
      const count = asCount(asRecord(upstream.body, 'count', 'body')['count'], 'count', 'count');
      return sized(
        { count },
        { returned: 0, total: { value: count, relation: 'eq' }, truncated: false },
      );
    }
    case 'aggregate':
      return shapeAggregate(upstream.body, native as EsSearchRequest, maxBytes);
    case 'write': {
      const body = asRecord(upstream.body, 'write', 'body');
      if (typeof body['_id'] !== 'string' || typeof body['result'] !== 'string') {
        throw badResponse('write', '_id or result is missing');
      }
      return sized({ _id: body['_id'], result: body['result'] }, { returned: 1, truncated: false });
    }
    default:
      throw new TollgateError('INTERNAL', `No shaping for operation "${operation}".`);
  }
}

function toRow(hit: CheckedHit, ctx: ShapeContext): Record<string, unknown> {
  const redact = effectiveRedactions(ctx.descriptor.spec.access, ctx.permissions);
  // Compiled fields were checked already; intersecting again costs nothing.
  const visible = new Set(ctx.permissions.visibleFields);
  const fields = ctx.request.fields.filter((field) => visible.has(field));
  return { _id: hit.id, ...projectDocument(hit.source, fields, redact) };
}

function shapeSearch(body: unknown, ctx: ShapeContext, maxBytes: number): ShapedResult {
  const page = ctx.request.page;
  if (page === undefined)
    throw new TollgateError('INTERNAL', 'A search request was compiled without paging.');
  const { hits, total } = checkHits(body, 'search', page.sortKeys);
  const capped = hits.slice(0, page.limit);
  const rows = capped.map((hit) => toRow(hit, ctx));
  const fitted = fitToBytes(rows, maxBytes);
  const truncated = fitted.truncated || hits.length > page.limit;
  const complete = total?.relation === 'eq' && !page.continued && total.value <= capped.length;
  const more = truncated || (capped.length >= page.limit && !complete);
  // After a byte cut, continue right after the last row kept (or past a row too big to send).
  const last = capped[Math.max(fitted.items.length - 1, 0)];
  const cursor = more && last?.sort !== undefined ? encodeCursor(last.sort, page.seal) : undefined;
  return {
    data: fitted.items,
    returned: fitted.items.length,
    ...(total === undefined ? {} : { total }),
    truncated,
    ...(cursor === undefined ? {} : { cursor }),
    bytes: fitted.bytes,
  };
}

function shapeGet(body: unknown, ctx: ShapeContext, maxBytes: number): ShapedResult {
  const { hits } = checkHits(body, 'get', 0);
  const hit = hits[0];
  if (hit === undefined) {
    throw new TollgateError(
      'NOT_FOUND',
      `No document with that id in ${ctx.request.resource} (or it is outside what you may see).`,
    );
  }
  const fitted = fitToBytes(Object.entries(toRow(hit, ctx)), maxBytes, (entries) =>
    Object.fromEntries(entries),
  );
  return {
    data: Object.fromEntries(fitted.items),
    returned: 1,
    truncated: fitted.truncated,
    bytes: fitted.bytes,
  };
}

function shapeAggregate(body: unknown, request: EsSearchRequest, maxBytes: number): ShapedResult {
  const aggregation = request.body.aggs?.result;
  if (aggregation === undefined)
    throw new TollgateError('INTERNAL', 'An aggregate request has no aggregation.');
  const { data, total } = checkAggregation(body, aggregation);
  if (data.buckets === undefined) {
    return sized(data, {
      returned: 1,
      ...(total === undefined ? {} : { total }),
      truncated: false,
    });
  }
  const capped = data.buckets.slice(0, MAX_BUCKETS);
  const fitted = fitToBytes(capped, maxBytes, (buckets: Bucket[]) => ({ ...data, buckets }));
  return {
    data: { ...data, buckets: fitted.items },
    returned: fitted.items.length,
    ...(total === undefined ? {} : { total }),
    truncated: fitted.truncated || data.buckets.length > MAX_BUCKETS,
    bytes: fitted.bytes,
  };
}

function sized(data: unknown, meta: Omit<ShapedResult, 'data' | 'bytes'>): ShapedResult {
  return { data, ...meta, bytes: Buffer.byteLength(JSON.stringify(data), 'utf8') };
}
