/**
 * Resources for the synthesis tests: the shared rich `es_orders` fixture (every field type),
 * a writable variant of it, and generated wide resources for scale. One copy: core's recall
 * tests and the Elasticsearch kind's family tests and bench all read these.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type {
  FieldSpec,
  JsonObject,
  ResourceDescriptor,
  ToolDefinition,
  VersionedResource,
  ResourceSpec,
} from '../src/index.js';

const ORDERS_YAML = new URL('./fixtures/es_orders.resource.yaml', import.meta.url);

/** `es_orders` as the registry would hand it out: version 7. */
export function orders(): VersionedResource {
  const descriptor = parse(readFileSync(ORDERS_YAML, 'utf8')) as ResourceDescriptor;
  return { ...descriptor, version: 7 };
}

/** `es_orders` declared writable, so every operation (write included) is synthesized. */
export function writableOrders(): VersionedResource {
  const resource = orders();
  return {
    ...resource,
    spec: { ...resource.spec, access: { ...resource.spec.access, readonly: false } },
  };
}

const WIDE_TYPES: FieldSpec[] = [
  { type: 'keyword', filterable: true, returnable: true, sortable: true, aggregatable: true },
  { type: 'long', filterable: true, range: true, returnable: true, sortable: true },
  { type: 'double', range: true, returnable: true, aggregatable: true },
  { type: 'date', filterable: true, range: true, returnable: true, sortable: true },
  { type: 'text', searchable: true, returnable: true },
  { type: 'boolean', filterable: true, returnable: true },
  { type: 'ip', filterable: true, returnable: true },
  { type: 'keyword', returnable: true, description: 'Shown, never filtered' },
];

/** A resource with `count` fields cycling through every type and capability mix. */
export function wideResource(count: number): VersionedResource {
  const fields: Record<string, FieldSpec> = {};
  for (let i = 0; i < count; i++) {
    const spec = WIDE_TYPES[i % WIDE_TYPES.length] as FieldSpec;
    fields[`field_${String(i).padStart(3, '0')}`] = { ...spec, description: `Field number ${i}` };
  }
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    version: 1,
    metadata: {
      name: 'es_wide',
      tenant: 'team-a',
      environment: 'prod',
      description: 'A wide event index.',
    },
    spec: {
      type: 'elasticsearch',
      connection: { endpoint: 'http://es.internal:9200' },
      target: { index: 'wide' },
      schema: { fields },
      access: { allowedRoles: ['analyst'], readonly: false, maxLimit: 500 },
    } as ResourceSpec,
  };
}

/** A tool's filter branches as `field → op → value schema` (exists maps to undefined). */
export function filterTable(tool: ToolDefinition): Map<string, Map<string, unknown>> {
  const table = new Map<string, Map<string, unknown>>();
  const props = tool.inputSchema.properties as Record<string, JsonObject>;
  const items = (props.filters?.items as JsonObject | undefined)?.anyOf as JsonObject[] | undefined;
  for (const branch of items ?? []) {
    const p = branch.properties as Record<string, JsonObject>;
    const fields = (p.field?.const !== undefined ? [p.field.const] : p.field?.enum) as string[];
    const ops = (p.op?.const !== undefined ? [p.op.const] : p.op?.enum) as string[];
    for (const field of fields) {
      const row = table.get(field) ?? new Map<string, unknown>();
      for (const op of ops) row.set(op, p.value);
      table.set(field, row);
    }
  }
  return table;
}

/** The schema of a top-level argument. */
export function argSchema(tool: ToolDefinition, name: string): JsonObject | undefined {
  return (tool.inputSchema.properties as Record<string, JsonObject>)[name];
}

/** The tool with this operation (fails loudly when absent). */
export function toolFor(tools: ToolDefinition[], operation: string): ToolDefinition {
  const tool = tools.find((t) => t.operation === operation);
  if (tool === undefined)
    throw new Error(`no ${operation} tool among ${tools.map((t) => t.name).join(', ')}`);
  return tool;
}
