import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format as prettier, resolveConfig } from 'prettier';
import { describe, expect, it } from 'vitest';
import { TOOL_FORMATS, renderTool } from '@tollgate/core';
import { permissionsFromAccess, synthesizeTools } from './bound.js';
import type { PermissionSet } from '@tollgate/core';
import { writableOrders } from '../../../../core/test/synthesis-fixtures.js';

// Golden files: the tools synthesized for the rich `es_orders` fixture (made writable so every
// operation appears) as `order_ops` sees them, in every format. `UPDATE_GOLDEN=1` rewrites them;
// otherwise the output must match byte for byte.
const GOLDEN = new URL('./golden/', import.meta.url);
const update = process.env.UPDATE_GOLDEN === '1';

/** Writes or compares a golden file, laid out as the repository's Prettier lays out JSON. */
async function golden(name: string, value: unknown): Promise<void> {
  const file = new URL(name, GOLDEN);
  const config = (await resolveConfig(fileURLToPath(file))) ?? {};
  const content = await prettier(JSON.stringify(value), { ...config, parser: 'json' });
  if (update) {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(file, content);
    return;
  }
  if (!existsSync(file))
    throw new Error(`golden file ${name} is missing; run with UPDATE_GOLDEN=1 to write it`);
  expect(content, `${name} differs; if the change is intended, rerun with UPDATE_GOLDEN=1`).toBe(
    readFileSync(file, 'utf8'),
  );
}

describe('golden tools', () => {
  const resource = writableOrders();
  const permissions = permissionsFromAccess(resource, {
    roles: ['order_ops'],
    agent: 'ops_bot',
  }) as PermissionSet;
  const tools = synthesizeTools(resource, permissions);

  for (const format of TOOL_FORMATS) {
    it(`golden tools - es_orders in ${format} format`, async () => {
      await golden(
        `es_orders.${format}.json`,
        tools.map((tool) => renderTool(tool, format)),
      );
    });
  }

  it('golden tools - es_orders tool versions', async () => {
    await golden(
      'es_orders.versions.json',
      Object.fromEntries(tools.map((t) => [t.name, t.version])),
    );
  });
});
