import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CliError, applyOrder, identity, loadDescriptors } from '../src/index.js';
import { scratch } from './support.js';

const AGENT = (name: string, roles = '[support]') => `apiVersion: tollgate.dev/v1
kind: Agent
metadata: { name: ${name}, tenant: team-a }
spec: { roles: ${roles} }
`;
const POLICY = `apiVersion: tollgate.dev/v1
kind: Policy
metadata: { name: reads, tenant: team-a }
spec:
  grants:
    - effect: allow
      principals: { roles: [support] }
      actions: [es_orders.search]
`;

describe('apply - reading descriptors', () => {
  it('apply - the example folder holds the demo agents, the orders resource and the policies', async () => {
    const loaded = await loadDescriptors(
      ['examples/orders'],
      new URL('../../..', import.meta.url).pathname,
    );
    expect(loaded.map((l) => identity(l.descriptor))).toEqual([
      'Agent team-a/tollgate-cli',
      'Agent team-a/support',
      'Agent team-a/order_ops',
      'Agent team-a/duty-approver',
      'Resource team-a/prod/es_orders',
      'Policy team-a/support-orders',
      'Policy team-a/order-ops-writes',
    ]);
    const resource = loaded.find((l) => l.descriptor.kind === 'Resource')!;
    expect(resource).toMatchObject({ source: 'examples/orders/20-orders.yaml', line: 7 });
    const text = await readFile(
      new URL('../../../examples/orders/20-orders.yaml', import.meta.url),
      'utf8',
    );
    expect(text).toContain('credentialRef: env://TOLLGATE_TEAM_A__PROD__ES_ORDERS');
  });

  it('apply - folders are read recursively in name order; multi-document files keep their order', async () => {
    const dir = await scratch({
      'b/policy.yml': POLICY,
      'a.yaml': `${AGENT('first_bot')}---\n${AGENT('second_bot')}---\n`,
      'notes.txt': 'ignored',
    });
    try {
      const loaded = await loadDescriptors(['.'], dir.root);
      expect(loaded.map((l) => [l.source, l.line, identity(l.descriptor)])).toEqual([
        ['a.yaml', 1, 'Agent team-a/first_bot'],
        ['a.yaml', 6, 'Agent team-a/second_bot'],
        ['b/policy.yml', 1, 'Policy team-a/reads'],
      ]);
    } finally {
      await dir.cleanup();
    }
  });

  it('apply - every problem of every file is reported with file:line:col, and nothing is returned', async () => {
    const dir = await scratch({
      'good.yaml': AGENT('good_bot'),
      'bad.yaml': `${AGENT('ok_bot')}---\napiVersion: tollgate.dev/v1\nkind: Agent\nmetadata: { name: Bad Name, tenant: team-a }\nspec: { roles: [] }\n`,
      'broken.yaml': 'kind: [unclosed\n',
    });
    try {
      const err = await loadDescriptors(['bad.yaml', 'broken.yaml', 'good.yaml'], dir.root).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(CliError);
      const failure = err as CliError;
      expect(failure.code).toBe('DESCRIPTOR_INVALID');
      expect(failure.exitCode).toBe(1);
      expect(failure.message).toMatch(/^nothing applied: 3 problems in the descriptors\n/);
      expect(failure.message).toContain('bad.yaml:8:13: metadata.name:');
      expect(failure.message).toContain('bad.yaml:9:9: spec.roles:');
      expect(failure.message).toMatch(/broken\.yaml:2:1: \(document\): invalid YAML/);
      expect(failure.details.map((d) => d.path)).toEqual([
        'bad.yaml:8:13 metadata.name',
        'bad.yaml:9:9 spec.roles',
        'broken.yaml:2:1',
      ]);
    } finally {
      await dir.cleanup();
    }
  });

  it('apply - a missing path or an empty folder is a usage error', async () => {
    const dir = await scratch({ 'empty/readme.md': '# nothing' });
    try {
      const missing = (await loadDescriptors(['nope.yaml'], dir.root).catch(
        (e: unknown) => e,
      )) as CliError;
      expect([missing.exitCode, missing.message]).toEqual([2, 'nope.yaml: no such file or folder']);
      const empty = (await loadDescriptors(['empty'], dir.root).catch(
        (e: unknown) => e,
      )) as CliError;
      expect([empty.exitCode, empty.message]).toEqual([
        2,
        'empty: no .yaml, .yml or .json files in this folder',
      ]);
    } finally {
      await dir.cleanup();
    }
  });

  it('apply - the same descriptor declared twice is refused', async () => {
    const dir = await scratch({
      'a.yaml': AGENT('twin_bot'),
      'b.yaml': AGENT('twin_bot', '[order_ops]'),
    });
    try {
      const err = (await loadDescriptors(['.'], dir.root).catch((e: unknown) => e)) as CliError;
      expect(err.message).toContain(
        'b.yaml:1:1: metadata.name: Agent team-a/twin_bot is also declared at a.yaml:1',
      );
    } finally {
      await dir.cleanup();
    }
  });

  it("apply - agents go first (the caller's own before the others), then resources, then policies", async () => {
    const dir = await scratch({
      'all.yaml': [POLICY, AGENT('support'), AGENT('tollgate-cli', '[admin]')].join('---\n'),
    });
    try {
      const loaded = await loadDescriptors(['all.yaml'], dir.root);
      expect(applyOrder(loaded).map((l) => identity(l.descriptor))).toEqual([
        'Agent team-a/tollgate-cli',
        'Agent team-a/support',
        'Policy team-a/reads',
      ]);
    } finally {
      await dir.cleanup();
    }
  });
});
