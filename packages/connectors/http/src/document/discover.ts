/**
 * Discovery of an http resource: the OpenAPI document is fetched from the API's host (through
 * the same pinned, capped sender calls use), validated and `$ref`-resolved with Swagger Parser
 * (external references are never followed), and each selected operation's request and
 * responses are written into the spec. Request and response properties become fields.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { TollgateError, noCapabilities } from '@tollgate/core';
import type {
  CredentialResolver,
  DiscoveredField,
  DiscoveredSchema,
  DiscoverOptions,
  ResourceSpec,
} from '@tollgate/core';
import { authenticate } from '../execute/credential.js';
import { pinAddress } from '../execute/address.js';
import { send } from '../execute/send.js';
import { sameOrigin } from '../kind/rules.js';
import type {
  HttpFieldType,
  HttpMethod,
  HttpOperation,
  HttpParameter,
  HttpResponseShape,
  HttpSpec,
} from '../kind/spec.js';
import { toJsonSchema, typesOf } from './schema.js';

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const METHODS: readonly HttpMethod[] = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'];
/** Largest OpenAPI document read, bytes. */
export const MAX_DOCUMENT_BYTES = 8 * 1024 * 1024;
const RECORD_KEYS = ['data', 'items', 'results', 'records'];

/** One operation of the document, found by operationId. */
export interface DocumentOperation {
  method: HttpMethod;
  path: string;
  operation: Schema;
  pathItem: Schema;
}

/** Fetches the document from the declared host, pinned and capped like a call. */
export async function fetchDocument(
  spec: HttpSpec,
  credentials: CredentialResolver,
  options: DiscoverOptions = {},
): Promise<unknown> {
  const label = `the document at ${spec.connection.baseUrl}`;
  const url = sameOrigin(spec.connection.baseUrl, spec.document?.url ?? '');
  if (url === undefined)
    throw new TollgateError(
      'DESCRIPTOR_INVALID',
      "spec.document.url must be a path or URL on the base URL's host.",
    );
  const origin = url.origin;
  const limits = {
    resource: label,
    origin,
    timeoutMs: options.timeoutMs ?? spec.connection.timeoutMs ?? 5000,
    maxBytes: MAX_DOCUMENT_BYTES,
    pinned: await pinAddress(new URL(origin), label, options.egress),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  const auth = await authenticate(
    spec.connection.auth,
    spec.connection.credentialRef,
    credentials,
    limits,
  );
  for (const [name, value] of Object.entries(auth.query)) url.searchParams.set(name, value);
  let answer;
  try {
    answer = await send(
      { method: 'GET', url, headers: { accept: 'application/json', ...auth.headers } },
      limits,
    );
  } catch (err) {
    if (err instanceof TollgateError) throw err;
    throw new TollgateError(
      'UPSTREAM_UNAVAILABLE',
      `${label} cannot be read from here (the destination is not allowed or did not answer).`,
    );
  }
  if (answer.status !== 200)
    throw new TollgateError(
      'UPSTREAM_BAD_RESPONSE',
      `${label} answered ${answer.status}, not the document.`,
    );
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    throw new TollgateError(
      'UPSTREAM_BAD_RESPONSE',
      `${label} is not JSON (YAML documents: serve them as JSON).`,
    );
  }
}

/** Validates and dereferences an OpenAPI 3.0/3.1 document; only local `$ref`s are resolved. */
export async function readDocument(document: unknown): Promise<Schema> {
  if (
    !isObject(document) ||
    typeof document['openapi'] !== 'string' ||
    !/^3\.[01]\./.test(document['openapi'])
  )
    throw new TollgateError(
      'UPSTREAM_BAD_RESPONSE',
      'The document is not an OpenAPI 3.0 or 3.1 document.',
    );
  const options = { resolve: { external: false } } as const;
  try {
    await SwaggerParser.validate(structuredClone(document) as never, options as never);
    return (await SwaggerParser.dereference(
      structuredClone(document) as never,
      options as never,
    )) as unknown as Schema;
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0]?.slice(0, 200) : 'unreadable';
    throw new TollgateError(
      'UPSTREAM_BAD_RESPONSE',
      `The OpenAPI document is not valid: ${reason}`,
    );
  }
}

/** Every operation of a dereferenced document by operationId. */
export function operationsOf(api: Schema): Map<string, DocumentOperation> {
  const out = new Map<string, DocumentOperation>();
  for (const [path, raw] of Object.entries(isObject(api['paths']) ? api['paths'] : {})) {
    if (!isObject(raw)) continue;
    for (const method of METHODS) {
      const operation = raw[method];
      if (isObject(operation) && typeof operation['operationId'] === 'string')
        out.set(operation['operationId'], { method, path, operation, pathItem: raw });
    }
  }
  return out;
}

/** The single-record object schema of a body (an array-or-object choice reads as the object). */
function objectBranch(schema: Schema): Schema | undefined {
  if (typesOf(schema).includes('object') || isObject(schema['properties'])) return schema;
  for (const key of ['oneOf', 'anyOf']) {
    const branches = schema[key];
    if (Array.isArray(branches))
      for (const branch of branches)
        if (isObject(branch) && objectBranch(branch) !== undefined) return objectBranch(branch);
  }
  return undefined;
}

/** The request and responses the document declares for one operation. */
export function describeOperation(
  found: DocumentOperation,
): Pick<HttpOperation, 'request' | 'responses'> {
  const params = [
    ...(Array.isArray(found.pathItem['parameters']) ? found.pathItem['parameters'] : []),
    ...(Array.isArray(found.operation['parameters']) ? found.operation['parameters'] : []),
  ].filter(isObject);
  const byKey = new Map<string, HttpParameter>();
  for (const p of params) {
    const where = p['in'];
    if (where !== 'path' && where !== 'query' && where !== 'header') continue;
    if (typeof p['name'] !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(p['name'])) continue;
    byKey.set(`${where}:${p['name']}`, {
      name: p['name'],
      in: where,
      mandatory: where === 'path' || p['required'] === true,
      ...(p['explode'] === false ? { explode: false } : {}),
      schema: toJsonSchema(p['schema']),
      ...(typeof p['description'] === 'string'
        ? { description: p['description'].trim().slice(0, 2000) }
        : {}),
    });
  }
  const request: NonNullable<HttpOperation['request']> = {
    method: found.method,
    path: found.path,
    parameters: [...byKey.values()].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    ),
  };
  const body = isObject(found.operation['requestBody'])
    ? found.operation['requestBody']
    : undefined;
  const json = isObject(body?.['content']) ? jsonMedia(body['content'] as Schema) : undefined;
  const declaredBody = json === undefined ? undefined : toJsonSchema(json.media['schema']);
  const bodySchema = declaredBody === undefined ? undefined : objectBranch(declaredBody);
  if (declaredBody !== undefined && bodySchema !== undefined) {
    const branches = [
      ...(Array.isArray(declaredBody['oneOf']) ? declaredBody['oneOf'] : []),
      ...(Array.isArray(declaredBody['anyOf']) ? declaredBody['anyOf'] : []),
    ];
    const asList = branches.some(
      (b) => isObject(b) && typesOf(b).includes('array') && b['items'] === bodySchema,
    );
    request.body = {
      mandatory: body?.['required'] === true,
      schema: bodySchema,
      ...(asList ? { asList } : {}),
    };
  }
  const responses: Record<string, HttpResponseShape> = {};
  for (const [status, raw] of Object.entries(
    isObject(found.operation['responses']) ? found.operation['responses'] : {},
  )) {
    if (!isObject(raw)) continue;
    const content = isObject(raw['content']) ? jsonMedia(raw['content']) : undefined;
    responses[status] =
      content === undefined
        ? {}
        : {
            contentType: content.type,
            ...(isObject(content.media['schema'])
              ? { schema: toJsonSchema(content.media['schema']) }
              : {}),
          };
  }
  return { request, responses };
}

function jsonMedia(content: Schema): { type: string; media: Schema } | undefined {
  for (const [type, media] of Object.entries(content))
    if (/^application\/([a-z.+-]*\+)?json$/.test(type) && isObject(media)) return { type, media };
  return undefined;
}

const FIELD_TYPES: readonly HttpFieldType[] = [
  'string',
  'integer',
  'number',
  'boolean',
  'object',
  'array',
];
function fieldType(schema: unknown): HttpFieldType {
  const types = isObject(schema) ? typesOf(schema) : [];
  const only = types.length === 1 ? (types[0] as HttpFieldType) : undefined;
  return only !== undefined && FIELD_TYPES.includes(only) ? only : 'any';
}

/** The records a successful response holds, as a JSON pointer (`/data`) into its schema. */
export function recordsPointer(responses: Record<string, HttpResponseShape>): string {
  const success = Object.entries(responses).find(([status]) => /^2/.test(status))?.[1]?.schema;
  const properties = isObject(success?.['properties']) ? (success['properties'] as Schema) : {};
  const key = RECORD_KEYS.find((name) => Object.hasOwn(properties, name));
  return key === undefined ? '' : `/${key}`;
}

function recordSchema(schema: unknown): Schema | undefined {
  if (!isObject(schema)) return undefined;
  if (typesOf(schema).includes('array') && isObject(schema['items']))
    return recordSchema(schema['items']);
  return isObject(schema['properties']) ? schema : undefined;
}

/** Reads the document and describes the spec's selected operations: fields and a spec patch. */
export async function discoverHttp(
  resourceSpec: ResourceSpec,
  credentials: CredentialResolver,
  options: DiscoverOptions = {},
): Promise<DiscoveredSchema> {
  const spec = resourceSpec as unknown as HttpSpec;
  const api = await readDocument(await fetchDocument(spec, credentials, options));
  return describeSelection(spec, api);
}

/** The discovered schema of the selection against a dereferenced document (pure). */
export function describeSelection(spec: HttpSpec, api: Schema): DiscoveredSchema {
  const all = operationsOf(api);
  const fields = new Map<string, DiscoveredField>();
  const add = (name: string, schema: unknown, as: 'request' | 'response'): void => {
    const current = fields.get(name);
    const field = current ?? {
      path: name,
      type: fieldType(schema),
      nativeType: isObject(schema) ? typesOf(schema).join('|') || 'any' : 'any',
      supported: noCapabilities(),
      suggested: noCapabilities(),
      family: fieldType(schema),
    };
    if (as === 'request') field.supported.filterable = true;
    else field.supported.returnable = field.suggested.returnable = true;
    fields.set(name, field);
  };
  const specValues: NonNullable<DiscoveredSchema['specValues']> = [];
  const warnings: DiscoveredSchema['warnings'] = [];
  for (const [name, selected] of Object.entries(spec.operations ?? {})) {
    const found = all.get(selected.operationId);
    if (found === undefined) {
      warnings.push({
        code: 'operation_not_found',
        message: `Operation ${JSON.stringify(selected.operationId)} (${name}) is not in the document; nothing is offered for it.`,
      });
      continue;
    }
    const described = describeOperation(found);
    const patch: Partial<HttpOperation> = { ...described };
    if (selected.records === undefined) patch.records = recordsPointer(described.responses ?? {});
    if (selected.description === undefined && typeof found.operation['summary'] === 'string')
      patch.description = found.operation['summary'].slice(0, 2000);
    const params = described.request?.parameters ?? [];
    const named = (n: string): boolean => params.some((p) => p.name === n && p.in === 'query');
    if (
      selected.pagination === undefined &&
      found.method === 'get' &&
      named('limit') &&
      named('offset')
    )
      patch.pagination = { style: 'offset', limitParam: 'limit', offsetParam: 'offset' };
    for (const [key, value] of Object.entries(patch))
      if (value !== undefined)
        specValues.push({ path: ['operations', name, key], value: value as never });
    for (const p of params) add(p.name, p.schema, 'request');
    const body = described.request?.body?.schema;
    for (const [prop, sub] of Object.entries(
      isObject(body?.['properties']) ? (body['properties'] as Schema) : {},
    ))
      add(prop, sub, 'request');
    const success = Object.entries(described.responses ?? {}).find(([s]) => /^2/.test(s))?.[1]
      ?.schema;
    const records = recordSchema(atSchemaPointer(success, patch.records ?? selected.records ?? ''));
    for (const [prop, sub] of Object.entries(
      isObject(records?.['properties']) ? (records['properties'] as Schema) : {},
    ))
      add(prop, sub, 'response');
  }
  const info = isObject(api['info']) ? api['info'] : {};
  return {
    target:
      `${typeof info['title'] === 'string' ? info['title'] : 'API'} ${typeof info['version'] === 'string' ? info['version'] : ''}`.trim(),
    sources: Object.entries(spec.operations ?? {}).map(([name, op]) => ({
      name: `${name} (${op.operationId})`,
      objectType: 'operation',
    })),
    fields: [...fields.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    conflicts: [],
    warnings,
    sourceNoun: { one: 'document', many: 'operations' },
    specValues,
  };
}

/** The subschema at a pointer of property names (`/data`), through object properties. */
function atSchemaPointer(schema: unknown, pointer: string): unknown {
  let node = schema;
  for (const key of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const properties =
      isObject(node) && isObject(node['properties']) ? (node['properties'] as Schema) : {};
    node = properties[key];
  }
  return node;
}
