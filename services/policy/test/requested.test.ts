import { describe, expect, it } from 'vitest';
import { create } from '@bufbuild/protobuf';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ApprovalSchema, ApprovalStatus } from '@tollgate/contracts/policy/v1';
import { EventTypes, encodeEnvelope, envelope } from '@tollgate/kit';
import { isOwn, readApprovalRequested } from '../src/index.js';
import type { ApprovalRecord } from '../src/index.js';

const ID = '3f2b8c1e-8d4a-4b6e-9c2f-1a2b3c4d5e6f';
const HASH = `sha256:${'ab'.repeat(32)}`;
const AT = new Date('2025-06-01T10:00:00Z');

function approval(init: MessageInitShape<typeof ApprovalSchema> = {}) {
  const base: MessageInitShape<typeof ApprovalSchema> = {
    id: ID,
    status: ApprovalStatus.PENDING,
    principal: { tenant: 'team-a', agent: 'ops_bot', user: 'bob', environment: 'prod' },
    resource: 'es_orders',
    resourceVersion: 3,
    tool: 'es_orders_write',
    argumentsHash: HASH,
    requestedAt: timestampFromDate(AT),
    expiresAt: timestampFromDate(new Date(AT.getTime() + 600_000)),
    callId: 'call-1',
    arguments: { id: 'o-1' },
  };
  return create(ApprovalSchema, { ...base, ...init } as MessageInitShape<typeof ApprovalSchema>);
}

function bytes(init: MessageInitShape<typeof ApprovalSchema> = {}, tenant = 'team-a'): Uint8Array {
  return encodeEnvelope(
    envelope(EventTypes.approvalRequested, tenant, {
      case: 'approvalRequested',
      value: { approval: approval(init) },
    }),
  );
}

const read = (b: Uint8Array) => readApprovalRequested(b, { defaultTtlMs: 1_800_000 });

describe('requested', () => {
  it('requested - a well-formed approval.requested becomes a pending approval', () => {
    const result = read(bytes());
    expect(result).toEqual({
      record: expect.objectContaining({
        id: ID,
        tenant: 'team-a',
        status: 'pending',
        resource: 'es_orders',
        resourceVersion: 3,
        argumentsHash: HASH,
        callId: 'call-1',
        arguments: { id: 'o-1' },
        requestedAt: AT,
        expiresAt: new Date(AT.getTime() + 600_000),
      }),
    });
  });

  it('requested - without an expiry it expires after the default TTL', () => {
    const result = read(bytes({ expiresAt: undefined }));
    expect('record' in result && result.record.expiresAt).toEqual(
      new Date(AT.getTime() + 1_800_000),
    );
  });

  it.each([
    ['id', { id: 'ABC' }, 'approval.id: expected a lowercase UUID, found "ABC"'],
    [
      'status',
      { status: ApprovalStatus.APPROVED },
      'approval.status: expected PENDING, found "APPROVED"',
    ],
    [
      'tenant',
      { principal: { tenant: 'team-b', agent: 'ops_bot' } },
      'approval.principal.tenant: expected the event\'s tenant "team-a", found "team-b"',
    ],
    [
      'agent',
      { principal: { tenant: 'team-a', agent: '' } },
      'approval.principal.agent: expected an agent name, found ""',
    ],
    [
      'resource',
      { resource: 'Orders' },
      'approval.resource: expected a resource name, found "Orders"',
    ],
    [
      'version',
      { resourceVersion: 0 },
      'approval.resource_version: expected a version ≥ 1, found 0',
    ],
    ['tool', { tool: '' }, 'approval.tool: expected a tool name, found ""'],
    [
      'hash',
      { argumentsHash: 'sha256:xyz' },
      'approval.arguments_hash: expected sha256:<64 hex digits>, found "sha256:xyz"',
    ],
    ['call', { callId: '' }, 'approval.call_id: expected a call id, found ""'],
    [
      'expiry',
      { expiresAt: timestampFromDate(AT) },
      'approval.expires_at: expected a time after requested_at, found "2025-06-01T10:00:00.000Z"',
    ],
  ] as const)('requested - a bad %s is refused with what was expected', (_field, init, message) => {
    expect(read(bytes(init as MessageInitShape<typeof ApprovalSchema>))).toEqual({
      invalid: message,
    });
  });

  it('requested - bytes that are no envelope, another event or another schema version are refused', () => {
    expect(read(new Uint8Array([0xff, 0xff, 0xff]))).toEqual({
      invalid: expect.stringMatching(/^not an event envelope/),
    });
    const other = envelope(EventTypes.approvalDecided, 'team-a', {
      case: 'approvalDecided',
      value: { approval: approval() },
    });
    expect(read(encodeEnvelope(other))).toEqual({
      invalid: 'expected an approval.requested event, found "approval.decided"',
    });
    const future = envelope(EventTypes.approvalRequested, 'team-a', {
      case: 'approvalRequested',
      value: { approval: approval() },
    });
    future.schemaVersion = 2;
    expect(read(encodeEnvelope(future))).toEqual({ invalid: 'schema version 2 is not 1' });
  });

  it('requested - own requests: the same agent and user, or the same human through any agent', () => {
    const result = read(bytes());
    if (!('record' in result)) throw new Error('expected a record');
    const record: ApprovalRecord = result.record;
    const who = (agent: string, user?: string) => ({
      tenant: 'team-a',
      agent,
      environment: 'prod',
      ...(user ? { user } : {}),
    });
    expect(isOwn(who('ops_bot', 'bob'), record)).toBe(true);
    expect(isOwn(who('ops-console', 'bob'), record)).toBe(true);
    expect(isOwn(who('ops_bot'), record)).toBe(false);
    expect(isOwn(who('ops-console', 'alice'), record)).toBe(false);
    const agentOnly = { ...record, principal: { ...record.principal, user: '' } };
    expect(isOwn(who('ops_bot'), agentOnly)).toBe(true);
    expect(isOwn(who('ops_bot', 'carol'), agentOnly)).toBe(false);
  });
});
