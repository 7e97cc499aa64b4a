/**
 * Generates the published JSON Schemas of the descriptor kinds from the TypeScript types in
 * src/descriptor/types.ts. Shared by the `gen:schema` script and the staleness test.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { createGenerator } from 'ts-json-schema-generator';

/** Published file name → the exported type it describes. */
export const SCHEMA_FILES = {
  'descriptor.schema.json': 'Descriptor',
  'resource.schema.json': 'ResourceDescriptor',
  'agent.schema.json': 'AgentDescriptor',
  'policy.schema.json': 'PolicyDescriptor',
} as const;

export type SchemaFileName = keyof typeof SCHEMA_FILES;

/** Where the generated files live. */
export const SCHEMA_DIR = fileURLToPath(new URL('../schema/', import.meta.url));

const SCHEMA_BASE_ID = 'https://tollgate.dev/schema/v1/';

/** Every published schema as the text to write: JSON formatted the way the repository's Prettier does. */
export async function generateDescriptorSchemas(): Promise<Record<SchemaFileName, string>> {
  const generator = createGenerator({
    path: fileURLToPath(new URL('../src/descriptor/types.ts', import.meta.url)),
    tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)),
    type: Object.values(SCHEMA_FILES),
    additionalProperties: false,
    sortProps: false,
  });
  const out = {} as Record<SchemaFileName, string>;
  for (const [file, type] of Object.entries(SCHEMA_FILES) as Array<[SchemaFileName, string]>) {
    const schema = { $id: `${SCHEMA_BASE_ID}${file}`, ...generator.createSchema(type) };
    const filepath = join(SCHEMA_DIR, file);
    const options = (await resolveConfig(filepath)) ?? {};
    out[file] = await format(JSON.stringify(schema), { ...options, filepath });
  }
  return out;
}
