import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  applyDescriptorDefaults,
  describeDescriptorProblems,
  validateDescriptor,
} from '@tollgate/core';
import { generateKindSpecSchema } from '../../../core/scripts/descriptor-schema.js';
import { pinOf } from '../src/index.js';
import { hostile, kinds, mcpResource } from './support.js';

const root = fileURLToPath(new URL('../', import.meta.url));

describe('mcp spec schema', () => {
  it('schema - the committed spec schema matches src/kind/spec.ts (run `pnpm gen:schema` here)', async () => {
    const generated = await generateKindSpecSchema(root, `${root}src/kind/spec.ts`, 'McpSpec');
    expect(readFileSync(`${root}schema/spec.schema.json`, 'utf8')).toBe(generated);
  }, 60_000);
});

describe('mcp defaults', () => {
  it('defaults - a defaulted version still validates (the registry projects it, executors validate it again)', () => {
    const declared = mcpResource(
      'catalogue',
      hostile('poisoned'),
      {
        lookup: {
          class: 'read',
          pin: pinOf('lookup', definition),
          definition,
        },
      },
      { fields: { 'lookup.key': { type: 'argument', filterable: true } } },
    );
    const first = validateDescriptor(declared, kinds);
    if (!first.ok) throw new Error(describeDescriptorProblems(first.problems));
    const defaulted = applyDescriptorDefaults(first.descriptor, kinds);
    const again = validateDescriptor(defaulted, kinds);
    expect(again.ok ? [] : again.problems).toEqual([]);
    expect(
      (defaulted as { spec: { schema: { fields: Record<string, unknown> } } }).spec.schema.fields,
    ).toEqual({
      'lookup.key': {
        type: 'argument',
        filterable: true,
        returnable: false,
        sortable: false,
        range: false,
        searchable: false,
        aggregatable: false,
      },
    });
    // A capability an argument cannot have is refused when declared true.
    const sortable = validateDescriptor(
      {
        ...declared,
        spec: {
          ...declared.spec,
          schema: { fields: { 'lookup.key': { type: 'argument', sortable: true } } },
        },
      },
      kinds,
    );
    expect(sortable.ok ? [] : sortable.problems.map((p) => p.path)).toContain(
      'spec.schema.fields["lookup.key"].sortable',
    );
  });
});

const definition = {
  description: 'Looks up a key.',
  inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
};
