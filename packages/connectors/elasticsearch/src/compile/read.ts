import { decodeCursor, sealQuery } from '@tollgate/core';
import type { CompileContext, CompiledRequest } from '@tollgate/core';

import type { EsCountRequest, EsSearchBody, EsSearchRequest } from '../native.js';
import { boolQuery, compileFilters } from './filters.js';
import { compileFields, compileLimit, compileSort } from './projection.js';
import { compiledRequest } from './request.js';
import { checkKeys, own, Violations } from '@tollgate/core';
import { esSpec } from '../kind/spec.js';

/** Totals are counted exactly up to this many matches, then reported as a lower bound. */
export const TRACK_TOTAL_HITS = 10_000;
/** Longest document id accepted (Elasticsearch's own limit is 512 bytes). */
export const MAX_ID_LENGTH = 512;

/** `<name>_search` arguments → a paged search with `search_after`. */
export function compileSearch(
  args: unknown,
  ctx: CompileContext,
): CompiledRequest<EsSearchRequest> {
  const violations = new Violations();
  if (!checkKeys(args, ['filters', 'fields', 'sort', 'limit', 'cursor'], '', violations)) {
    violations.throwIfAny('search');
  }
  const input = args as Record<string, unknown>;
  const filters = compileFilters(own(input, 'filters'), ctx, violations);
  const fields = compileFields(own(input, 'fields'), ctx, violations);
  const sort = compileSort(own(input, 'sort'), ctx, violations, filters.must.length > 0);
  const limit = compileLimit(own(input, 'limit'), ctx, violations);
  const cursor = own(input, 'cursor');
  if (cursor !== undefined && cursor !== null && typeof cursor !== 'string') {
    violations.add('cursor', 'expected a cursor string from a previous page', 'string', cursor);
  }
  violations.throwIfAny('search');

  const index = esSpec(ctx.descriptor).target.index;
  const query = boolQuery(ctx, filters);
  const seal = sealQuery(
    { resource: ctx.descriptor.metadata.name, index, query, sort, fields },
    ctx.cursorKey,
  );
  const after = typeof cursor === 'string' ? decodeCursor(cursor, seal, sort.length) : undefined;
  const body: EsSearchBody = {
    query,
    _source: fields.length > 0 ? { includes: fields } : false,
    size: limit,
    sort,
    ...(after === undefined ? {} : { search_after: after }),
    track_total_hits: TRACK_TOTAL_HITS,
  };
  return compiledRequest(
    ctx,
    'search',
    fields,
    { api: 'search', index, body },
    {
      limit,
      sortKeys: sort.length,
      seal,
      continued: after !== undefined,
    },
  );
}

/** `<name>_get` arguments → a one-document search by id, so the row filter still applies. */
export function compileGet(args: unknown, ctx: CompileContext): CompiledRequest<EsSearchRequest> {
  const violations = new Violations();
  if (!checkKeys(args, ['id', 'fields'], '', violations)) violations.throwIfAny('get');
  const input = args as Record<string, unknown>;
  const id = compileId(own(input, 'id'), violations);
  const fields = compileFields(own(input, 'fields'), ctx, violations);
  violations.throwIfAny('get');

  const index = esSpec(ctx.descriptor).target.index;
  const query = boolQuery(ctx, { filter: [], must: [] }, [{ ids: { values: [id] } }]);
  const body: EsSearchBody = {
    query,
    _source: fields.length > 0 ? { includes: fields } : false,
    size: 1,
    track_total_hits: false,
  };
  return compiledRequest(ctx, 'get', fields, { api: 'search', index, body });
}

/** `<name>_count` arguments → an exact count under the same filters and row filter. */
export function compileCount(args: unknown, ctx: CompileContext): CompiledRequest<EsCountRequest> {
  const violations = new Violations();
  if (!checkKeys(args, ['filters'], '', violations)) violations.throwIfAny('count');
  const filters = compileFilters(own(args as Record<string, unknown>, 'filters'), ctx, violations);
  violations.throwIfAny('count');
  const index = esSpec(ctx.descriptor).target.index;
  return compiledRequest(ctx, 'count', [], {
    api: 'count',
    index,
    body: { query: boolQuery(ctx, filters) },
  });
}

/** A document id: a non-empty string of at most 512 characters. */
export function compileId(raw: unknown, violations: Violations): string {
  const expected = `non-empty string of at most ${MAX_ID_LENGTH} characters`;
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_ID_LENGTH) {
    violations.add('id', `expected a ${expected}`, expected, raw);
    return '';
  }
  return raw;
}
