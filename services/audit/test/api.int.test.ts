import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { NatsConnection } from '@nats-io/transport-node';
import { RpcStatus, isRpcError } from '@tollgate/contracts';
import type { RpcClient } from '@tollgate/contracts';
import { StatsGroup } from '@tollgate/contracts/audit/v1';
import type { AuditService } from '@tollgate/contracts/audit/v1';
import { CallStatus } from '@tollgate/contracts/call/v1';
import { ErrorCode } from '@tollgate/contracts/common/v1';
import { ApprovalStatus } from '@tollgate/contracts/policy/v1';
import { EventTypes, buckets, ensureEventStream, openBucket } from '@tollgate/kit';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalEvent, callCompleted, callDenied, toolsListed } from './support/events.js';
import { sharedMongoUrl } from './support/harness.js';
import { publishAll } from './support/publish.js';
import { eventually, ownNatsServer, uniqueName } from './support/servers.js';
import type { OwnedNatsServer } from './support/servers.js';
import { auditClient, startAuditProcess, testIssuer } from './support/service.js';
import type { AuditProcess } from './support/service.js';
import { declareAgents } from '../../../test/support/roles.js';

const A = 'team-a';
const B = 'team-b';
const t0 = new Date('2026-03-01T10:00:00.000Z');
const at = (s: number) => new Date(t0.getTime() + s * 1000);

let nats: OwnedNatsServer;
let nc: NatsConnection;
let audit: AuditProcess;
let dbUrl: string;
let issuer: Awaited<ReturnType<typeof testIssuer>>;
let asA: RpcClient<typeof AuditService>;
let asB: RpcClient<typeof AuditService>;
let anonymous: RpcClient<typeof AuditService>;

async function refusal(
  p: Promise<unknown>,
): Promise<{ code: number; tollgateCode?: string; message: string; path?: string }> {
  try {
    await p;
  } catch (err) {
    if (!isRpcError(err)) throw err;
    return {
      code: err.code,
      tollgateCode: err.tollgateCode,
      message: err.message,
      path: err.details[0]?.path,
    };
  }
  throw new Error('expected the call to be refused');
}

beforeAll(async () => {
  nats = await ownNatsServer();
  nc = await nats.connect('audit-api');
  await ensureEventStream(nc);
  const bundles = await openBucket(nc, buckets.policyBundles);
  await declareAgents(bundles, A, {
    auditor: ['viewer'],
    lead: ['admin'],
    approver_bot: ['approver'],
    support_bot: ['support'],
  });
  await declareAgents(bundles, B, { auditor: ['viewer'] });
  dbUrl = `${sharedMongoUrl}/${uniqueName('audit_api')}`;
  issuer = await testIssuer();
  audit = await startAuditProcess({
    ...nats.env,
    TOLLGATE_MONGO_URL: dbUrl,
    TOLLGATE_TRUSTED_ISSUERS_FILE: issuer.file,
  });
  asA = auditClient(audit.grpc, await issuer.token(A));
  asB = auditClient(audit.grpc, await issuer.token(B));
  anonymous = auditClient(audit.grpc, 'not-a-token');

  const session = [
    toolsListed({ sessionId: 's-1' }),
    callCompleted({
      sessionId: 's-1',
      callId: 'c-1',
      latencyMs: 10,
      truncated: true,
      occurredAt: at(1),
    }),
    callCompleted({
      sessionId: 's-1',
      callId: 'c-2',
      status: CallStatus.ERROR,
      errorCode: ErrorCode.ARGUMENTS_INVALID,
      latencyMs: 3,
      occurredAt: at(2),
    }),
    callDenied({ sessionId: 's-1', callId: 'c-3' }),
    approvalEvent(EventTypes.approvalRequested, { sessionId: 's-1', callId: 'c-4' }),
    approvalEvent(EventTypes.approvalDecided, {
      sessionId: 's-1',
      callId: 'c-4',
      status: ApprovalStatus.APPROVED,
    }),
    callCompleted({
      sessionId: 's-1',
      callId: 'c-4',
      tool: 'es_orders_write',
      latencyMs: 40,
      occurredAt: at(3),
    }),
  ];
  const others = Array.from({ length: 25 }, (_, i) =>
    callCompleted({
      sessionId: 's-2',
      callId: `o-${i}`,
      agent: i % 5 === 0 ? 'ops_bot' : 'support_bot',
      latencyMs: 100 + i,
      occurredAt: at(70 + i),
    }),
  );
  const teamB = Array.from({ length: 3 }, (_, i) =>
    callCompleted({ tenant: B, sessionId: 's-1', callId: `b-${i}` }),
  );
  await publishAll(nc, [...session, ...others, ...teamB]);
  await eventually(
    async () => {
      const [a, b] = await Promise.all([
        asA.query({ pageSize: 1000 }),
        asB.query({ pageSize: 1000 }),
      ]);
      return a.records.length === 32 && b.records.length === 3 ? true : undefined;
    },
    60_000,
    250,
  );
});

afterAll(async () => {
  for (const client of [asA, asB, anonymous]) client?.close();
  if (audit && audit.child.exitCode === null) audit.child.kill('SIGKILL');
  await nc?.close();
  const client = new MongoClient(dbUrl);
  await client
    .db()
    .dropDatabase()
    .catch(() => {});
  await client.close();
  await nats?.dispose();
  await issuer?.dispose();
});

describe('audit api', () => {
  it('api - a call without a valid token is refused', async () => {
    expect(await refusal(anonymous.query({}))).toMatchObject({
      code: RpcStatus.UNAUTHENTICATED,
      tollgateCode: 'UNAUTHENTICATED',
    });
    expect(await refusal(anonymous.verify({}))).toMatchObject({ code: RpcStatus.UNAUTHENTICATED });
  });

  it('api - only operators (admin, approver, viewer) read the trail; an agent of the tenant or an undeclared name is refused on every method', async () => {
    for (const agent of ['lead', 'approver_bot']) {
      const client = auditClient(audit.grpc, await issuer.token(A, agent));
      expect((await client.query({ pageSize: 1000 })).records.length, agent).toBeGreaterThan(0);
      expect((await client.verify({})).ok, agent).toBe(true);
      client.close();
    }
    for (const agent of ['support_bot', 'stranger']) {
      const client = auditClient(audit.grpc, await issuer.token(A, agent));
      const drain = async () => {
        for await (const chunk of client.exportSession({ sessionId: 's-1' })) void chunk;
      };
      for (const [label, call] of [
        ['Query', () => client.query({ pageSize: 1000 })],
        ['ReplaySession', () => client.replaySession({ sessionId: 's-1' })],
        ['ExportSession', drain],
        ['Stats', () => client.stats({ groupBy: StatsGroup.TOOL })],
        ['Verify', () => client.verify({})],
      ] as const) {
        const refused = await refusal(call());
        expect.soft(refused.code, `${agent}: ${label}`).toBe(RpcStatus.PERMISSION_DENIED);
        expect.soft(refused.tollgateCode, `${agent}: ${label}`).toBe('POLICY_DENIED');
        expect
          .soft(refused.message, `${agent}: ${label}`)
          .toContain(
            `"${agent}" may not read the audit trail: that needs the admin, approver or viewer role`,
          );
      }
      client.close();
    }
  });

  it('api - tenants see only their own records; naming another tenant is refused', async () => {
    const b = await asB.query({ pageSize: 1000 });
    expect(new Set(b.records.map((r) => r.tenant))).toEqual(new Set([B]));
    expect(new Set(b.records.map((r) => r.event?.tenant))).toEqual(new Set([B]));
    const replay = await asB.replaySession({ sessionId: 's-1' });
    expect(replay.records.map((r) => r.tenant)).toEqual([B, B, B]);
    // One at a time: a call started early would reject unobserved while an earlier one is awaited.
    for (const call of [
      () => asB.query({ tenant: A }),
      () => asB.replaySession({ tenant: A, sessionId: 's-1' }),
      () => asB.stats({ tenant: A }),
      () => asB.verify({ tenant: A }),
    ]) {
      expect(await refusal(call())).toMatchObject({
        code: RpcStatus.PERMISSION_DENIED,
        tollgateCode: 'TENANT_MISMATCH',
      });
    }
  });

  it('api - Query filters by agent, tool, session, status, error code and time', async () => {
    const ids = (r: {
      records: Array<{ event?: { payload: { case?: string; value?: unknown } } }>;
    }) => r.records.map((x) => (x.event?.payload.value as { callId?: string }).callId);
    expect(ids(await asA.query({ agent: 'ops_bot' }))).toEqual([
      'o-0',
      'o-5',
      'o-10',
      'o-15',
      'o-20',
    ]);
    expect(ids(await asA.query({ tool: 'es_orders_write', types: ['call.completed'] }))).toEqual([
      'c-4',
    ]);
    expect(ids(await asA.query({ status: CallStatus.ERROR }))).toEqual(['c-2']);
    expect(ids(await asA.query({ errorCode: ErrorCode.ARGUMENTS_INVALID }))).toEqual(['c-2']);
    expect(ids(await asA.query({ sessionId: 's-1', types: ['call.denied'] }))).toEqual(['c-3']);
    expect(
      ids(await asA.query({ from: timestampFromDate(at(2)), to: timestampFromDate(at(71)) })),
    ).toEqual(['c-2', 'c-4', 'o-0']);
  });

  it('api - Query pages with a cursor, in chain order, without gaps or repeats', async () => {
    const seen: bigint[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const page = await asA.query({ sessionId: 's-2', pageSize: 10, pageToken });
      seen.push(...page.records.map((r) => r.sequence));
      pageToken = page.nextPageToken;
      pages++;
    } while (pageToken !== '');
    expect(pages).toBe(3);
    expect(seen).toHaveLength(25);
    expect([...seen].sort((x, y) => Number(x - y))).toEqual(seen);
    expect(new Set(seen).size).toBe(25);
    const first = await asA.query({ sessionId: 's-2', pageSize: 10 });
    expect(
      await refusal(asA.query({ sessionId: 's-1', pageToken: first.nextPageToken })),
    ).toMatchObject({
      code: RpcStatus.INVALID_ARGUMENT,
      path: 'page_token',
    });
  });

  it('api - ReplaySession gives the timeline: tools offered, calls, decisions, approvals, results', async () => {
    const replay = await asA.replaySession({ sessionId: 's-1' });
    expect(replay.steps.map((s) => s.type)).toEqual([
      'tools.listed',
      'call.completed',
      'call.completed',
      'call.denied',
      'approval.requested',
      'approval.decided',
      'call.completed',
    ]);
    expect(replay.records.map((r) => r.sequence)).toEqual(replay.steps.map((s) => s.sequence));
    const [offered, ok, bad, denied, , decided, write] = replay.steps;
    expect(offered!.offeredTools.map((t) => [t.name, t.version])).toEqual([
      ['es_orders_search', 'v-hash-1'],
      ['es_orders_get', 'v-hash-2'],
    ]);
    expect(ok).toMatchObject({
      callId: 'c-1',
      toolVersion: 'v-hash-1',
      status: CallStatus.OK,
      policyIds: ['support-read-orders'],
      meta: { returned: 10, total: 340, truncated: true, latencyMs: 10 },
    });
    expect(ok!.arguments).toEqual({
      filters: [{ field: 'status', op: 'eq', value: 'open' }],
      limit: 10,
    });
    expect(bad!.summary).toBe(
      'es_orders_search -> error ARGUMENTS_INVALID: filters[0].value: expected a string, 3 ms',
    );
    expect(denied).toMatchObject({
      reason: 'writes need the order_ops role',
      policyIds: ['deny-writes'],
    });
    expect(decided).toMatchObject({
      approvalId: 'ap-1',
      approvalStatus: ApprovalStatus.APPROVED,
      decidedBy: 'alice',
    });
    expect(write!.summary).toBe('es_orders_write -> ok: 10 of 340 returned, 40 ms');
    expect(replay.nextPageToken).toBe('');
  });

  it('api - ExportSession streams the same timeline as JSON Lines', async () => {
    let text = '';
    for await (const chunk of asA.exportSession({ sessionId: 's-1' })) text += chunk.jsonl;
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(7);
    expect(lines.map((l) => l.type)).toEqual([
      'tools.listed',
      'call.completed',
      'call.completed',
      'call.denied',
      'approval.requested',
      'approval.decided',
      'call.completed',
    ]);
    expect(lines[1]).toMatchObject({
      callId: 'c-1',
      status: 'CALL_STATUS_OK',
      meta: { truncated: true },
    });
    expect(lines.every((l) => typeof l.summary === 'string' && /^[0-9a-f]{64}$/.test(l.hash))).toBe(
      true,
    );
  });

  it('api - Stats by tool and by agent: counts, rates and latency percentiles', async () => {
    const byTool = await asA.stats({ groupBy: StatsGroup.TOOL });
    expect(byTool.total).toMatchObject({
      calls: 29n,
      ok: 27n,
      errors: 1n,
      denials: 1n,
      argumentValidationFailures: 1n,
      truncated: 1n,
    });
    expect(byTool.total!.successRate).toBeCloseTo(27 / 29);
    expect(byTool.groups.map((g) => [g.key, g.calls])).toEqual([
      ['es_orders_search', 27n],
      ['es_orders_write', 2n],
    ]);
    const write = byTool.groups[1]!;
    expect(write).toMatchObject({ denials: 1n, denialRate: 0.5, p50LatencyMs: 40 });
    const byAgent = await asA.stats({
      groupBy: StatsGroup.AGENT,
      tool: 'es_orders_search',
      from: timestampFromDate(at(60)),
    });
    expect(byAgent.groups.map((g) => [g.key, g.calls, g.p50LatencyMs, g.p99LatencyMs])).toEqual([
      ['ops_bot', 5n, 110, 120],
      ['support_bot', 20n, 112, 124],
    ]);
    // The denied call carries the time it was published, outside this range.
    const windows = await asA.stats({
      groupBy: StatsGroup.WINDOW,
      windowSeconds: 60,
      from: timestampFromDate(t0),
      to: timestampFromDate(at(120)),
    });
    expect(windows.groups.map((g) => [g.key, g.calls])).toEqual([
      [t0.toISOString(), 3n],
      [at(60).toISOString(), 25n],
    ]);
  });

  it('api - Verify walks the tenant chain', async () => {
    expect(await asA.verify({})).toMatchObject({ ok: true, checked: 32n, firstBrokenSequence: 0n });
    expect(await asA.verify({ fromSequence: 10n, toSequence: 20n })).toMatchObject({
      ok: true,
      checked: 11n,
    });
    expect(await asA.verify({ toSequence: 40n })).toMatchObject({
      ok: false,
      firstBrokenSequence: 33n,
      reason: 'record 33 is missing (the chain ends at 32)',
    });
  });

  it('api - bad requests are refused naming the field', async () => {
    expect(await refusal(asA.query({ types: ['call.exploded'] }))).toMatchObject({
      code: RpcStatus.INVALID_ARGUMENT,
      tollgateCode: 'INVALID_ARGUMENT',
      path: 'types[0]',
    });
    expect(await refusal(asA.replaySession({}))).toMatchObject({
      code: RpcStatus.INVALID_ARGUMENT,
      path: 'session_id',
    });
    expect(await refusal(asA.stats({ groupBy: StatsGroup.WINDOW }))).toMatchObject({
      code: RpcStatus.INVALID_ARGUMENT,
      path: 'window_seconds',
    });
    expect(await refusal(asA.verify({ fromSequence: 40n }))).toMatchObject({
      code: RpcStatus.INVALID_ARGUMENT,
      path: 'from_sequence',
      message: 'from_sequence: beyond the end of the chain',
    });
    expect(await refusal(asA.verify({ fromSequence: 9n, toSequence: 3n }))).toMatchObject({
      code: RpcStatus.INVALID_ARGUMENT,
      path: 'to_sequence',
    });
  });

  it('api - SIGTERM stops ingest before NATS and Mongo, and exits 0', async () => {
    audit.child.kill('SIGTERM');
    expect(await audit.exited).toBe(0);
    const stopped = audit.lines.filter((l) => l.msg === 'stopped').map((l) => l.component);
    expect(stopped).toEqual(['grpc', 'ingest', 'nats', 'mongo', 'telemetry']);
  });
});
