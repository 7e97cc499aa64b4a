/**
 * Generates published JSON Schemas from TypeScript types: core's (Agents, Policies and a
 * Resource's metadata, from src/descriptor/types.ts) and each kind's spec schema (from the
 * kind's own types file). Shared by the `gen:schema` scripts and the staleness tests.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { createGenerator } from 'ts-json-schema-generator';

const SCHEMA_BASE_ID = 'https://tollgate.dev/schema/v1/';

/** Published file name → the exported type it describes. */
export const SCHEMA_FILES = {
  'agent.schema.json': 'AgentDescriptor',
  'policy.schema.json': 'PolicyDescriptor',
  'resource-metadata.schema.json': 'ResourceMetadata',
} as const;

export type SchemaFileName = keyof typeof SCHEMA_FILES;

/** Where core's generated files live. */
export const SCHEMA_DIR = fileURLToPath(new URL('../schema/', import.meta.url));

/** Core's published schemas as the text to write, formatted as the repository's Prettier does. */
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
    out[file] = await formatted(join(SCHEMA_DIR, file), schema);
  }
  return out;
}

/** Where a kind keeps its generated spec schema, relative to its package folder. */
export const KIND_SCHEMA_FILE = 'schema/spec.schema.json';

/**
 * A kind's spec schema as the text to write: the exported type `typeName` of the kind's
 * `typesFile` (absolute path), strict (`additionalProperties: false`), JSDoc tags included.
 */
export async function generateKindSpecSchema(
  packageDir: string,
  typesFile: string,
  typeName: string,
  tsconfig = join(packageDir, 'tsconfig.json'),
): Promise<string> {
  const generator = createGenerator({
    path: typesFile,
    tsconfig,
    type: typeName,
    additionalProperties: false,
    sortProps: false,
  });
  const schema = generator.createSchema(typeName);
  return formatted(join(packageDir, KIND_SCHEMA_FILE), schema);
}

async function formatted(filepath: string, schema: object): Promise<string> {
  const options = (await resolveConfig(filepath)) ?? {};
  return format(JSON.stringify(schema), { ...options, filepath });
}
