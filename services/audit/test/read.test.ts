import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { QueryRequestSchema, StatsGroup } from '@tollgate/contracts/audit/v1';
import { CallStatus } from '@tollgate/contracts/call/v1';
import { ErrorCode } from '@tollgate/contracts/common/v1';
import { ApprovalStatus } from '@tollgate/contracts/policy/v1';
import { SavedQueryUseSchema } from '@tollgate/contracts/events/v1';
import { EventTypes, encodePageToken } from '@tollgate/kit';
import { TollgateError } from '@tollgate/core';
import { describe, expect, it } from 'vitest';
import { GENESIS, linkRecords } from '../src/chain/chain.js';
import { draftRecord } from '../src/ingest/draft.js';
import { parseQuery } from '../src/read/query.js';
import { storedEvent } from '../src/read/records.js';
import { StatsAccumulator, percentile } from '../src/read/stats.js';
import type { CallRow } from '../src/read/stats.js';
import { sessionStep, stepLine } from '../src/read/timeline.js';
import { approvalEvent, callCompleted, callDenied, toolsListed } from './support/events.js';

function refusal(fn: () => unknown): { message: string; path: string | undefined } {
  try {
    fn();
  } catch (err) {
    if (err instanceof TollgateError) return { message: err.message, path: err.details[0]?.path };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('read', () => {
  it('query - every filter becomes part of the Mongo filter, tenant first', () => {
    const q = parseQuery(
      'team-a',
      create(QueryRequestSchema, {
        types: ['call.completed'],
        sessionId: 's-1',
        agent: 'support_bot',
        tool: 'es_orders_search',
        status: CallStatus.ERROR,
        errorCode: ErrorCode.ARGUMENTS_INVALID,
        from: timestampFromDate(new Date('2026-03-01T00:00:00Z')),
        to: timestampFromDate(new Date('2026-03-02T00:00:00Z')),
        pageSize: 50,
      }),
    );
    expect(q.filter).toEqual({
      tenant: 'team-a',
      type: { $in: ['call.completed'] },
      session_id: 's-1',
      agent: 'support_bot',
      tool: 'es_orders_search',
      status: 'error',
      error_code: 'ARGUMENTS_INVALID',
      occurred_at: {
        $gte: new Date('2026-03-01T00:00:00Z'),
        $lt: new Date('2026-03-02T00:00:00Z'),
      },
    });
    expect(q).toMatchObject({ pageSize: 50, after: 0 });
  });

  it('query - bad filters are refused naming the field', () => {
    const cases: Array<[Parameters<typeof create<typeof QueryRequestSchema>>[1], string, string]> =
      [
        [{ types: ['call.completed', 'nope'] }, 'types[1]', 'types[1]: unknown event type'],
        [{ pageSize: 5000 }, 'page_size', 'page_size: too large'],
        [{ status: 99 as CallStatus }, 'status', 'status: unknown value'],
        [{ agent: 'x'.repeat(300) }, 'agent', 'agent: not an acceptable filter value'],
        [
          { from: timestampFromDate(new Date(2000)), to: timestampFromDate(new Date(1000)) },
          'to',
          'to: not after from',
        ],
        [{ pageToken: 'garbage' }, 'page_token', 'page_token: not a page token'],
      ];
    for (const [init, path, message] of cases) {
      expect(refusal(() => parseQuery('team-a', create(QueryRequestSchema, init)))).toEqual({
        path,
        message,
      });
    }
  });

  it('query - a page token continues only the query it came from', () => {
    const first = parseQuery('team-a', create(QueryRequestSchema, { agent: 'a' }));
    const token = encodePageToken(17, first.seal);
    expect(
      parseQuery('team-a', create(QueryRequestSchema, { agent: 'a', pageToken: token })).after,
    ).toBe(17);
    expect(
      refusal(() =>
        parseQuery('team-a', create(QueryRequestSchema, { agent: 'b', pageToken: token })),
      ),
    ).toEqual({
      path: 'page_token',
      message: 'page_token: belongs to a query with other filters',
    });
    expect(() =>
      parseQuery('team-b', create(QueryRequestSchema, { agent: 'a', pageToken: token })),
    ).toThrow('belongs to a query with other filters');
  });

  it('stats - nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([percentile(values, 50), percentile(values, 95), percentile(values, 99)]).toEqual([
      50, 95, 99,
    ]);
    expect(percentile([], 50)).toBe(0);
    expect(percentile([7], 99)).toBe(7);
  });

  it('stats - counts and rates per tool, denials and argument failures included', () => {
    const row = (o: Partial<CallRow>): CallRow => ({
      type: 'call.completed',
      occurred_at: new Date('2026-03-01T10:00:00Z'),
      tool: 'search',
      agent: 'bot',
      resource: 'orders',
      status: 'ok',
      decision: 'allow',
      error_code: '',
      latency_ms: 10,
      truncated: false,
      ...o,
    });
    const acc = new StatsAccumulator({ by: StatsGroup.TOOL });
    acc.add(row({ latency_ms: 10 }));
    acc.add(row({ latency_ms: 30, truncated: true }));
    acc.add(row({ status: 'error', error_code: 'ARGUMENTS_INVALID', latency_ms: 2 }));
    acc.add(
      row({
        type: 'call.denied',
        status: '',
        decision: 'deny',
        error_code: 'POLICY_DENIED',
        latency_ms: 0,
      }),
    );
    acc.add(
      row({ tool: 'write', status: 'error', error_code: 'IDEMPOTENCY_CONFLICT', latency_ms: 5 }),
    );
    const { total, groups } = acc.result();
    expect(total).toMatchObject({
      calls: 5n,
      ok: 2n,
      errors: 2n,
      denials: 1n,
      truncated: 1n,
      argumentValidationFailures: 1n,
      idempotencyConflicts: 1n,
      p50LatencyMs: 5,
      p99LatencyMs: 30,
    });
    expect(total.successRate).toBeCloseTo(0.4);
    expect(groups.map((g) => [g.key, g.calls])).toEqual([
      ['search', 4n],
      ['write', 1n],
    ]);
    expect(groups[0]).toMatchObject({
      denialRate: 0.25,
      argumentValidationFailureRate: 0.25,
      truncationRate: 0.25,
      p50LatencyMs: 10,
      p95LatencyMs: 30,
    });
  });

  it('stats - windows start at the range start and are keyed by their start time', () => {
    const acc = new StatsAccumulator({
      by: StatsGroup.WINDOW,
      windowMs: 60_000,
      originMs: Date.parse('2026-03-01T10:00:30Z'),
    });
    for (const t of ['2026-03-01T10:00:31Z', '2026-03-01T10:01:29Z', '2026-03-01T10:01:31Z']) {
      acc.add({
        type: 'call.completed',
        occurred_at: new Date(t),
        tool: '',
        agent: '',
        resource: '',
        status: 'ok',
        decision: 'allow',
        error_code: '',
        latency_ms: 1,
        truncated: false,
      });
    }
    expect(acc.result().groups.map((g) => [g.key, g.calls])).toEqual([
      ['2026-03-01T10:00:30.000Z', 2n],
      ['2026-03-01T10:01:30.000Z', 1n],
    ]);
  });

  it('timeline - each record becomes a step with a summary in words', () => {
    const events = [
      toolsListed(),
      callCompleted({ callId: 'c-1', truncated: true }),
      callCompleted({
        callId: 'c-2',
        status: CallStatus.ERROR,
        errorCode: ErrorCode.ARGUMENTS_INVALID,
      }),
      callDenied({ callId: 'c-3' }),
      approvalEvent(EventTypes.approvalRequested),
      approvalEvent(EventTypes.approvalDecided, { status: ApprovalStatus.APPROVED }),
    ];
    const docs = linkRecords(
      GENESIS,
      events.map((e) => draftRecord(e)),
      new Date(),
    );
    const steps = docs.map((doc) => sessionStep(doc, storedEvent(doc)));
    expect(steps.map((s) => s.summary)).toEqual([
      'offered 2 tools: es_orders_search@v-hash-1, es_orders_get@v-hash-2 for task "find open orders"',
      'es_orders_search -> ok: 10 of 340 returned (truncated), 12 ms',
      'es_orders_search -> error ARGUMENTS_INVALID: filters[0].value: expected a string, 12 ms',
      'es_orders_write denied (POLICY_DENIED): writes need the order_ops role',
      'approval ap-1 requested for es_orders_write by policies writes-need-approval',
      'approval ap-1 approved by alice: customer confirmed',
    ]);
    expect(steps[0]!.offeredTools.map((t) => t.version)).toEqual(['v-hash-1', 'v-hash-2']);
    expect(steps[1]).toMatchObject({
      sequence: 2n,
      callId: 'c-1',
      toolVersion: 'v-hash-1',
      policyIds: ['support-read-orders'],
      hash: docs[1]!.hash,
    });
    const line = JSON.parse(stepLine(steps[1]!));
    expect(line).toMatchObject({
      sequence: '2',
      type: 'call.completed',
      status: 'CALL_STATUS_OK',
      decision: 'DECISION_EFFECT_ALLOW',
      arguments: { limit: 10 },
      meta: { returned: 10, total: 340, truncated: true },
    });
  });

  it('timeline - a saved-query call says which saved query it went through, and keeps it', () => {
    const completed = callCompleted({ callId: 'c-9' });
    const denied = callDenied({ callId: 'c-10' });
    const use = create(SavedQueryUseSchema, {
      id: 'cap-1',
      name: 'open_orders',
      revision: 2,
      contentHash: 'a'.repeat(64),
      tool: 'sq_open_orders',
      toolVersion: 'v-sq-1',
    });
    for (const e of [completed, denied]) {
      if (e.payload.case === 'callCompleted' || e.payload.case === 'callDenied')
        e.payload.value.savedQuery = use;
    }
    const docs = linkRecords(GENESIS, [draftRecord(completed), draftRecord(denied)], new Date());
    const steps = docs.map((doc) => sessionStep(doc, storedEvent(doc)));
    expect(steps.map((s) => s.summary)).toEqual([
      'es_orders_search via saved query open_orders (revision 2) -> ok: 10 of 340 returned, 12 ms',
      'es_orders_write via saved query open_orders (revision 2) denied (POLICY_DENIED): writes need the order_ops role',
    ]);
    const stored = storedEvent(docs[0]!);
    expect(
      stored.payload.case === 'callCompleted' && stored.payload.value.savedQuery,
    ).toMatchObject({
      name: 'open_orders',
      revision: 2,
      tool: 'sq_open_orders',
    });
  });
});
