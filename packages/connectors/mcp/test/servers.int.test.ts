/**
 * The npm reference servers as resources: server-filesystem allowed the whole filesystem still
 * cannot read /etc/passwd (the sandbox has no /etc) but reads and writes its declared folder;
 * server-memory keeps its graph in a declared writable folder, its path given as a credential
 * reference like any environment value.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CredentialResolver } from '@tollgate/core';
import { discoverTools, mcpConnector, mcpSessions, pinTools } from '../src/index.js';
import type { McpResultData, McpSpec } from '../src/index.js';
import {
  allArguments,
  mcpResource,
  npmServer,
  permissionsOf,
  scratch,
  validated,
} from './support.js';
import type { ResourceDescriptor } from '@tollgate/core';

afterAll(() => mcpSessions.close());

async function pinnedWithArguments(
  draft: ResourceDescriptor<McpSpec>,
  credentials: CredentialResolver,
) {
  const spec = pinTools(draft.spec, await discoverTools(draft.spec, credentials));
  const withFields = {
    ...draft,
    spec: { ...spec, schema: { fields: allArguments({ ...draft, spec }) } },
  };
  return validated(withFields);
}

async function run(
  resource: ReturnType<typeof validated>,
  operation: string,
  args: unknown,
  credentials: CredentialResolver,
) {
  const permissions = permissionsOf(resource);
  const request = mcpConnector.compile(operation, args, {
    descriptor: resource,
    permissions,
    principal: { tenant: 'team-a', agent: 'agent-1' },
  });
  const upstream = await mcpConnector.execute(request, {
    descriptor: resource,
    credentials,
    backoffMs: 10,
  });
  return mcpConnector.shape(operation, upstream, { descriptor: resource, permissions, request });
}

describe('mcp kind over the npm reference servers', () => {
  it('servers - filesystem: the declared folder is readable and writable, /etc/passwd is not there', async () => {
    const folder = scratch('mcp-fs-');
    writeFileSync(join(folder, 'hello.txt'), 'hello from the folder');
    const none: CredentialResolver = async () => {
      throw new Error('no credentials here');
    };
    const draft = mcpResource(
      'files',
      npmServer('server-filesystem', ['/']),
      { read_text_file: { class: 'read', operation: 'read_text' }, write_file: { class: 'write' } },
      { sandbox: { writePaths: [folder] }, readonly: false },
    );
    const resource = await pinnedWithArguments(draft, none);
    const read = await run(resource, 'read_text', { path: join(folder, 'hello.txt') }, none);
    expect((read.data as McpResultData).content[0]).toMatchObject({
      text: 'hello from the folder',
    });
    await run(resource, 'write_file', { path: join(folder, 'out.txt'), content: 'written' }, none);
    expect(readFileSync(join(folder, 'out.txt'), 'utf8')).toBe('written');
    await expect(run(resource, 'read_text', { path: '/etc/passwd' }, none)).rejects.toMatchObject({
      code: 'UPSTREAM_REJECTED',
      details: [{ message: expect.stringMatching(/ENOENT|no such file|not found/i) }],
    });
  });

  it('servers - memory: entities are kept in the declared folder, reached through the env credential', async () => {
    const folder = scratch('mcp-memory-');
    const file = join(folder, 'memory.jsonl');
    const credentials: CredentialResolver = async (ref) => {
      if (ref === 'env://MEMORY_FILE') return { kind: 'apiKey', apiKey: file };
      throw new Error(`unexpected ${ref}`);
    };
    const command = {
      ...npmServer('server-memory'),
      env: { MEMORY_FILE_PATH: 'env://MEMORY_FILE' },
    };
    const draft = mcpResource(
      'memory',
      command,
      { create_entities: { class: 'write' }, search_nodes: { class: 'read' } },
      { sandbox: { writePaths: [folder] }, readonly: false },
    );
    const resource = await pinnedWithArguments(draft, credentials);
    await run(
      resource,
      'create_entities',
      { entities: [{ name: 'Ada', entityType: 'person', observations: ['writes programs'] }] },
      credentials,
    );
    expect(readFileSync(file, 'utf8')).toContain('Ada');
    const found = await run(resource, 'search_nodes', { query: 'Ada' }, credentials);
    expect(JSON.stringify(found.data)).toContain('writes programs');
  });
});
