import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { format, resolveConfig } from 'prettier';
import { agentSchema, policySchema } from '@tollgate/core';
import { describe, expect, it } from 'vitest';
import { publishedSchemas, resourceKinds, validate } from '../src/index.js';

const dir = new URL('../schema/', import.meta.url);

describe('published descriptor schemas', () => {
  it('published - the committed union schemas are current (run `pnpm --filter @tollgate/kinds gen:schema`)', async () => {
    for (const [file, schema] of Object.entries(publishedSchemas())) {
      const filepath = new URL(file, dir).pathname;
      const options = (await resolveConfig(filepath)) ?? {};
      const text = await format(JSON.stringify(schema), { ...options, filepath });
      expect(readFileSync(filepath, 'utf8'), `${file} is stale`).toBe(text);
    }
  });

  it('published - an editor using them reads one branch per kind and agrees with validation', () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    ajv.addSchema([agentSchema, policySchema]);
    const schemas = publishedSchemas();
    const resource = ajv.compile(schemas['resource.schema.json']!);
    const branches = (schemas['resource.schema.json']!.oneOf as unknown[]).length;
    expect(branches).toBe(resourceKinds.types().length);
    const descriptor = {
      apiVersion: 'tollgate.dev/v1',
      kind: 'Resource',
      metadata: { name: 'orders', tenant: 'team-a', environment: 'prod' },
      spec: {
        type: resourceKinds.types()[0],
        connection: { endpoint: 'http://127.0.0.1:9200' },
        target: { index: 'orders' },
        schema: { fields: {} },
        access: { allowedRoles: ['support'] },
      },
    };
    expect(validate(descriptor)).toMatchObject({ ok: true });
    expect(resource(descriptor)).toBe(true);
    const unknown = { ...descriptor, spec: { ...descriptor.spec, type: 'nothing' } };
    expect(resource(unknown)).toBe(false);
    expect(validate(unknown)).toMatchObject({ ok: false });
  });
});
