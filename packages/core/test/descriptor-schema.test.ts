import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, test } from 'vitest';
import {
  SCHEMA_DIR,
  SCHEMA_FILES,
  generateDescriptorSchemas,
} from '../scripts/descriptor-schema.js';
import type { SchemaFileName } from '../scripts/descriptor-schema.js';
import { descriptorSchema } from '../src/descriptor/shape.js';
import { validAgent, validPolicy, validResource } from './descriptor-cases.js';

const published = (file: SchemaFileName): string => readFileSync(join(SCHEMA_DIR, file), 'utf8');

describe('descriptor JSON Schema', () => {
  test('schema - the committed schemas match the TypeScript types (run `pnpm --filter @tollgate/core gen:schema`)', async () => {
    const generated = await generateDescriptorSchemas();
    for (const file of Object.keys(SCHEMA_FILES) as SchemaFileName[]) {
      expect(published(file), `${file} is stale`).toBe(generated[file]);
    }
  }, 60_000);

  test('schema - validation runs on the published schema', () => {
    expect(descriptorSchema).toEqual(JSON.parse(published('descriptor.schema.json')));
  });

  test('schema - an editor using the published schemas accepts valid and rejects unknown keys', () => {
    const ajv = new Ajv({ allErrors: true, strict: true });
    const any = ajv.compile(JSON.parse(published('descriptor.schema.json')));
    const resource = ajv.compile(JSON.parse(published('resource.schema.json')));
    for (const valid of [validResource(), validAgent(), validPolicy()])
      expect(any(valid)).toBe(true);
    expect(resource(validResource())).toBe(true);
    expect(resource(validAgent())).toBe(false);
    expect(any({ ...validAgent(), extra: true })).toBe(false);
  });
});
