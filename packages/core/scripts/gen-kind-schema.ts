/**
 * Writes a kind's `schema/spec.schema.json` from its types:
 * `tsx ../../core/scripts/gen-kind-schema.ts <types file> <type name>`, run in the kind's folder.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { KIND_SCHEMA_FILE, generateKindSpecSchema } from './descriptor-schema.js';

const [typesFile, typeName] = process.argv.slice(2);
if (typesFile === undefined || typeName === undefined) {
  process.stderr.write('usage: gen-kind-schema <types file> <type name>\n');
  process.exit(2);
}
const packageDir = process.cwd();
const target = join(packageDir, KIND_SCHEMA_FILE);
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, await generateKindSpecSchema(packageDir, resolve(typesFile), typeName));
process.stdout.write(`wrote ${target}\n`);
