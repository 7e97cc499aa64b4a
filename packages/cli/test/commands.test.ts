import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TokenVerifier } from '@tollgate/core';
import type { TrustedIssuer } from '@tollgate/core';
import { describe, expect, it } from 'vitest';
import { ensureIssuer, resolveHome } from '../src/index.js';
import { cli, scratch } from './support.js';

describe('cli - command line', () => {
  it('cli - an unknown command exits 2 with one line on stderr and nothing on stdout', async () => {
    const run = await cli(['frobnicate']);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: "tollgate: unknown command 'frobnicate'\n",
    });
  });

  it('cli - with --json the same failure is also one JSON document on stdout', async () => {
    const run = await cli(['--json', 'resources', 'lss']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      error: {
        code: 'USAGE',
        message: expect.stringMatching(/^unknown command 'lss'/),
        details: [],
      },
    });
  });

  it('cli - a missing required option or subcommand is a usage error', async () => {
    const call = await cli(['call', 'es_orders_search', '--args', '{}']);
    expect([call.code, call.stderr]).toEqual([
      2,
      "tollgate: required option '--as <agent>' not specified\n",
    ]);
    const group = await cli(['approvals']);
    expect(group.code).toBe(2);
    expect(group.stderr).toContain('tollgate: a command is required');
    const extra = await cli(['status', 'now']);
    expect(extra.code).toBe(2);
  });

  it('cli - memory commands name whose memory and refuse an unknown status', async () => {
    const missing = await cli(['memory', 'candidates', 'ls']);
    expect([missing.code, missing.stderr]).toEqual([
      2,
      "tollgate: required option '--for <agent>' not specified\n",
    ]);
    const status = await cli(['memory', 'saved-queries', '--for', 'support', '--status', 'maybe']);
    expect(status.code).toBe(2);
    expect(status.stderr).toMatch(/^tollgate: --status: .*approved, proposed, rejected/);
    const group = await cli(['memory']);
    expect(group.code).toBe(2);
  });

  it('cli - bad JSON in --args is refused before anything is sent', async () => {
    const run = await cli([
      '--json',
      'call',
      'es_orders_search',
      '--as',
      'support',
      '--args',
      '{"limit":',
    ]);
    expect(run.code).toBe(2);
    const doc = JSON.parse(run.stdout) as { error: { code: string; message: string } };
    expect(doc.error.code).toBe('USAGE');
    expect(doc.error.message).toMatch(/^--args: not valid JSON \(/);
    expect(run.stderr).toMatch(/^tollgate: --args: not valid JSON/);
  });

  it('cli - apply of a missing file exits 2; of an invalid descriptor exits 1 naming file:line:col', async () => {
    const dir = await scratch({
      'bad.yaml':
        'apiVersion: tollgate.dev/v1\nkind: Agent\nmetadata: { name: x, tenant: team-a }\nspec: { roles: [support] }\n',
    });
    try {
      const missing = await cli(['apply', '-f', 'nope.yaml'], { cwd: dir.root });
      expect([missing.code, missing.stderr]).toEqual([
        2,
        'tollgate: nope.yaml: no such file or folder\n',
      ]);
      const invalid = await cli(['--json', 'apply', '-f', 'bad.yaml'], { cwd: dir.root });
      expect(invalid.code).toBe(1);
      const doc = JSON.parse(invalid.stdout) as {
        error: { code: string; details: Array<{ path: string }> };
      };
      expect(doc.error.code).toBe('DESCRIPTOR_INVALID');
      expect(doc.error.details.map((d) => d.path)).toEqual(['bad.yaml:3:13 metadata.name']);
    } finally {
      await dir.cleanup();
    }
  });

  it("cli - token issue mints a token the services' verifier accepts for that principal", async () => {
    const dir = await scratch();
    try {
      const env = { TOLLGATE_HOME: dir.root };
      const none = await cli(['token', 'issue', '--agent', 'support'], { env });
      expect(none.code).toBe(1);
      expect(none.stderr).toMatch(/^tollgate: NO_ISSUER: no dev issuer key at .*run `tollgate up`/);

      await ensureIssuer(resolveHome(env, dir.root));
      const trusted = JSON.parse(
        await readFile(join(dir.root, 'trusted-issuers.json'), 'utf8'),
      ) as TrustedIssuer[];
      const run = await cli(
        [
          '--json',
          '--tenant',
          'team-b',
          'token',
          'issue',
          '--agent',
          'support',
          '--user',
          'alice',
          '--ttl',
          '60',
        ],
        { env },
      );
      expect(run.code).toBe(0);
      const doc = JSON.parse(run.stdout) as { token: string; principal: unknown; issuer: string };
      expect(doc.principal).toEqual({
        tenant: 'team-b',
        agent: 'support',
        environment: 'prod',
        user: 'alice',
      });
      expect(doc.issuer).toBe('tollgate-dev');
      const verifier = await TokenVerifier.create(trusted);
      expect(await verifier.verify(doc.token)).toMatchObject({
        tenant: 'team-b',
        agent: 'support',
        environment: 'prod',
        user: 'alice',
      });
      const plainRun = await cli(['token', 'issue', '--agent', 'order_ops'], { env });
      expect(plainRun.stdout.trim().split('.')).toHaveLength(3);
    } finally {
      await dir.cleanup();
    }
  });

  it('cli - names that cannot be principals are usage errors', async () => {
    const run = await cli(['--tenant', 'Team A', 'token', 'issue', '--agent', 'support']);
    expect([run.code, run.stderr]).toEqual([
      2,
      'tollgate: --tenant: expected lowercase letters, digits, "-" or "_" (at most 63), found "Team A"\n',
    ]);
  });
});

describe('cli - memory --fix', () => {
  it('cli - --fix takes name=value pairs, JSON where the value is JSON, text otherwise', async () => {
    const { fixedValues } = await import('../src/commands/memory.js');
    expect(fixedValues(['limit=5', 'status=shipped', 'ids=["a","b"]', 'note=a=b'])).toEqual({
      limit: 5,
      status: 'shipped',
      ids: ['a', 'b'],
      note: 'a=b',
    });
    expect(() => fixedValues(['=5'])).toThrow(/expected name=value/);
    expect(() => fixedValues(['limit'])).toThrow(/expected name=value/);
  });
});
