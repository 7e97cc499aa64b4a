/**
 * Operators' roles on the registry, against the real policy service and the real registry
 * sharing one issuer and one bundles bucket: an Agent token of the tenant without the `admin`
 * role (an agent, a viewer, an approver, an undeclared name) tries every method that changes a
 * resource or connects to its upstream with the resource's credential, and is refused with
 * PERMISSION_DENIED naming the role it lacks — nothing changes, nothing reaches the upstream.
 * Reads are for admins, approvers and viewers. The roles are read at the time of the call, so
 * an Agent applied (or changed) a moment ago counts at once — `tollgate apply` declares the
 * Agent, then the resources.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError, RpcStatus } from '@tollgate/contracts';
import { DraftStatus } from '@tollgate/contracts/registry/v1';
import type { Principal } from '@tollgate/core';
import {
  resourceDescriptor,
  startHarness as startRegistry,
} from '../../services/registry/test/harness.js';
import type { Harness as RegistryHarness } from '../../services/registry/test/harness.js';
import {
  agentDescriptor,
  startHarness as startPolicy,
  uniqueTenant,
} from '../../services/policy/test/harness.js';
import type { Harness as PolicyHarness } from '../../services/policy/test/harness.js';
import { infra, uniqueName } from '../support/infra.js';
import { startEsProxy } from './support/es-proxy.js';
import type { EsProxy } from './support/es-proxy.js';

const index = uniqueName('authz_orders');
let policy: PolicyHarness;
let registry: RegistryHarness;
let proxy: EsProxy;

async function es(method: string, path: string, body?: unknown): Promise<void> {
  const res = await fetch(`${infra.esUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok && res.status !== 404)
    throw new Error(`${method} ${path}: HTTP ${res.status} ${await res.text()}`);
}

beforeAll(async () => {
  await es('PUT', `/${index}`, {
    mappings: { properties: { id: { type: 'keyword' }, amount: { type: 'double' } } },
  });
  proxy = await startEsProxy(infra.esUrl);
  policy = await startPolicy();
  registry = await startRegistry({
    keys: policy.keys,
    roles: { bundlesBucket: policy.bundlesBucket },
  });
});
afterAll(async () => {
  await registry?.close();
  await policy?.close();
  await proxy?.close();
  await es('DELETE', `/${index}`);
});

const who = (tenant: string, agent: string): Principal => ({
  tenant,
  agent,
  environment: 'prod',
});

async function failure(call: Promise<unknown>): Promise<RpcError> {
  try {
    await call;
  } catch (err) {
    if (err instanceof RpcError) return err;
    throw err;
  }
  throw new Error('expected the call to be refused');
}

/**
 * A tenant bootstrapped the way `tollgate apply examples/...` does it: the command line's Agent
 * first (admin), then the others, then — at once — a resource, as that admin.
 */
async function tenantWithResource(): Promise<{
  tenant: string;
  admin: { metadata: Record<string, string> };
}> {
  const tenant = uniqueTenant();
  const admin = await policy.as(who(tenant, 'tollgate-cli'));
  await policy.client.applyAgent(
    { descriptor: agentDescriptor(tenant, 'tollgate-cli', ['admin']) as never },
    admin,
  );
  for (const [name, roles] of [
    ['support', ['support']],
    ['watcher', ['viewer']],
    ['approver', ['approver']],
  ] as const) {
    await policy.client.applyAgent(
      { descriptor: agentDescriptor(tenant, name, [...roles]) as never },
      admin,
    );
  }
  await registry.client.apply(
    {
      descriptor: resourceDescriptor(tenant, 'es_orders', { endpoint: proxy.url, index }) as never,
    },
    admin,
  );
  return { tenant, admin };
}

describe('control plane: operators roles on the registry', () => {
  it('registry - an Agent applied a moment ago is an admin at once (the bootstrap of `tollgate apply`)', async () => {
    const { tenant, admin } = await tenantWithResource();
    const { resource } = await registry.client.get(
      { tenant, environment: 'prod', name: 'es_orders' },
      admin,
    );
    expect(resource?.version).toBe(1);
  });

  it('registry - without the admin role, nobody applies, rolls back, deletes, discovers, drafts, confirms or rejects; nothing changes and nothing reaches the upstream', async () => {
    const { tenant, admin } = await tenantWithResource();
    const name = 'es_orders';
    const moved = resourceDescriptor(tenant, name, { endpoint: 'http://evil.example:9200', index });
    const widened = resourceDescriptor(tenant, name, { endpoint: proxy.url, index });
    (widened.spec as { access: Record<string, unknown> }).access = {
      allowedRoles: ['support', 'order_ops'],
    };
    // v2, so a rollback has somewhere to go; and an admin's pending draft to confirm or reject.
    await registry.client.apply(
      {
        descriptor: resourceDescriptor(tenant, name, {
          endpoint: proxy.url,
          index,
          description: 'second',
        }) as never,
      },
      admin,
    );
    const { draft } = await registry.client.draft(
      {
        descriptor: {
          metadata: { name: 'es_drafted' },
          spec: { connection: { endpoint: proxy.url }, target: { index } },
        },
        sessionId: 'conversation-1',
      },
      admin,
    );
    expect(draft?.status).toBe(DraftStatus.PENDING);
    const before = await registry.client.get({ tenant, environment: 'prod', name }, admin);
    const historyBefore = await registry.client.history(
      { tenant, environment: 'prod', name },
      admin,
    );
    const seenBefore = proxy.requests.length;

    const q = { tenant, environment: 'prod', name };
    for (const agent of ['support', 'watcher', 'approver', 'stranger']) {
      const as = await policy.as(who(tenant, agent));
      const c = registry.client;
      const attacks: Array<[string, () => Promise<unknown>]> = [
        ['Apply (move the endpoint)', () => c.apply({ descriptor: moved as never }, as)],
        ['Apply (widen access)', () => c.apply({ descriptor: widened as never }, as)],
        ['Apply (dry run)', () => c.apply({ descriptor: moved as never, dryRun: true }, as)],
        [
          'Apply (a new resource)',
          () =>
            c.apply(
              {
                descriptor: resourceDescriptor(tenant, 'es_mine', {
                  endpoint: proxy.url,
                  index,
                }) as never,
              },
              as,
            ),
        ],
        ['Rollback', () => c.rollback({ ...q, toVersion: 1 }, as)],
        ['Delete', () => c.delete(q, as)],
        ['Discover', () => c.discover({ descriptor: widened as never }, as)],
        [
          'Draft',
          () =>
            c.draft(
              {
                descriptor: {
                  metadata: { name: 'es_theirs' },
                  spec: { connection: { endpoint: proxy.url }, target: { index } },
                },
                sessionId: 'x',
              },
              as,
            ),
        ],
        [
          'Confirm',
          () =>
            c.confirm(
              {
                draftId: draft!.id,
                edits: { spec: { connection: { endpoint: 'http://evil.example:9200' } } },
              },
              as,
            ),
        ],
        ['Reject', () => c.reject({ draftId: draft!.id, reason: 'mine now' }, as)],
      ];
      for (const [label, attack] of attacks) {
        const refused = await failure(attack());
        expect.soft(refused.code, `${agent}: ${label}`).toBe(RpcStatus.PERMISSION_DENIED);
        expect.soft(refused.message, `${agent}: ${label}`).toContain(`"${agent}"`);
        expect.soft(refused.message, `${agent}: ${label}`).toContain('the admin role');
      }
    }

    const after = await registry.client.get(q, admin);
    expect(after.resource).toEqual(before.resource);
    const historyAfter = await registry.client.history(q, admin);
    expect(historyAfter.versions.length).toBe(historyBefore.versions.length);
    const listed = await registry.client.list({ tenant, environment: 'prod' }, admin);
    expect(listed.resources.map((r) => r.name)).toEqual(['es_orders']);
    const stillPending = await registry.client.reject(
      { draftId: draft!.id, reason: 'cleanup' },
      admin,
    );
    expect(stillPending.draft?.status).toBe(DraftStatus.REJECTED);
    expect(proxy.requests.length).toBe(seenBefore);
  });

  it('registry - reads (Get, List, History) are for admins, approvers and viewers, not for agents or undeclared names', async () => {
    const { tenant } = await tenantWithResource();
    const q = { tenant, environment: 'prod', name: 'es_orders' };
    for (const agent of ['tollgate-cli', 'watcher', 'approver']) {
      const as = await policy.as(who(tenant, agent));
      expect((await registry.client.get(q, as)).resource?.name, agent).toBe('es_orders');
      expect(
        (await registry.client.list({ tenant, environment: 'prod' }, as)).resources,
      ).toHaveLength(1);
      expect((await registry.client.history(q, as)).versions).toHaveLength(1);
    }
    for (const agent of ['support', 'stranger']) {
      const as = await policy.as(who(tenant, agent));
      for (const [label, read] of [
        ['Get', () => registry.client.get(q, as)],
        ['List', () => registry.client.list({ tenant, environment: 'prod' }, as)],
        ['History', () => registry.client.history(q, as)],
      ] as const) {
        const refused = await failure(read());
        expect.soft(refused.code, `${agent}: ${label}`).toBe(RpcStatus.PERMISSION_DENIED);
        expect
          .soft(refused.message, `${agent}: ${label}`)
          .toMatch(/admin, approver or viewer role/);
      }
    }
  });

  it('registry - a role granted or withdrawn counts from the next call', async () => {
    const { tenant, admin } = await tenantWithResource();
    const support = await policy.as(who(tenant, 'support'));
    const q = { tenant, environment: 'prod', name: 'es_orders' };
    const next = (description: string) =>
      registry.client.apply(
        {
          descriptor: resourceDescriptor(tenant, 'es_orders', {
            endpoint: proxy.url,
            index,
            description,
          }) as never,
        },
        support,
      );

    await policy.client.applyAgent(
      { descriptor: agentDescriptor(tenant, 'support', ['support', 'admin']) as never },
      admin,
    );
    expect((await next('promoted')).resource?.version).toBe(2);

    await policy.client.applyAgent(
      { descriptor: agentDescriptor(tenant, 'support', ['support']) as never },
      admin,
    );
    expect((await failure(next('demoted'))).code).toBe(RpcStatus.PERMISSION_DENIED);
    expect((await registry.client.get(q, admin)).resource?.version).toBe(2);
  });

  it('registry - a tenant without declared Agents has no operators: refused, with what to do', async () => {
    const tenant = uniqueTenant();
    const as = await policy.as(who(tenant, 'tollgate-cli'));
    const refused = await failure(
      registry.client.apply(
        { descriptor: resourceDescriptor(tenant, 'es_orders', { endpoint: proxy.url }) as never },
        as,
      ),
    );
    expect(refused.code).toBe(RpcStatus.PERMISSION_DENIED);
    expect(refused.message).toContain(`tenant "${tenant}" has no Agents declared`);
  });
});
