import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { describe, expect, test } from 'vitest';
import {
  SCHEMA_DIR,
  SCHEMA_FILES,
  generateDescriptorSchemas,
  generateKindSpecSchema,
} from '../scripts/descriptor-schema.js';
import type { SchemaFileName } from '../scripts/descriptor-schema.js';
import {
  agentSchema,
  kindSpecSchemaId,
  policySchema,
  resourceMetadataSchema,
  resourceSchemaFor,
} from '../src/index.js';
import { sampleKind } from './support/sample-kind.js';

const published = (file: SchemaFileName): string => readFileSync(join(SCHEMA_DIR, file), 'utf8');
const support = fileURLToPath(new URL('./support/', import.meta.url));

const agent = {
  apiVersion: 'tollgate.dev/v1',
  kind: 'Agent',
  metadata: { name: 'support', tenant: 'team-a' },
  spec: { roles: ['support'] },
};
const resource = {
  apiVersion: 'tollgate.dev/v1',
  kind: 'Resource',
  metadata: { name: 'orders', tenant: 'team-a', environment: 'prod' },
  spec: {
    type: 'sample',
    connection: { url: 'sample://orders' },
    target: { table: 'orders' },
    schema: { fields: { id: { type: 'string', filterable: true, key: true } } },
    access: { allowedRoles: ['support'] },
  },
};

describe('descriptor JSON Schema', () => {
  test('schema - the committed schemas match the TypeScript types (run `pnpm --filter @tollgate/core gen:schema`)', async () => {
    const generated = await generateDescriptorSchemas();
    for (const file of Object.keys(SCHEMA_FILES) as SchemaFileName[]) {
      expect(published(file), `${file} is stale`).toBe(generated[file]);
    }
    const sample = await generateKindSpecSchema(
      join(support, '../..'),
      join(support, 'sample-spec.ts'),
      'SampleSpec',
      join(support, 'tsconfig.json'),
    );
    expect(readFileSync(join(support, 'sample-spec.schema.json'), 'utf8')).toBe(sample);
  }, 60_000);

  test('schema - validation runs on the published schemas', () => {
    expect(agentSchema).toEqual(JSON.parse(published('agent.schema.json')));
    expect(policySchema).toEqual(JSON.parse(published('policy.schema.json')));
    expect(resourceMetadataSchema).toEqual(JSON.parse(published('resource-metadata.schema.json')));
  });

  test('schema - an editor using the published schemas accepts valid and rejects unknown keys', () => {
    const ajv = new Ajv({ allErrors: true, strict: true });
    ajv.addSchema(resourceMetadataSchema);
    ajv.addSchema({ ...sampleKind.specSchema, $id: kindSpecSchemaId(sampleKind.type) });
    const agents = ajv.compile(agentSchema);
    const resources = ajv.compile(resourceSchemaFor(sampleKind));
    expect(agents(agent)).toBe(true);
    expect(agents({ ...agent, extra: true })).toBe(false);
    expect(resources(resource)).toBe(true);
    expect(resources(agent)).toBe(false);
    expect(resources({ ...resource, spec: { ...resource.spec, index: 'x' } })).toBe(false);
  });
});
