/** Writes packages/kinds/schema/*.schema.json: the descriptor schemas over this build's kinds. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { publishedSchemas } from '../src/published.js';

const dir = fileURLToPath(new URL('../schema/', import.meta.url));
mkdirSync(dir, { recursive: true });
for (const [file, schema] of Object.entries(publishedSchemas())) {
  const filepath = join(dir, file);
  const options = (await resolveConfig(filepath)) ?? {};
  writeFileSync(filepath, await format(JSON.stringify(schema), { ...options, filepath }));
  process.stdout.write(`wrote ${filepath}\n`);
}
