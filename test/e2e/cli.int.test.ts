/**
 * The `tollgate` command against the real stack: every `--json` output parsed and checked,
 * resource lifecycle with diffs, discovery, the audit chain, and bad input giving a clear
 * one-line reason with the right exit code.
 */
import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICE_NAMES } from '../../packages/cli/src/index.js';
import { TokenVerifier } from '@tollgate/core';
import type { TrustedIssuer } from '@tollgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/infra.js';
import { repoRoot } from '../support/process.js';
import { E2E_CREDENTIALS, parseJson, tollgate, tollgateJson } from './support/cli.js';
import { ordersScenario } from './support/scenario.js';
import type { OrdersScenario } from './support/scenario.js';
import { bringDown, bringUp } from './support/stack.js';

interface Applied {
  dryRun: boolean;
  applied: Array<{
    kind: string;
    name: string;
    version: number;
    outcome: string;
    diff: Array<{ path: string; operation: string; before?: unknown; after?: unknown }>;
  }>;
}
interface ResourceDoc {
  name: string;
  version: number;
  deleted?: boolean;
  descriptor: { spec: { access: { maxLimit: number } } };
}

let stack: { startedHere: boolean } | undefined;
let scenario: OrdersScenario;
let as: string[];
let scratch: string;

beforeAll(async () => {
  stack = await bringUp();
  scenario = await ordersScenario({ seed: false });
  as = ['--tenant', scenario.tenant];
  scratch = await mkdtemp(join(tmpdir(), 'tollgate-cli-e2e-'));
}, 900_000);

afterAll(async () => {
  await scenario?.cleanup();
  if (scratch) await rm(scratch, { recursive: true, force: true });
  await bringDown(stack);
}, 180_000);

describe('e2e - tollgate --json', () => {
  it('e2e - status reports the infrastructure and every service with its address', async () => {
    const status = await tollgateJson<{
      healthy: boolean;
      nats: string;
      infra: Array<{ name: string; healthy: boolean }>;
      services: Array<{ name: string; state: string; address: string; pid?: number }>;
      console: string;
      mcp: string;
    }>(['status']);
    expect(status.healthy).toBe(true);
    expect(status.nats).toMatch(/^nats:\/\//);
    // Every server deploy/local starts by default, and every service of the stack.
    expect(status.infra.map((s) => s.name).sort()).toEqual([
      'directus',
      'elasticsearch',
      'ferretdb',
      'jaeger',
      'mariadb',
      'nats',
      'postgres',
    ]);
    expect(status.services.map((s) => s.name)).toEqual([...SERVICE_NAMES]);
    expect(status.console).toMatch(/^https?:\/\//);
    expect(status.mcp).toMatch(/^https?:\/\/.+\/mcp$/);
    for (const s of status.services) {
      expect(['running', 'external']).toContain(s.state);
      expect(s.address).toMatch(/^[\d.]+:\d+$/);
    }
  });

  it('e2e - token issue mints a token the services trust, for the chosen tenant', async () => {
    const doc = await tollgateJson<{
      token: string;
      principal: Record<string, string>;
      expiresAt: string;
    }>([...as, 'token', 'issue', '--agent', 'support', '--ttl', '120']);
    expect(doc.principal).toEqual({
      tenant: scenario.tenant,
      agent: 'support',
      environment: 'prod',
    });
    const trusted = JSON.parse(
      await readFile(join(repoRoot, '.tollgate', 'trusted-issuers.json'), 'utf8'),
    ) as TrustedIssuer[];
    const principal = await (await TokenVerifier.create(trusted)).verify(doc.token);
    expect(principal).toMatchObject({ tenant: scenario.tenant, agent: 'support' });
  });

  it('e2e - apply creates, then reports unchanged; a change is a diff, a dry run saves nothing', async () => {
    const first = await tollgateJson<Applied>([...as, 'apply', '-f', scenario.dir]);
    expect(first.applied.map((a) => `${a.kind}/${a.name}:${a.outcome}`)).toEqual([
      'Agent/tollgate-cli:created',
      'Agent/support:created',
      'Agent/order_ops:created',
      'Agent/duty-approver:created',
      'Resource/es_orders:created',
      'Policy/support-orders:created',
      'Policy/order-ops-writes:created',
    ]);
    const again = await tollgateJson<Applied>([...as, 'apply', '-f', scenario.dir]);
    expect(again.applied.every((a) => a.outcome === 'unchanged' && a.diff.length === 0)).toBe(true);

    const text = await readFile(join(scenario.dir, '20-orders.yaml'), 'utf8');
    const changed = join(scratch, 'orders-50.yaml');
    await writeFile(changed, text.replace('maxLimit: 100', 'maxLimit: 50'));
    const dry = await tollgateJson<Applied>([...as, 'apply', '-f', changed, '--dry-run']);
    expect(dry.dryRun).toBe(true);
    expect(dry.applied[0]).toMatchObject({ name: 'es_orders', outcome: 'updated', version: 2 });
    expect(dry.applied[0]!.diff).toEqual([
      { path: 'spec.access.maxLimit', operation: 'changed', before: 100, after: 50 },
    ]);
    const stillFirst = await tollgateJson<ResourceDoc>([...as, 'resources', 'get', 'es_orders']);
    expect(stillFirst.version).toBe(1);

    const human = await tollgate([...as, 'apply', '-f', changed]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('resource/es_orders');
    expect(human.stdout).toContain('~ spec.access.maxLimit: 100 → 50');
  }, 180_000);

  it('e2e - resources: ls, get, history, rollback with a diff, delete', async () => {
    const list = await tollgateJson<{ resources: ResourceDoc[] }>([...as, 'resources', 'ls']);
    expect(list.resources.map((r) => [r.name, r.version])).toEqual([['es_orders', 2]]);
    const history = await tollgateJson<{ versions: ResourceDoc[] }>([
      ...as,
      'resources',
      'history',
      'es_orders',
    ]);
    expect(history.versions.map((v) => v.version).sort()).toEqual([1, 2]);
    const v1 = await tollgateJson<ResourceDoc>([
      ...as,
      'resources',
      'get',
      'es_orders',
      '--version',
      '1',
    ]);
    expect(v1.descriptor.spec.access.maxLimit).toBe(100);

    const rolled = await tollgateJson<{
      resource: ResourceDoc;
      diff: Applied['applied'][0]['diff'];
    }>([...as, 'resources', 'rollback', 'es_orders', '--to', '1']);
    expect(rolled.resource.version).toBe(3);
    expect(rolled.resource.descriptor.spec.access.maxLimit).toBe(100);
    expect(rolled.diff).toEqual([
      { path: 'spec.access.maxLimit', operation: 'changed', before: 50, after: 100 },
    ]);

    const deleted = await tollgateJson<{ resource: ResourceDoc }>([
      ...as,
      'resources',
      'delete',
      'es_orders',
    ]);
    expect(deleted.resource.deleted).toBe(true);
    const after = await tollgateJson<{ resources: ResourceDoc[] }>([...as, 'resources', 'ls']);
    expect(after.resources).toEqual([]);
    const missing = await tollgate(['--json', ...as, 'resources', 'get', 'no_such_thing']);
    expect(missing.code).toBe(1);
    expect(parseJson<{ error: { code: string } }>(missing.stdout).error.code).toBe('NOT_FOUND');
    // Put it back for the tests below.
    await tollgateJson([...as, 'apply', '-f', join(scenario.dir, '20-orders.yaml')]);
  }, 180_000);

  it('e2e - discover reads the real mapping and shows the merged draft without saving it', async () => {
    const doc = await tollgateJson<{
      fields: Array<{ name: string; type: string; nativeType?: string; declared?: boolean }>;
      descriptor: { metadata: { name: string } };
      currentVersion: number;
      changes: Array<{ path: string; operation: string }>;
    }>([...as, 'discover', '-f', join(scenario.dir, '20-orders.yaml')]);
    // The file is applied: the draft is compared with the saved version.
    expect(doc.currentVersion).toBeGreaterThan(0);
    expect(doc.changes.every((c) => c.path.startsWith('spec.'))).toBe(true);
    const byName = new Map(doc.fields.map((f) => [f.name, f]));
    expect(byName.get('items_count')).toMatchObject({ type: 'integer' });
    expect(byName.get('client_ip')).toMatchObject({ type: 'ip' });
    expect(byName.get('customer.email')).toMatchObject({ type: 'keyword' });
    expect(doc.descriptor.metadata.name).toBe('es_orders');
  }, 120_000);

  it('e2e - audit verify finds the tenant chain intact; tail shows the latest records', async () => {
    // What this file applied is audited asynchronously (policy.changed, resource.changed).
    const verify = await eventually(
      async () => {
        const doc = await tollgateJson<{ ok: boolean; checked: number }>([
          ...as,
          'audit',
          'verify',
        ]);
        return doc.checked > 0 ? doc : undefined;
      },
      60_000,
      1_000,
    );
    expect(verify.ok).toBe(true);
    const tail = await tollgateJson<{
      records: Array<{ sequence: number; event: { type: string } }>;
    }>([...as, 'audit', 'tail', '-n', '3']);
    expect(tail.records.length).toBeGreaterThan(0);
    expect(tail.records.length).toBeLessThanOrEqual(3);
    const sequences = tail.records.map((r) => r.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
  }, 120_000);
});

describe('e2e - the local stack', () => {
  interface UpDoc {
    healthy: boolean;
    services: Array<{ name: string; action?: string; reason?: string; pid?: number }>;
  }

  it('e2e - up is idempotent; down --keep-infra stops the services, up starts them again', async () => {
    const again = await tollgateJson<UpDoc>(['up']);
    expect(again.healthy).toBe(true);
    // Left alone — unless its code was rebuilt meanwhile (other work on this machine).
    for (const s of again.services) {
      if (s.action !== 'already_running')
        expect(s).toMatchObject({ action: 'restarted', reason: 'rebuilt' });
    }

    const down = await tollgateJson<{
      services: Array<{ name: string; result: string }>;
      infra: string;
    }>(['down', '--keep-infra']);
    expect(down.infra).toBe('kept');
    expect(down.services.map((s) => s.result).every((r) => r === 'stopped' || r === 'killed')).toBe(
      true,
    );
    const stopped = await tollgate(['--json', 'status']);
    expect(stopped.code).toBe(1);
    const status = parseJson<{
      healthy: boolean;
      infra: Array<{ healthy: boolean }>;
      services: Array<{ state: string }>;
    }>(stopped.stdout);
    expect(status.healthy).toBe(false);
    expect(status.infra.every((s) => s.healthy)).toBe(true);
    expect(status.services.map((s) => s.state)).toEqual(SERVICE_NAMES.map(() => 'stopped'));

    const up = await tollgateJson<UpDoc>(['up'], { timeoutMs: 300_000 });
    expect(up.healthy).toBe(true);
    expect(up.services.map((s) => s.action)).toEqual(SERVICE_NAMES.map(() => 'started'));
    // One process each.
    const pids = new Set(up.services.map((s) => s.pid));
    expect(pids.size).toBe(SERVICE_NAMES.length);
    // The stack serves again: the tenant's tools are back.
    const tools = await tollgateJson<{ tools: unknown[] }>([
      ...as,
      'tools',
      'ls',
      '--as',
      'support',
    ]);
    expect(tools.tools.length).toBe(3);
  }, 600_000);
});

describe('e2e - bad input', () => {
  it('e2e - an unknown command exits 2 with one line and nothing on stdout', async () => {
    const run = await tollgate(['resourcez', 'ls']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^tollgate: unknown command 'resourcez'/);
    const json = await tollgate(['--json', 'resourcez']);
    expect(json.code).toBe(2);
    expect(
      parseJson<{ error: { code: string; message: string } }>(json.stdout).error,
    ).toMatchObject({
      code: 'USAGE',
      message: expect.stringContaining("unknown command 'resourcez'"),
    });
  });

  it('e2e - bad JSON in --args exits 2 naming the flag', async () => {
    const run = await tollgate([
      ...as,
      'call',
      'es_orders_search',
      '--as',
      'support',
      '--args',
      "{'id': 1}",
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^tollgate: --args: not valid JSON \(/);
  });

  it('e2e - a missing file exits 2; an invalid one exits 1 with file:line:col and applies nothing', async () => {
    const missing = await tollgate([...as, 'apply', '-f', join(scratch, 'nope.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `tollgate: ${join(scratch, 'nope.yaml')}: no such file or folder\n`,
    );

    const mixed = join(scratch, 'mixed.yaml');
    await writeFile(
      mixed,
      [
        `apiVersion: tollgate.dev/v1\nkind: Agent\nmetadata: { name: later_bot, tenant: ${scenario.tenant} }\nspec: { roles: [support] }`,
        `apiVersion: tollgate.dev/v1\nkind: Policy\nmetadata: { name: broken, tenant: ${scenario.tenant} }\nspec:\n  grants:\n    - effect: maybe\n      principals: { roles: [support] }\n      actions: [es_orders.search]`,
      ].join('\n---\n'),
    );
    const invalid = await tollgate(['--json', ...as, 'apply', '-f', mixed]);
    expect(invalid.code).toBe(1);
    const doc = parseJson<{
      error: { code: string; message: string; details: Array<{ path: string }> };
    }>(invalid.stdout);
    expect(doc.error.code).toBe('DESCRIPTOR_INVALID');
    expect(doc.error.details.map((d) => d.path)).toEqual([`${mixed}:11:7 spec.grants[0].effect`]);
    const notDeclared = await tollgate([...as, 'tools', 'ls', '--as', 'later_bot']);
    expect(notDeclared.code).toBe(1);
    expect(notDeclared.stderr).toMatch(/later_bot.*not declared/);
  });

  it("e2e - apply refuses a resource naming another tenant's credential, in one line, and saves nothing", async () => {
    const text = await readFile(join(scenario.dir, '20-orders.yaml'), 'utf8');
    const stolen = join(scratch, 'stolen.yaml');
    const ref = 'vault://secret/team-b/prod/es-orders#api_key';
    await writeFile(
      stolen,
      text
        .replace('name: es_orders', 'name: es_stolen')
        .replace(/credentialRef: \S+/, `credentialRef: ${ref}`),
    );
    const run = await tollgate(['--json', ...as, 'apply', '-f', stolen]);
    expect(run.code).toBe(1);
    const error = parseJson<{ error: { code: string; message: string } }>(run.stdout).error;
    const t = scenario.tenant;
    const message =
      `Resource ${t}/prod/es_stolen (${stolen}:7): spec.connection.credentialRef: "${ref}" is refused: ` +
      `it is outside the credential namespace of ${t}/prod; expected a reference starting with ` +
      `vault://secret/${t}/prod/, file:///etc/tollgate/credentials/${t}/prod/, ` +
      `env://TOLLGATE_${t.toUpperCase().replaceAll('-', '_')}__PROD__ ` +
      `or file://${E2E_CREDENTIALS}/${t}/prod/. (nothing was applied)`;
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', message });
    expect(run.stderr).toBe(`tollgate: INVALID_ARGUMENT: ${message}\n`);
    const missing = await tollgate([...as, 'resources', 'get', 'es_stolen']);
    expect(missing.code).toBe(1);
  });

  it('e2e - an unknown agent or tool exits 1 with the reason', async () => {
    const agent = await tollgate(['--json', ...as, 'tools', 'ls', '--as', 'nobody']);
    expect(agent.code).toBe(1);
    const error = parseJson<{ error: { code: string; message: string } }>(agent.stdout).error;
    expect(error.code).toBe('POLICY_DENIED');
    expect(error.message).toContain('"nobody"');
    expect(agent.stderr.trim().split('\n')).toHaveLength(1);

    const tool = await tollgate([
      ...as,
      'call',
      'es_orders_write',
      '--as',
      'support',
      '--args',
      '{}',
    ]);
    expect(tool.code).toBe(1);
    expect(tool.stderr).toMatch(/^tollgate: UNKNOWN_TOOL: /);

    const approval = await tollgate([
      ...as,
      'approvals',
      'approve',
      '00000000-0000-4000-8000-000000000000',
    ]);
    expect(approval.code).toBe(1);
    expect(approval.stderr).toMatch(/^tollgate: NOT_FOUND: /);
  });
});
