import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateKindSpecSchema } from '../../../core/scripts/descriptor-schema.js';

const root = fileURLToPath(new URL('../', import.meta.url));

describe('mysql spec schema', () => {
  it('schema - the committed spec schema matches src/kind/spec.ts (run `pnpm gen:schema` here)', async () => {
    const generated = await generateKindSpecSchema(root, `${root}src/kind/spec.ts`, 'MysqlSpec');
    expect(readFileSync(`${root}schema/spec.schema.json`, 'utf8')).toBe(generated);
  }, 60_000);
});
