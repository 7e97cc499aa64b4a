/**
 * Validated tool arguments → the HTTP request. Every argument is re-checked against what the
 * principal may set (the same reading the tool was offered from); pinned values are added last
 * and win; path values are percent-encoded into the document's template.
 */
import { decodeCursor, sealQuery, TollgateError } from '@tollgate/core';
import type { CompileContext, CompiledRequest, ErrorDetail } from '@tollgate/core';
import { offeredArguments } from '../kind/arguments.js';
import type { OfferedArgument } from '../kind/arguments.js';
import { classOf, methodIdempotent } from '../kind/operations.js';
import { httpSpec } from '../kind/spec.js';
import type { HttpMethod, HttpOperation, HttpParameter } from '../kind/spec.js';
import type { HttpPaging, HttpRequest } from '../native.js';

export const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_PAGE = 25;

/** Headers no parameter may set: the platform owns them. */
const RESERVED_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'upgrade',
  'te',
  'trailer',
  'keep-alive',
  'expect',
  'accept-encoding',
]);

type Scalar = string | number | boolean;
const isScalar = (v: unknown): v is Scalar =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

function invalid(details: ErrorDetail[]): TollgateError {
  return new TollgateError('ARGUMENTS_INVALID', 'The arguments do not fit this operation.', {
    details,
  });
}

export function compileRequest(
  operationName: string,
  args: unknown,
  ctx: CompileContext,
): CompiledRequest<HttpRequest> {
  const spec = httpSpec(ctx.descriptor);
  const operation = Object.hasOwn(spec.operations, operationName)
    ? spec.operations[operationName]
    : undefined;
  if (operation?.request === undefined)
    throw new TollgateError(
      'INTERNAL',
      `No operation "${operationName}" is described for ${ctx.descriptor.metadata.name}.`,
    );
  const offered = offeredArguments(operation, ctx.permissions);
  if ('missing' in offered)
    throw new TollgateError(
      'POLICY_DENIED',
      `This operation needs ${offered.missing}, which you may not set.`,
    );
  const given = (
    typeof args === 'object' && args !== null && !Array.isArray(args) ? args : {}
  ) as Record<string, unknown>;
  const details: ErrorDetail[] = [];
  const byName = new Map(offered.parameters.map((a) => [a.name, a]));
  const values = new Map<string, unknown>();
  for (const [key, value] of Object.entries(given)) {
    if (value === null) continue;
    if (key === 'body' || (offered.paged && (key === 'limit' || key === 'cursor'))) continue;
    if (!byName.has(key)) details.push({ path: key, message: 'not an argument you may set' });
    else values.set(key, value);
  }
  for (const arg of offered.parameters)
    if (arg.required && !values.has(arg.name))
      details.push({ path: arg.name, message: 'required' });
  const body = compileBody(operation, offered.body, given['body'], details);
  for (const [key, value] of Object.entries(operation.pinned ?? {}))
    if (!key.startsWith('body.')) values.set(key, value);
  const paging = compilePaging(operation, given, ctx, values, details);
  if (details.length > 0) throw invalid(details);

  const request = operation.request;
  const base = new URL(spec.connection.baseUrl);
  let path = request.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const parameter of request.parameters) {
    if (!values.has(parameter.name)) continue;
    place(parameter, values.get(parameter.name), { query, headers }, details, (v) => {
      path = path.split(`{${parameter.name}}`).join(encodeURIComponent(v));
    });
  }
  if (/\{[^}]*\}/.test(path))
    details.push({ path: 'path', message: 'a path parameter has no value' });
  if (details.length > 0) throw invalid(details);
  if (paging?.carried !== undefined) {
    const own = new Set(query.keys());
    // A parameter the operator put under field permissions is never the upstream's to set
    // when this principal may not set it (pinned ones are the request's own already).
    const fields = spec.schema.fields as Record<string, { filterable?: boolean } | undefined>;
    const closed = new Set(
      request.parameters
        .filter((p) => fields[p.name]?.filterable === true && !byName.has(p.name))
        .map((p) => p.name),
    );
    const carried = new Set<string>();
    for (const [name, value] of paging.carried) {
      if (own.has(name) || closed.has(name)) continue;
      query.append(name, value);
      carried.add(name);
    }
    paging.native.carried = [...carried].sort();
  }
  const url = new URL(base.href.replace(/\/$/, '') + path);
  url.search = query.toString();
  if (url.origin !== base.origin)
    throw new TollgateError('INTERNAL', 'The request left the declared host.');
  const cls = classOf(operation as HttpOperation & { request: { method: HttpMethod } });
  const native: HttpRequest = {
    method: request.method.toUpperCase(),
    url: url.href,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: request.body?.asList === true ? [body] : body }),
    ...(paging === undefined ? {} : { paging: paging.native }),
  };
  return {
    kind: 'http',
    operation: operationName,
    resource: ctx.descriptor.metadata.name,
    timeoutMs: Math.min(
      operation.timeoutMs ?? Infinity,
      spec.connection.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ),
    idempotent: cls === 'read' || methodIdempotent(request.method),
    fields: [...ctx.permissions.visibleFields].sort(),
    ...(paging === undefined ? {} : { page: paging.page }),
    native,
  };
}

function compileBody(
  operation: HttpOperation,
  offered: { required: boolean; properties: OfferedArgument[] } | undefined,
  given: unknown,
  details: ErrorDetail[],
): Record<string, unknown> | undefined {
  if (offered === undefined) {
    if (given !== undefined && given !== null)
      details.push({ path: 'body', message: 'this operation takes no body' });
    return undefined;
  }
  const pinned = Object.entries(operation.pinned ?? {}).filter(([key]) => key.startsWith('body.'));
  if ((given === undefined || given === null) && pinned.length === 0) {
    if (offered.required) details.push({ path: 'body', message: 'required' });
    return offered.required ? {} : undefined;
  }
  const record = (
    typeof given === 'object' && given !== null && !Array.isArray(given) ? given : {}
  ) as Record<string, unknown>;
  const allowed = new Map(offered.properties.map((p) => [p.name, p]));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (value === null) continue;
    if (!allowed.has(key))
      details.push({ path: `body.${key}`, message: 'not a property you may set' });
    else out[key] = value;
  }
  for (const p of offered.properties)
    if (p.required && !(p.name in out))
      details.push({ path: `body.${p.name}`, message: 'required' });
  for (const [key, value] of pinned) out[key.slice(5)] = value;
  return out;
}

function place(
  parameter: HttpParameter,
  value: unknown,
  target: { query: URLSearchParams; headers: Record<string, string> },
  details: ErrorDetail[],
  inPath: (value: string) => void,
): void {
  const values = Array.isArray(value) ? value : [value];
  if (!values.every(isScalar) || (parameter.in !== 'query' && Array.isArray(value))) {
    details.push({ path: parameter.name, message: "expected a value of the parameter's type" });
    return;
  }
  const text = values.map(String);
  if (parameter.in === 'path') inPath(text[0] ?? '');
  else if (parameter.in === 'query') {
    if (parameter.explode === false) target.query.append(parameter.name, text.join(','));
    else for (const t of text) target.query.append(parameter.name, t);
  } else {
    const name = parameter.name.toLowerCase();
    if (RESERVED_HEADERS.has(name) || /[\r\n]/.test(text[0] ?? '')) {
      details.push({ path: parameter.name, message: 'this header cannot be set' });
      return;
    }
    target.headers[name] = text[0] ?? '';
  }
}

function compilePaging(
  operation: HttpOperation,
  given: Record<string, unknown>,
  ctx: CompileContext,
  values: Map<string, unknown>,
  details: ErrorDetail[],
):
  | { native: HttpPaging; page: NonNullable<CompiledRequest['page']>; carried?: URLSearchParams }
  | undefined {
  const p = operation.pagination;
  if (p === undefined) return undefined;
  const cap = Math.max(
    1,
    Math.min(ctx.permissions.limitCap, ctx.descriptor.spec.access.maxLimit ?? 100),
  );
  const limit = typeof given['limit'] === 'number' ? given['limit'] : Math.min(DEFAULT_PAGE, cap);
  if (!Number.isInteger(limit) || limit < 1 || limit > cap) {
    details.push({
      path: 'limit',
      message: `expected an integer from 1 to ${cap}`,
      found: String(limit),
    });
    return undefined;
  }
  // Everything but the position and page size: a cursor only continues the query it came from.
  const shape = {
    operation: operation.operationId,
    values: [...values.entries()].sort(),
    body: given['body'] ?? null,
  };
  const seal = sealQuery(shape, ctx.cursorKey);
  const cursor = typeof given['cursor'] === 'string' ? given['cursor'] : undefined;
  const after = cursor === undefined ? undefined : decodeCursor(cursor, seal, 1)[0];
  const page = { limit, sortKeys: 1, seal, continued: cursor !== undefined };
  values.set(p.limitParam, limit);
  if (p.style === 'cursor') {
    if (typeof after === 'string') values.set(p.cursorParam, after);
    return { native: { style: 'cursor', limit, offset: 0, nextPointer: p.nextPointer }, page };
  }
  if (p.style === 'link') {
    // The cursor holds the query parameters the upstream's next link added; they are laid
    // under the request's own once its query is built (they never replace one).
    const carried = typeof after === 'string' ? new URLSearchParams(after) : undefined;
    return {
      native: { style: 'link', limit, offset: 0 },
      page,
      ...(carried === undefined ? {} : { carried }),
    };
  }
  const offset = typeof after === 'number' && Number.isInteger(after) && after >= 0 ? after : 0;
  if (p.style === 'offset') values.set(p.offsetParam, offset);
  else values.set(p.pageParam, Math.floor(offset / limit) + 1);
  return { native: { style: p.style, limit, offset }, page };
}
