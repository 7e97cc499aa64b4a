/**
 * An HTTP API as a governed resource, through every service on a private NATS with the real
 * subject permissions: the operator declares the Agents and Policies with the policy service,
 * and discovers and applies the Directus ticket resource with the registry over gRPC (as
 * `tollgate discover` and `tollgate apply` do); the synthesizer offers each agent its tools,
 * the agents call them with the SDK over NATS, the executor sends the requests to the real
 * Directus deploy/local runs, an approver decides the parked write, and audit chains the
 * records. What Directus holds is read with its admin token, never inferred from the answers.
 */
import { randomBytes } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import type { JsonObject } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '@tollgate/contracts';
import { VerifyRequestSchema } from '@tollgate/contracts/audit/v1';
import { DiffOperation } from '@tollgate/contracts/common/v1';
import type { PolicyService } from '@tollgate/contracts/policy/v1';
import type { CallOutcome, TollgateClient } from '@tollgate/sdk';
import {
  adminToken,
  directus,
  ticketsDeclared,
} from '../../packages/connectors/http/test/directus.js';
import { eventually, uniqueName } from '../support/infra.js';
import { startServices } from './support/services.js';
import type { Services } from './support/services.js';

const ENVIRONMENT = 'prod';
const run = randomBytes(4).toString('hex');
const tenant = uniqueName('httpe2e').replaceAll('_', '-');

let services: Services;
let policy: RpcClient<typeof PolicyService>;
let admin = '';
/** The static token of the probe collection's own Directus user (second suite). */
const probeToken = randomBytes(24).toString('hex');

/** Directus as its admin: what the collection really holds. */
async function directusAdmin(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: { data?: unknown } }> {
  const res = await fetch(`${directus.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${admin}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? {} : (JSON.parse(text) as { data?: unknown }) };
}

const filterQuery = (filter: unknown) => `filter=${encodeURIComponent(JSON.stringify(filter))}`;

/** The tickets Directus holds with this subject, as stored. */
async function ticketsWithSubject(subject: string): Promise<Array<Record<string, unknown>>> {
  const found = await directusAdmin(
    'GET',
    `/items/tickets?${filterQuery({ subject: { _eq: subject } })}&fields=*&limit=-1`,
  );
  expect(found.status).toBe(200);
  return found.json.data as Array<Record<string, unknown>>;
}

const as = (agent: string, user?: string) =>
  services.as({ tenant, agent, environment: ENVIRONMENT, ...(user ? { user } : {}) });
const agentClient = (agent: string) =>
  services.connectAgent({ tenant, agent, environment: ENVIRONMENT });

interface Outcome {
  status: string;
  callId?: string;
  data?: unknown;
  error?: { code: string; category?: string; message?: string; details?: unknown };
  pending?: Extract<CallOutcome, { status: 'pending_approval' }>;
}

/** The outcome of an SDK call as plain data (a thrown ToolCallError becomes `thrown`). */
async function outcome(
  client: TollgateClient,
  tool: string,
  args: JsonObject,
  options: { idempotencyKey?: string } = {},
): Promise<Outcome> {
  try {
    const result = await client.call(tool, args, options);
    if (result.status === 'ok') return { status: 'ok', callId: result.callId, data: result.data };
    if (result.status === 'error') {
      const { code, category, message, details } = result.error;
      return {
        status: 'error',
        callId: result.callId,
        error: { code, category, message, details },
      };
    }
    if (result.status === 'pending_approval')
      return { status: result.status, callId: result.callId, pending: result };
    return { status: result.status, callId: result.callId };
  } catch (err) {
    const { code, message } = err as { code?: unknown; message?: string };
    return { status: 'thrown', error: { code: String(code), message: String(message) } };
  }
}

/** Every call id the story made, with how it ended, for the audit check. */
const calls: Array<{ callId: string; tool: string; status: string; code?: string }> = [];
function noted(tool: string, o: Outcome): Outcome {
  if (o.callId !== undefined)
    calls.push({
      callId: o.callId,
      tool,
      status: o.status,
      ...(o.error ? { code: o.error.code } : {}),
    });
  return o;
}

beforeAll(async () => {
  admin = await adminToken();
  services = await startServices({
    name: 'http_e2e',
    env: {
      TG_HTTP_DIRECTUS_TOKEN: directus.token,
      TG_E2E_DIRECTUS_PROBE: probeToken,
    },
    policy: true,
    agents: true,
  });
  policy = services.policyClient!;
  const operator = await as('tollgate-cli');
  const agent = (name: string, roles: string[]) => ({
    descriptor: {
      apiVersion: 'tollgate.dev/v1',
      kind: 'Agent',
      metadata: { name, tenant },
      spec: { roles },
    } as never,
  });
  await policy.applyAgent(agent('tollgate-cli', ['admin']), operator);
  await policy.applyAgent(agent('duty_desk', ['approver']), operator);
  await policy.applyAgent(agent('support_bot', ['support']), operator);
  await policy.applyAgent(agent('intake_bot', ['support']), operator);
}, 120_000);

/** Who may open and update tickets, and which of those need a person's approval. */
async function applyTicketWrites(operator: { metadata: Record<string, string> }): Promise<void> {
  await policy.applyPolicy(
    {
      descriptor: {
        apiVersion: 'tollgate.dev/v1',
        kind: 'Policy',
        metadata: { name: 'ticket-writes', tenant },
        spec: {
          grants: [
            // The chat assistant opens tickets only with a person's approval...
            {
              effect: 'require_approval',
              principals: { agents: ['support_bot'] },
              actions: ['support_tickets.open_ticket'],
            },
            {
              effect: 'allow',
              principals: { agents: ['support_bot'] },
              actions: ['support_tickets.update_ticket'],
            },
            // ...the mail intake files them directly.
            {
              effect: 'allow',
              principals: { agents: ['intake_bot'] },
              actions: ['support_tickets.open_ticket'],
            },
          ],
        },
      } as never,
    },
    operator,
  );
}

afterAll(async () => {
  await services?.stop();
  if (admin !== '') {
    const mine = await directusAdmin(
      'GET',
      `/items/tickets?${filterQuery({ subject: { _contains: run } })}&fields=id&limit=-1`,
    );
    for (const t of (mine.json.data as Array<{ id: number }> | undefined) ?? [])
      await directusAdmin('DELETE', `/items/tickets/${t.id}`);
  }
}, 60_000);

describe('e2e - Directus tickets through every service', () => {
  let support: TollgateClient;
  let intake: TollgateClient;
  const subject = `Printer on fire ${run}`;
  const ticket = {
    subject,
    description: 'Smoke is coming out of the printer on floor 3',
    requester_email: 'ann@example.com',
    priority: 'high',
  };
  let opened: Record<string, unknown> = {};

  beforeAll(async () => {
    const operator = await as('tollgate-cli');
    const declared = ticketsDeclared() as {
      metadata: Record<string, unknown>;
      spec: Record<string, unknown>;
    };
    declared.metadata = { ...declared.metadata, tenant, environment: ENVIRONMENT };
    const access = declared.spec['access'] as Record<string, unknown>;
    // One ticket per requester and subject a day, whoever files it.
    access['idempotency'] = {
      open_ticket: { key: ['/body/requester_email', '/body/subject'], window: 'day' },
    };
    const discovered = await services.registryClient.discover(
      { descriptor: declared as never },
      operator,
    );
    await services.registryClient.apply({ descriptor: discovered.descriptor as never }, operator);
    // Grants name the resource's operations: declared once the policy service has the resource.
    let refusal: unknown;
    const applied = await eventually(
      () =>
        applyTicketWrites(operator).then(
          () => true,
          (err: unknown) => void (refusal = err),
        ),
      20_000,
      250,
    ).catch(() => false);
    if (!applied) throw refusal;
    support = await agentClient('support_bot');
    intake = await agentClient('intake_bot');
    // A ticket of someone else to find (created by the admin, outside Tollgate).
    const seeded = await directusAdmin('POST', '/items/tickets', {
      subject: `Badge reader broken ${run}`,
      requester_email: 'bob@example.com',
      assignee: 'lead@example.com',
    });
    expect(seeded.status).toBe(200);
  }, 120_000);

  it('e2e - each agent is offered only its tools, and their schemas only its fields', async () => {
    const names = async (client: TollgateClient) =>
      eventually(async () => {
        const tools = (await client.listTools()).map((t) => t.name).sort();
        return tools.length > 0 ? tools : undefined;
      }, 20_000);
    expect(await names(support)).toEqual([
      'support_tickets_get_ticket',
      'support_tickets_list_tickets',
      'support_tickets_open_ticket',
      'support_tickets_update_ticket',
    ]);
    expect(await names(intake)).toEqual([
      'support_tickets_get_ticket',
      'support_tickets_list_tickets',
      'support_tickets_open_ticket',
    ]);
    const open = await support.getTool('support_tickets_open_ticket');
    const schema = JSON.stringify(open.inputSchema);
    expect(schema).toContain('"requester_email"');
    // Pinned by the operator, or not the agent's to set.
    for (const hidden of ['"status"', '"channel"', '"assignee"'])
      expect(schema).not.toContain(hidden);
  });

  it('e2e - a support agent lists and searches tickets and sees only its fields, redacted', async () => {
    const listed = noted(
      'list_tickets',
      await outcome(support, 'support_tickets_list_tickets', { search: run, limit: 10 }),
    );
    expect(listed.status).toBe('ok');
    const rows = listed.data as Array<Record<string, unknown>>;
    expect(rows.map((r) => r['subject'])).toEqual([`Badge reader broken ${run}`]);
    const visible = [
      'description',
      'due_date',
      'id',
      'priority',
      'requester_email',
      'requester_name',
      'status',
      'subject',
    ];
    for (const row of rows) {
      expect(Object.keys(row).every((k) => visible.includes(k))).toBe(true);
      expect(row['assignee']).toBeUndefined();
      expect(row['requester_email']).not.toBe('bob@example.com');
    }
    const none = noted(
      'list_tickets',
      await outcome(support, 'support_tickets_list_tickets', { search: `nothing-${run}` }),
    );
    expect(none).toMatchObject({ status: 'ok', data: [] });
    // A field the agent may not send is refused before Directus is asked.
    const refused = noted(
      'list_tickets',
      await outcome(support, 'support_tickets_list_tickets', { assignee: 'x' } as JsonObject),
    );
    expect(refused).toMatchObject({
      status: 'error',
      error: { code: 'ARGUMENTS_INVALID', category: 'fix_arguments' },
    });
  });

  it('e2e - opening a ticket waits for approval; once approved it is created exactly once', async () => {
    const parked = noted(
      'open_ticket',
      await outcome(support, 'support_tickets_open_ticket', { body: ticket }),
    );
    expect(parked.status).toBe('pending_approval');
    expect(await ticketsWithSubject(subject)).toEqual([]);
    const approver = await as('duty_desk', 'dana');
    const pendingList = await policy.listPending({}, approver);
    expect(pendingList.approvals.map((a) => a.id)).toContain(parked.pending!.approvalId);
    await policy.approve({ id: parked.pending!.approvalId, reason: 'customer called' }, approver);
    const done = await parked.pending!.wait({ timeoutMs: 30_000, pollIntervalMs: 250 });
    expect(done.status).toBe('ok');
    opened = (done as { data: Array<Record<string, unknown>> }).data[0]!;
    expect(opened).toMatchObject({ subject, status: 'open', priority: 'high' });
    expect(opened['requester_email']).not.toBe('ann@example.com');
    const stored = await ticketsWithSubject(subject);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      id: opened['id'],
      status: 'open',
      channel: 'chat',
      requester_email: 'ann@example.com',
    });
  });

  it('e2e - a second agent filing the same ticket the same day gets the first ticket back', async () => {
    const again = noted(
      'open_ticket',
      await outcome(intake, 'support_tickets_open_ticket', { body: ticket }),
    );
    expect(again).toMatchObject({ status: 'ok' });
    expect((again.data as Array<Record<string, unknown>>)[0]).toMatchObject({
      id: opened['id'],
      subject,
    });
    // Twice at once, too: still the one ticket.
    const burst = await Promise.all(
      [1, 2].map(() => outcome(intake, 'support_tickets_open_ticket', { body: ticket })),
    );
    for (const b of burst) {
      noted('open_ticket', b);
      expect((b.data as Array<Record<string, unknown>>)[0]).toMatchObject({ id: opened['id'] });
    }
    expect(await ticketsWithSubject(subject)).toHaveLength(1);
  });

  it('e2e - the same ticket key with another body is a conflict, and nothing is created', async () => {
    const conflict = noted(
      'open_ticket',
      await outcome(intake, 'support_tickets_open_ticket', {
        body: { ...ticket, description: 'Now the scanner too' },
      }),
    );
    expect(conflict).toMatchObject({ status: 'error', error: { code: 'IDEMPOTENCY_CONFLICT' } });
    const stored = await ticketsWithSubject(subject);
    expect(stored).toHaveLength(1);
    expect(stored[0]?.['description']).toBe(ticket.description);
  });

  it('e2e - an update with a body the schema refuses is fix_arguments and Directus is unchanged', async () => {
    const id = opened['id'] as number;
    const wrongType = noted(
      'update_ticket',
      await outcome(
        support,
        'support_tickets_update_ticket',
        { id, body: { priority: 7 } } as JsonObject,
        {
          idempotencyKey: `u-${run}-1`,
        },
      ),
    );
    expect(wrongType).toMatchObject({
      status: 'error',
      error: { code: 'ARGUMENTS_INVALID', category: 'fix_arguments' },
    });
    expect(JSON.stringify(wrongType.error?.details)).toContain('priority');
    const notSettable = noted(
      'update_ticket',
      await outcome(
        support,
        'support_tickets_update_ticket',
        { id, body: { status: 'closed' } },
        {
          idempotencyKey: `u-${run}-2`,
        },
      ),
    );
    expect(notSettable).toMatchObject({
      status: 'error',
      error: { code: 'ARGUMENTS_INVALID', category: 'fix_arguments' },
    });
    expect((await ticketsWithSubject(subject))[0]).toMatchObject({
      priority: 'high',
      status: 'open',
    });
    // A write with no key of the caller's, and no business rule for it: told how to send one.
    const keyless = noted(
      'update_ticket',
      await outcome(support, 'support_tickets_update_ticket', { id, body: { priority: 'low' } }),
    );
    expect(keyless).toMatchObject({
      status: 'error',
      error: { code: 'IDEMPOTENCY_KEY_REQUIRED', category: 'fix_arguments' },
    });
    expect(keyless.error?.message).toContain('idempotencyKey');
    const fine = noted(
      'update_ticket',
      await outcome(
        support,
        'support_tickets_update_ticket',
        { id, body: { priority: 'urgent' } },
        {
          idempotencyKey: `u-${run}-3`,
        },
      ),
    );
    expect(fine).toMatchObject({ status: 'ok' });
    expect((await ticketsWithSubject(subject))[0]).toMatchObject({
      priority: 'urgent',
      status: 'open',
    });
  });

  it('e2e - audit holds every call in an unbroken hash chain, and never the Directus token', async () => {
    const ids = calls.map((c) => c.callId);
    const records = await eventually(async () => {
      const found = await services.records({
        tenant,
        call_id: { $in: ids },
        type: 'call.completed',
      });
      const ended = new Set(
        found.filter((r) => r['status'] !== 'pending_approval').map((r) => r['call_id']),
      );
      return ids.every((id) => ended.has(id)) ? found : undefined;
    }, 20_000);
    const trail = (callId: string) =>
      records
        .filter((r) => r['call_id'] === callId)
        .map((r) => `${r['tool']} ${r['status']} ${r['error_code']}`.trim())
        .sort();
    expect(calls.map((c) => trail(c.callId))).toEqual(
      calls.map((c) =>
        c.status === 'pending_approval'
          ? [`support_tickets_${c.tool} ok`, `support_tickets_${c.tool} pending_approval`]
          : [`support_tickets_${c.tool} ${c.status} ${c.code ?? ''}`.trim()],
      ),
    );
    expect(await services.trail.verify(tenant, create(VerifyRequestSchema, {}))).toMatchObject({
      ok: true,
    });
    const all = JSON.stringify(await services.records({ tenant }));
    expect(all).not.toContain(directus.token);
    expect(all).not.toContain(admin);
  });
});

describe('e2e - a Directus response off the pinned document', () => {
  const collection = `tg_probe_${run}`;
  const probe = {
    email: `tg-probe-${run}@example.com`,
    token: probeToken,
    policy: '',
    user: '',
  };
  const title = `Probe record ${run}`;
  let reader: TollgateClient;
  let itemId = 0;

  /** The resource as an operator declares it: the list operation of the probe collection. */
  async function declared(): Promise<JsonObject> {
    const oas = await fetch(`${directus.url}/server/specs/oas`, {
      headers: { authorization: `Bearer ${probe.token}` },
    });
    const document = (await oas.json()) as {
      paths: Record<string, { get?: { operationId?: string } }>;
    };
    const operationId = document.paths[`/items/${collection}`]?.get?.operationId;
    expect(operationId).toBeDefined();
    return {
      apiVersion: 'tollgate.dev/v1',
      kind: 'Resource',
      metadata: {
        name: 'probe_items',
        tenant,
        environment: ENVIRONMENT,
        description: 'Probe records whose collection changes under the declared document',
      },
      spec: {
        type: 'http',
        connection: {
          baseUrl: directus.url,
          credentialRef: 'env://TG_E2E_DIRECTUS_PROBE',
          auth: { scheme: 'bearer' },
          timeoutMs: 5000,
        },
        document: { url: '/server/specs/oas' },
        operations: { list_items: { operationId: operationId!, pinned: { fields: ['*'] } } },
        schema: {
          fields: {
            id: { type: 'integer', returnable: true },
            title: { type: 'string', returnable: true },
            priority: { type: 'string', returnable: true },
          },
        },
        access: { allowedRoles: ['support'], readonly: true, maxLimit: 10 },
      },
    };
  }

  beforeAll(async () => {
    // A collection, policy and user of this run only: altering it disturbs no other test.
    const made = await directusAdmin('POST', '/collections', {
      collection,
      schema: {},
      meta: { hidden: true, note: 'Tollgate e2e probe; dropped by the test' },
      fields: [
        {
          field: 'id',
          type: 'integer',
          schema: { is_primary_key: true, has_auto_increment: true },
          meta: { hidden: true },
        },
        { field: 'title', type: 'string', schema: {}, meta: {} },
        { field: 'priority', type: 'string', schema: {}, meta: {} },
      ],
    });
    expect(made.status).toBe(200);
    const policyMade = await directusAdmin('POST', '/policies', {
      name: `Tollgate probe ${run}`,
      admin_access: false,
      app_access: false,
    });
    expect(policyMade.status).toBe(200);
    probe.policy = (policyMade.json.data as { id: string }).id;
    expect(
      (
        await directusAdmin('POST', '/permissions', {
          policy: probe.policy,
          collection,
          action: 'read',
          fields: ['*'],
        })
      ).status,
    ).toBe(200);
    const userMade = await directusAdmin('POST', '/users', {
      email: probe.email,
      token: probe.token,
      status: 'active',
    });
    expect(userMade.status).toBe(200);
    probe.user = (userMade.json.data as { id: string }).id;
    expect(
      (await directusAdmin('POST', '/access', { user: probe.user, policy: probe.policy })).status,
    ).toBe(200);
    const item = await directusAdmin('POST', `/items/${collection}`, { title, priority: 'low' });
    expect(item.status).toBe(200);
    itemId = (item.json.data as { id: number }).id;

    const operator = await as('tollgate-cli');
    const discovered = await services.registryClient.discover(
      { descriptor: (await declared()) as never },
      operator,
    );
    await services.registryClient.apply({ descriptor: discovered.descriptor as never }, operator);
    reader = await agentClient('support_bot');
    await eventually(
      async () =>
        (await reader.listTools()).some((t) => t.name === 'probe_items_list_items')
          ? true
          : undefined,
      20_000,
    );
  }, 120_000);

  afterAll(async () => {
    if (admin === '') return;
    await directusAdmin('DELETE', `/collections/${collection}`);
    if (probe.user !== '') await directusAdmin('DELETE', `/users/${probe.user}`);
    if (probe.policy !== '') await directusAdmin('DELETE', `/policies/${probe.policy}`);
  }, 60_000);

  it('e2e - a field whose type changed under the pinned document is UPSTREAM_BAD_RESPONSE, nothing passed on', async () => {
    const before = await outcome(reader, 'probe_items_list_items', { limit: 5 });
    expect(before).toMatchObject({ status: 'ok', data: [{ id: itemId, title, priority: 'low' }] });

    // priority becomes an integer in Directus; the resource version still says string.
    expect((await directusAdmin('DELETE', `/fields/${collection}/priority`)).status).toBe(204);
    expect(
      (
        await directusAdmin('POST', `/fields/${collection}`, {
          field: 'priority',
          type: 'integer',
          schema: {},
          meta: {},
        })
      ).status,
    ).toBe(200);
    expect(
      (await directusAdmin('PATCH', `/items/${collection}/${itemId}`, { priority: 424242 })).status,
    ).toBe(200);

    const after = await outcome(reader, 'probe_items_list_items', { limit: 5 });
    expect(after).toMatchObject({
      status: 'error',
      error: { code: 'UPSTREAM_BAD_RESPONSE', category: 'internal' },
    });
    expect(after.data).toBeUndefined();
    expect(after.error?.message).toContain('/data/0/priority must be');
    expect(after.error?.message).not.toContain('424242');
    expect(after.error?.message).not.toContain(title);

    const recorded = await eventually(async () => {
      const found = await services.records({
        tenant,
        call_id: after.callId,
        type: 'call.completed',
      });
      return found.length > 0 ? found : undefined;
    }, 20_000);
    expect(recorded.map((r) => [r['status'], r['error_code'], r['returned']])).toEqual([
      ['error', 'UPSTREAM_BAD_RESPONSE', 0],
    ]);
    expect(JSON.stringify(recorded)).not.toContain('424242');
    expect(JSON.stringify(recorded)).not.toContain(title);
  });

  it('e2e - discover reads the changed document and shows it as a diff to the saved version; nothing is saved', async () => {
    const operator = await as('tollgate-cli');
    const before = await services.registryClient.get({ name: 'probe_items' }, operator);
    const current = before.resource!.version;
    const discovered = await services.registryClient.discover(
      { descriptor: (await declared()) as never },
      operator,
    );
    expect(discovered.currentVersion).toBe(current);
    const priority = discovered.changes.filter((c) => c.path.includes('priority'));
    expect(priority.map((c) => c.operation)).toContain(DiffOperation.CHANGED);
    expect(
      priority
        .map((c) => [c.before?.kind.value, c.after?.kind.value])
        .filter(([b]) => b === 'string'),
    ).toContainEqual(['string', 'integer']);
    expect(JSON.stringify(discovered)).not.toContain(probe.token);
    const after = await services.registryClient.get({ name: 'probe_items' }, operator);
    expect(after.resource!.version).toBe(current);
  });
});
