/**
 * The arguments of an http operation for one permission set: which parameters and body
 * properties a principal may send. Tools offer exactly these; the compiler re-checks calls
 * against the same reading, so what a tool does not offer cannot be sent.
 */
import type { PermissionSet } from '@tollgate/core';
import { toolValueSchema } from '../document/schema.js';
import type { HttpOperation, HttpParameter } from './spec.js';

type Schema = Record<string, unknown>;

/** One argument a principal may set. */
export interface OfferedArgument {
  /** The argument's name in the tool (`id`, `search`); body properties are under `body`. */
  name: string;
  required: boolean;
  schema: Schema;
  description?: string;
  parameter?: HttpParameter;
}

/** What a principal may send for one operation, or why nothing can be sent. */
export interface OfferedArguments {
  parameters: OfferedArgument[];
  /** Body properties a principal may set; undefined when the operation takes no body. */
  body?: { required: boolean; properties: OfferedArgument[] };
  /** Paging arguments (`limit`, `cursor`) are offered. */
  paged: boolean;
}

/** Why an operation cannot be offered: a required argument nobody may set nor pinned. */
export interface Unoffered {
  missing: string;
}

const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Parameters the platform sets for paging: never offered as such. */
export function pagingParameters(operation: HttpOperation): Set<string> {
  const p = operation.pagination;
  if (p === undefined) return new Set();
  if (p.style === 'offset') return new Set([p.limitParam, p.offsetParam]);
  if (p.style === 'page') return new Set([p.limitParam, p.pageParam]);
  if (p.style === 'link') return new Set([p.limitParam]);
  return new Set([p.limitParam, p.cursorParam]);
}

/** Reads the arguments a principal may set (fields it may set: `filterableFields`). */
export function offeredArguments(
  operation: HttpOperation,
  permissions: Pick<PermissionSet, 'filterableFields'>,
): OfferedArguments | Unoffered {
  const request = operation.request;
  if (request === undefined) return { missing: 'the request shape (run discovery)' };
  const settable = new Set(permissions.filterableFields);
  const pinned = operation.pinned ?? {};
  const paging = pagingParameters(operation);
  const parameters: OfferedArgument[] = [];
  for (const parameter of request.parameters) {
    if (paging.has(parameter.name) || Object.hasOwn(pinned, parameter.name)) continue;
    const schema = settable.has(parameter.name) ? toolValueSchema(parameter.schema) : undefined;
    if (schema === undefined) {
      if (parameter.mandatory) return { missing: `parameter ${parameter.name}` };
      continue;
    }
    parameters.push({
      name: parameter.name,
      required: parameter.mandatory,
      schema,
      parameter,
      ...(parameter.description === undefined ? {} : { description: parameter.description }),
    });
  }
  const result: OfferedArguments = { parameters, paged: operation.pagination !== undefined };
  if (request.body !== undefined) {
    const bodySchema = request.body.schema;
    // A PATCH changes what it names: documents often reuse the create schema for it (Directus
    // does), whose required properties would force every field into every update.
    const required = new Set(
      request.method !== 'patch' && Array.isArray(bodySchema['required'])
        ? (bodySchema['required'] as string[])
        : [],
    );
    const properties: OfferedArgument[] = [];
    const declared = isObject(bodySchema['properties']) ? bodySchema['properties'] : {};
    for (const [name, sub] of Object.entries(declared)) {
      if (Object.hasOwn(pinned, `body.${name}`)) continue;
      const schema = settable.has(name) && isObject(sub) ? toolValueSchema(sub) : undefined;
      if (schema === undefined) {
        if (required.has(name)) return { missing: `body property ${name}` };
        continue;
      }
      properties.push({ name, required: required.has(name), schema });
    }
    result.body = { required: request.body.mandatory, properties };
  }
  return result;
}
