/**
 * The operations of an http resource: one per selected operation the document describes. The
 * class defaults from the method and may only be made stricter; only reads and methods HTTP
 * defines as idempotent (PUT, DELETE) are idempotent, so a POST or PATCH is never retried.
 */
import type { OperationClass, OperationSpec, ResourceDescriptor } from '@tollgate/core';
import type { HttpMethod, HttpOperation, HttpSpec } from './spec.js';

const RANK: Record<OperationClass, number> = { read: 0, write: 1, destructive: 2 };

/** The class a method implies. */
export function methodClass(method: HttpMethod): OperationClass {
  if (method === 'get' || method === 'head' || method === 'options') return 'read';
  return method === 'delete' ? 'destructive' : 'write';
}

/** Whether re-sending the method cannot do more than sending once (RFC 9110 §9.2.2). */
export function methodIdempotent(method: HttpMethod): boolean {
  return method !== 'post' && method !== 'patch';
}

/** Whether `declared` is at least as strict as what the method implies. */
export function tightens(declared: OperationClass, method: HttpMethod): boolean {
  return RANK[declared] >= RANK[methodClass(method)];
}

/** The effective class: the declared one when it tightens, else the method's. */
export function classOf(
  operation: HttpOperation & { request: { method: HttpMethod } },
): OperationClass {
  const byMethod = methodClass(operation.request.method);
  const declared = operation.class;
  return declared !== undefined && RANK[declared] > RANK[byMethod] ? declared : byMethod;
}

/**
 * Selected operations discovery has described, in name order; writes only when the resource
 * is declared `readonly: false`. An operation without its request shape offers nothing yet.
 */
export function httpOperations(descriptor: ResourceDescriptor): OperationSpec[] {
  const spec = descriptor.spec as unknown as Partial<HttpSpec>;
  const writable = spec.access?.readonly === false;
  const out: OperationSpec[] = [];
  for (const name of Object.keys(spec.operations ?? {}).sort()) {
    const operation = spec.operations?.[name];
    if (operation?.request === undefined) continue;
    const described = operation as HttpOperation & { request: { method: HttpMethod } };
    const cls = classOf(described);
    if (cls !== 'read' && !writable) continue;
    out.push({
      name,
      action: name,
      class: cls,
      idempotent: cls === 'read' || methodIdempotent(described.request.method),
      returnsFields: true,
      ...(operation.pagination === undefined ? {} : { limited: true }),
    });
  }
  return out;
}
