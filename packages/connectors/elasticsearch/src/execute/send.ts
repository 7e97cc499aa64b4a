import type { Client, estypes } from '@elastic/elasticsearch';
import { TollgateError } from '@tollgate/core';

import type { EsRequest, EsWriteRequest } from '../native.js';
import { MutationFailed } from './attempts.js';
import type { AttemptOptions } from './attempts.js';

/** An upstream answer: status and parsed body. */
export interface Answer {
  status: number;
  body: unknown;
}

/** Sends one compiled request as is; the compiler already produced the exact body. */
export async function sendRequest(
  client: Client,
  native: EsRequest,
  options: AttemptOptions,
): Promise<Answer> {
  const transport = { ...options, meta: true as const };
  switch (native.api) {
    case 'search': {
      const request = { index: native.index, ...native.body } as estypes.SearchRequest;
      const { statusCode, body } = await client.search(request, transport);
      return { status: statusCode, body };
    }
    case 'count': {
      const { statusCode, body } = await client.count(
        { index: native.index, ...native.body } as estypes.CountRequest,
        transport,
      );
      return { status: statusCode, body };
    }
    case 'write':
      return native.guard === null
        ? sendUpsert(client, native, options)
        : sendGuarded(client, native, native.guard, options);
  }
}

/** No row scope: a partial update that creates the document when missing. */
async function sendUpsert(
  client: Client,
  native: EsWriteRequest,
  options: AttemptOptions,
): Promise<Answer> {
  try {
    const { statusCode, body } = await client.update(
      {
        index: native.index,
        id: native.id,
        doc: native.document,
        doc_as_upsert: true,
        refresh: native.refresh,
      },
      { ...options, meta: true },
    );
    return { status: statusCode, body };
  } catch (err) {
    throw new MutationFailed(err);
  }
}

/**
 * Row-scoped write: read the current owner (realtime), then create with `op_type: create` when
 * absent, or update with `if_seq_no`/`if_primary_term` when it is in the principal's scope, so
 * a concurrent change between the two steps fails instead of crossing scopes.
 */
async function sendGuarded(
  client: Client,
  native: EsWriteRequest,
  guard: { field: string; value: string },
  options: AttemptOptions,
): Promise<Answer> {
  const current = await client.get(
    { index: native.index, id: native.id, _source_includes: [guard.field], realtime: true },
    { ...options, meta: true, ignore: [404] },
  );
  const found = current.body as {
    found?: unknown;
    error?: unknown;
    _source?: unknown;
    _seq_no?: number;
    _primary_term?: number;
  };
  if (found.error !== undefined) {
    throw new TollgateError('NOT_FOUND', 'The index to write to does not exist.');
  }
  try {
    if (found.found !== true) {
      const { statusCode, body } = await client.index(
        {
          index: native.index,
          id: native.id,
          document: native.document,
          op_type: 'create',
          refresh: native.refresh,
        },
        { ...options, meta: true },
      );
      return { status: statusCode, body };
    }
    if (valueAt(found._source, guard.field) !== guard.value) {
      throw new TollgateError(
        'ALREADY_EXISTS',
        'A document with this id already exists outside your scope; use another id.',
      );
    }
    if (typeof found._seq_no !== 'number' || typeof found._primary_term !== 'number') {
      throw new TollgateError(
        'UPSTREAM_BAD_RESPONSE',
        'Elasticsearch returned a document without its sequence number.',
      );
    }
    const { statusCode, body } = await client.update(
      {
        index: native.index,
        id: native.id,
        doc: native.document,
        refresh: native.refresh,
        if_seq_no: found._seq_no,
        if_primary_term: found._primary_term,
      },
      { ...options, meta: true },
    );
    return { status: statusCode, body };
  } catch (err) {
    if (err instanceof TollgateError) throw err;
    throw new MutationFailed(err);
  }
}

/** A value at a dotted path, through nested objects or a literal dotted key. */
function valueAt(source: unknown, path: string): unknown {
  if (typeof source !== 'object' || source === null) return undefined;
  const record = source as Record<string, unknown>;
  if (Object.hasOwn(record, path)) return record[path];
  const dot = path.indexOf('.');
  if (dot < 0) return undefined;
  return valueAt(
    Object.hasOwn(record, path.slice(0, dot)) ? record[path.slice(0, dot)] : undefined,
    path.slice(dot + 1),
  );
}
