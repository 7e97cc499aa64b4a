import { describe, expect, it } from 'vitest';
import { create } from '@bufbuild/protobuf';
import { ApprovalSchema, ApprovalStatus } from '@tollgate/contracts/policy/v1';
import { TokenVerifier, generateIssuerKeys, issuePrincipalToken } from '@tollgate/core';
import type { PublishedResource } from '@tollgate/core';
import { Authenticator } from '../src/index.js';
import { approvalObstacle, approvedResource, bindingOf } from '../src/pipeline/approval.js';
import type { ParkedCall } from '../src/state/parked-calls.js';
import { readParked } from '../src/state/parked-calls.js';

function parked(): ParkedCall {
  const call = {
    principal: { tenant: 'team-a', agent: 'clerk_bot', environment: 'prod' },
    resource: { name: 'es_orders', version: 3, kind: 'elasticsearch' },
    tool: { name: 'es_orders_write', version: 'v' },
    args: { id: 'o-1', document: { status: 'refunded' } },
  };
  return {
    ...call,
    callId: 'c-1',
    approvalId: 'a-1',
    sessionId: 's',
    operation: 'write',
    bindingHash: bindingOf(call),
    idempotencyKey: 'k',
    policyIds: ['p'],
    requestedAt: 1_000,
    expiresAt: 10_000,
    budgetMs: 5_000,
  };
}

const decision = (status: ApprovalStatus, change: Record<string, unknown> = {}) =>
  create(ApprovalSchema, {
    id: 'a-1',
    status,
    principal: { tenant: 'team-a', agent: 'clerk_bot' },
    argumentsHash: parked().bindingHash,
    ...change,
  });

describe('approval - a decision may run only the call it was made for', () => {
  it('approval - an approval of the parked binding, in time, may run', () => {
    expect(approvalObstacle(parked(), decision(ApprovalStatus.APPROVED), 5_000)).toBeUndefined();
  });

  it.each([
    [
      'another approval id',
      decision(ApprovalStatus.APPROVED, { id: 'a-2' }),
      5_000,
      'APPROVAL_REJECTED',
    ],
    [
      'another tenant',
      decision(ApprovalStatus.APPROVED, { principal: { tenant: 'team-b' } }),
      5_000,
      'APPROVAL_REJECTED',
    ],
    ['a rejection', decision(ApprovalStatus.REJECTED), 5_000, 'APPROVAL_REJECTED'],
    ['an expiry', decision(ApprovalStatus.EXPIRED), 5_000, 'APPROVAL_EXPIRED'],
    ['an approval after the expiry', decision(ApprovalStatus.APPROVED), 10_000, 'APPROVAL_EXPIRED'],
    [
      'other arguments',
      decision(ApprovalStatus.APPROVED, { argumentsHash: 'sha256:00' }),
      5_000,
      'APPROVAL_REJECTED',
    ],
  ] as const)('approval - %s does not run the call', (_what, approval, now, code) => {
    expect(approvalObstacle(parked(), approval, now)?.code).toBe(code);
  });

  it('approval - a parked call whose arguments were altered in storage no longer matches its hash', () => {
    const altered = { ...parked(), args: { id: 'o-1', document: { status: 'paid' } } };
    expect(approvalObstacle(altered, decision(ApprovalStatus.APPROVED), 5_000)?.code).toBe(
      'APPROVAL_REJECTED',
    );
  });

  it('approval - the approved resource version must still be current', () => {
    const current = (version: number) =>
      ({
        version,
        descriptor: { spec: { type: 'elasticsearch' } },
      }) as unknown as PublishedResource;
    expect(approvedResource(parked(), current(3)).version).toBe(3);
    expect(() => approvedResource(parked(), current(4))).toThrow(
      /changed after the call was approved \(v3 → v4\)/,
    );
    expect(() => approvedResource(parked(), undefined)).toThrow(/no longer available/);
  });

  it('approval - stored parked calls are read back strictly', () => {
    const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
    expect(readParked(bytes(parked()))).toEqual(parked());
    expect(readParked(bytes({ ...parked(), operation: 'Drop index' }))).toBeUndefined();
    expect(readParked(bytes({ ...parked(), operation: 'view_field' }))).toBeUndefined();
    expect(readParked(bytes({ ...parked(), operationClass: 'delete' }))).toBeUndefined();
    expect(readParked(bytes({ ...parked(), operationClass: 'destructive' }))).toEqual({
      ...parked(),
      operationClass: 'destructive',
    });
    expect(readParked(bytes({ ...parked(), principal: { tenant: 'team-a' } }))).toBeUndefined();
    expect(readParked(new TextEncoder().encode('not json'))).toBeUndefined();
    const savedQuery = {
      id: 'cap-1',
      name: 'refund_order',
      revision: 2,
      contentHash: 'h',
      tool: 'sq_refund_order',
      toolVersion: 'v-sq',
      baseTool: 'es_orders_write',
    };
    expect(readParked(bytes({ ...parked(), savedQuery }))).toEqual({ ...parked(), savedQuery });
    expect(
      readParked(bytes({ ...parked(), savedQuery: { ...savedQuery, revision: '2' } })),
    ).toBeUndefined();
  });
});

describe('authenticate - the principal comes from a verified token only', () => {
  it('authenticate - a verified token is remembered until it expires, then verified again', async () => {
    const keys = await generateIssuerKeys('test');
    const verifier = await TokenVerifier.create([{ issuer: keys.issuer, keys: [keys.publicJwk] }]);
    let now = Date.now();
    let verified = 0;
    const counting = {
      verify: (t: string) => (verified++, verifier.verify(t)),
    } as unknown as TokenVerifier;
    const auth = new Authenticator(counting, { clock: () => now });
    const token = await issuePrincipalToken(
      keys,
      { tenant: 'team-a', agent: 'bot', environment: 'prod' },
      { ttlSeconds: 30 },
    );
    expect(await auth.authenticate(`Bearer ${token}`)).toMatchObject({
      tenant: 'team-a',
      agent: 'bot',
    });
    await auth.authenticate(`bearer ${token}`);
    expect(verified).toBe(1);
    // Past the token's expiry the signature and claims are checked again.
    now += 31_000;
    await auth.authenticate(`Bearer ${token}`);
    expect(verified).toBe(2);
  });

  it('authenticate - anything but a bearer token is refused without verifying', async () => {
    const auth = new Authenticator({
      verify: () => {
        throw new Error('not called');
      },
    } as unknown as TokenVerifier);
    await expect(auth.authenticate(undefined)).rejects.toThrow(
      'Not authenticated: no principal token was presented.',
    );
    await expect(auth.authenticate('Basic abc')).rejects.toThrow(
      'Not authenticated: the authorization header is not "Bearer <token>".',
    );
  });
});
