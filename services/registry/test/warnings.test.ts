import { resourceKinds } from '@tollgate/kinds';
import type { ResourceDescriptor } from '@tollgate/core';
import { describe, expect, it } from 'vitest';
import { applyWarnings } from '../src/index.js';
import { resourceDescriptor } from './harness.js';

const warningsOf = (descriptor: ResourceDescriptor) =>
  applyWarnings(descriptor, resourceKinds.get(descriptor.spec.type).operations(descriptor)).map(
    (w) => w.code,
  );

function hidden(descriptor: ResourceDescriptor): ResourceDescriptor {
  const fields = Object.fromEntries(
    Object.entries(descriptor.spec.schema.fields).map(([name, f]) => [
      name,
      { ...f, returnable: false },
    ]),
  );
  return { ...descriptor, spec: { ...descriptor.spec, schema: { fields } } };
}

describe('apply warnings', () => {
  it('warnings - a table resource with no returnable field is warned about: its rows would be empty', () => {
    const orders = resourceDescriptor('team-a', 'es_orders') as unknown as ResourceDescriptor;
    expect(warningsOf(orders)).toEqual([]);
    expect(warningsOf(hidden(orders))).toEqual(['NO_RETURNABLE_FIELDS']);
  });

  it('warnings - a kind whose answers are not rows of fields (an MCP tool) is not warned about returnable fields', () => {
    const tools: ResourceDescriptor = {
      apiVersion: 'tollgate.dev/v1',
      kind: 'Resource',
      metadata: { name: 'everything', tenant: 'team-a', environment: 'prod' },
      spec: {
        type: 'mcp',
        connection: { command: { executable: '/usr/bin/node', args: ['server.js'] } },
        tools: {
          echo: {
            class: 'read',
            pin: 'a'.repeat(64),
            definition: { name: 'echo', inputSchema: { type: 'object' } },
          },
        },
        schema: { fields: { 'echo.message': { type: 'argument', filterable: true } } },
        access: { allowedRoles: ['support'], readonly: true },
      },
    } as never;
    expect(
      resourceKinds
        .get('mcp')
        .operations(tools)
        .map((o) => o.name),
    ).toEqual(['echo']);
    expect(warningsOf(tools)).toEqual([]);
  });
});
