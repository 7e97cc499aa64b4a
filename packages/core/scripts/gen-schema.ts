/** Writes packages/core/schema/*.schema.json from the descriptor types. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCHEMA_DIR, generateDescriptorSchemas } from './descriptor-schema.js';

mkdirSync(SCHEMA_DIR, { recursive: true });
for (const [file, text] of Object.entries(await generateDescriptorSchemas())) {
  writeFileSync(join(SCHEMA_DIR, file), text);
  process.stdout.write(`wrote ${join(SCHEMA_DIR, file)}\n`);
}
