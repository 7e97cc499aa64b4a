/**
 * The tools of an http resource: per granted operation, a closed JSON Schema of the
 * parameters and body properties the principal may set (pinned ones are never offered), and
 * `limit`/`cursor` for operations that page.
 */
import type { JsonSchema, ToolOffer, ToolRequest } from '@tollgate/core';
import { orNull } from '../document/schema.js';
import { offeredArguments } from './arguments.js';
import type { OfferedArgument } from './arguments.js';
import { classOf } from './operations.js';
import type { HttpMethod, HttpOperation, HttpSpec } from './spec.js';

type Schema = Record<string, unknown>;

function objectOf(args: readonly OfferedArgument[]): { properties: Schema; required: string[] } {
  const properties: Schema = {};
  const required: string[] = [];
  for (const arg of args) {
    const schema =
      arg.description === undefined ? arg.schema : { ...arg.schema, description: arg.description };
    properties[arg.name] = arg.required ? schema : orNull(schema);
    if (arg.required) required.push(arg.name);
  }
  return { properties, required };
}

/** The input schema of one operation for one permission set; undefined when nothing fits. */
export function operationSchema(
  operation: HttpOperation,
  request: Pick<ToolRequest, 'permissions' | 'limits'>,
  maxLimit: number,
): Schema | undefined {
  const offered = offeredArguments(operation, request.permissions);
  if ('missing' in offered) return undefined;
  const top = objectOf(offered.parameters);
  if (offered.body !== undefined) {
    const body = objectOf(offered.body.properties);
    const bodySchema: Schema = {
      type: 'object',
      description: 'The JSON body of the request.',
      properties: body.properties,
      ...(body.required.length > 0 ? { required: body.required } : {}),
      additionalProperties: false,
    };
    if (offered.body.properties.length > 0 || offered.body.required) {
      top.properties['body'] = offered.body.required ? bodySchema : orNull(bodySchema);
      if (offered.body.required) top.required.push('body');
    }
  }
  if (offered.paged) {
    const cap = Math.max(1, Math.min(request.permissions.limitCap, maxLimit));
    top.properties['limit'] = {
      type: ['integer', 'null'],
      minimum: 1,
      maximum: cap,
      description: `Records per page (1-${cap}); null for ${Math.min(25, cap)}.`,
    };
    top.properties['cursor'] = {
      type: ['string', 'null'],
      description: 'The cursor of the previous page, to continue; null for the first page.',
    };
  }
  return {
    type: 'object',
    properties: top.properties,
    ...(top.required.length > 0 ? { required: top.required.sort() } : {}),
    additionalProperties: false,
  };
}

function describe(
  name: string,
  operation: HttpOperation,
  resource: ToolRequest['resource'],
): string {
  const request = operation.request as { method: HttpMethod; path: string };
  const what = operation.description ?? `${request.method.toUpperCase()} ${request.path}`;
  const on = resource.metadata.description ?? `the ${resource.metadata.name} API`;
  const cls = classOf(operation as HttpOperation & { request: { method: HttpMethod } });
  const effect =
    cls === 'read'
      ? 'Reads only.'
      : cls === 'write'
        ? 'Changes data.'
        : 'Removes or irreversibly changes data.';
  const paging =
    operation.pagination === undefined ? '' : ' Pages: pass the returned cursor to continue.';
  return `${what} (${name} on ${on}). ${effect}${paging}`;
}

/** `ResourceKind.offerTools` of the http kind. */
export function offerHttpTools(request: ToolRequest): ReadonlyMap<string, ToolOffer> {
  const spec = request.resource.spec as unknown as HttpSpec;
  const maxLimit = spec.access.maxLimit ?? 100;
  const offers = new Map<string, ToolOffer>();
  for (const { name } of request.operations) {
    const operation = spec.operations[name];
    if (operation === undefined) continue;
    const schema = operationSchema(operation, request, maxLimit);
    if (schema === undefined) continue;
    offers.set(name, {
      inputSchema: schema as JsonSchema,
      description: describe(name, operation, request.resource),
    });
  }
  return offers;
}
