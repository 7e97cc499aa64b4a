import { create } from '@bufbuild/protobuf';
import { errors as natsErrors } from '@nats-io/transport-node';
import { RpcError, RpcStatus } from '@tollgate/contracts';
import {
  ErrorCategory as ProtoCategory,
  ErrorCode as ProtoCode,
  ErrorSchema,
} from '@tollgate/contracts/common/v1';
import { ErrorCodes } from '@tollgate/core';
import type { ErrorCode } from '@tollgate/core';
import { describe, expect, it } from 'vitest';
import {
  DeniedError,
  FixArgumentsError,
  InternalError,
  NeedsHumanError,
  RetryableError,
  isDenied,
  isFixArguments,
  isInternal,
  isNeedsHuman,
  isRetryable,
  toolCallError,
} from '../src/index.js';
import {
  errorFromHeader,
  errorFromProto,
  errorFromRpc,
  errorFromTransport,
} from '../src/wire-errors.js';

describe('errors - classes by category', () => {
  const classes = {
    fix_arguments: FixArgumentsError,
    retryable: RetryableError,
    denied: DeniedError,
    needs_human: NeedsHumanError,
    internal: InternalError,
  };
  const predicates = {
    fix_arguments: isFixArguments,
    retryable: isRetryable,
    denied: isDenied,
    needs_human: isNeedsHuman,
    internal: isInternal,
  };

  it.each(Object.entries(ErrorCodes) as Array<[ErrorCode, keyof typeof classes]>)(
    'errors - %s is a %s error and only that',
    (code, category) => {
      const err = toolCallError({ code, message: 'm' });
      expect(err).toBeInstanceOf(classes[category]);
      expect(err.category).toBe(category);
      for (const [name, predicate] of Object.entries(predicates))
        expect(predicate(err)).toBe(name === category);
    },
  );

  it('errors - predicates are false for anything that is not a ToolCallError', () => {
    expect(isRetryable(new Error('x'))).toBe(false);
    expect(isFixArguments({ category: 'fix_arguments' })).toBe(false);
  });
});

describe('errors - the tollgate-error header', () => {
  it('errors - JSON header becomes the category class with code, message and details', () => {
    const err = errorFromHeader(
      JSON.stringify({
        code: 'ARGUMENTS_INVALID',
        category: 'fix_arguments',
        message: 'bad op',
        details: [
          { path: '/filters/0/op', message: 'not allowed', expected: 'eq', found: 'gt' },
          { nope: 1 },
        ],
      }),
    );
    expect(err).toBeInstanceOf(FixArgumentsError);
    expect(err.toJSON()).toEqual({
      code: 'ARGUMENTS_INVALID',
      category: 'fix_arguments',
      message: 'bad op',
      details: [{ path: '/filters/0/op', message: 'not allowed', expected: 'eq', found: 'gt' }],
    });
  });

  it('errors - a bare code is understood', () => {
    const err = errorFromHeader('INTERNAL');
    expect(err).toBeInstanceOf(InternalError);
    expect(err.code).toBe('INTERNAL');
  });

  it('errors - a header that is neither JSON nor a code is an InternalError saying so', () => {
    const err = errorFromHeader('{oops');
    expect(err).toBeInstanceOf(InternalError);
    expect(err.message).toBe('the tollgate-error header is neither JSON nor an error code');
    expect(errorFromHeader('[1]').message).toBe('the tollgate-error header is not a JSON object');
  });

  it('errors - an unknown code from a newer server keeps the category it was sent with', () => {
    const err = errorFromHeader(
      JSON.stringify({ code: 'QUOTA_PAUSED', category: 'retryable', message: 'later' }),
    );
    expect(err).toBeInstanceOf(RetryableError);
    expect(err.code).toBe('INTERNAL');
    expect(err.message).toBe('later (code "QUOTA_PAUSED")');
  });
});

describe('errors - proto, transport and gRPC', () => {
  it('errors - a CallResult error maps enum names to stable codes and categories', () => {
    const err = errorFromProto(
      create(ErrorSchema, {
        code: ProtoCode.POLICY_DENIED,
        category: ProtoCategory.DENIED,
        message: 'rule support-read-orders does not allow write',
        details: [{ path: 'filters', message: 'm' }],
      }),
    );
    expect(err).toBeInstanceOf(DeniedError);
    expect(err.toJSON()).toEqual({
      code: 'POLICY_DENIED',
      category: 'denied',
      message: 'rule support-read-orders does not allow write',
      details: [{ path: 'filters', message: 'm' }],
    });
    expect(errorFromProto(undefined)).toBeInstanceOf(InternalError);
  });

  it('errors - an upstream business rejection is for a person, with the fields it names', () => {
    const err = errorFromProto(
      create(ErrorSchema, {
        code: ProtoCode.UPSTREAM_BUSINESS_REJECTION,
        category: ProtoCategory.NEEDS_HUMAN,
        message: 'The API of support_tickets refused the request on its own business rules (409)',
        details: [{ path: '/subject', message: 'already open' }],
      }),
    );
    expect(err).toBeInstanceOf(NeedsHumanError);
    expect(err.code).toBe('UPSTREAM_BUSINESS_REJECTION');
    expect(err.details).toEqual([{ path: '/subject', message: 'already open' }]);
    const rpc = new RpcError(RpcStatus.FAILED_PRECONDITION, 'no', {
      tollgateCode: 'UPSTREAM_BUSINESS_REJECTION',
      details: [],
    });
    expect(errorFromRpc(rpc, 'call')).toBeInstanceOf(NeedsHumanError);
  });

  it.each([
    ['no responders', new natsErrors.NoRespondersError('s'), 'SERVICE_UNAVAILABLE'],
    [
      'request error caused by no responders',
      new natsErrors.RequestError('x', { cause: new natsErrors.NoRespondersError('s') }),
      'SERVICE_UNAVAILABLE',
    ],
    ['timeout', new natsErrors.TimeoutError(), 'SERVICE_UNAVAILABLE'],
    ['closed connection', new natsErrors.ClosedConnectionError(), 'SERVICE_UNAVAILABLE'],
  ])('errors - NATS %s is retryable', (_name, cause, code) => {
    const err = errorFromTransport(cause, 'tollgate.v1.call.es.orders', 100);
    expect(err).toBeInstanceOf(RetryableError);
    expect(err.code).toBe(code);
    expect(err.cause).toBe(cause);
  });

  it('errors - on a call subject, silence names the executor, never the upstream', () => {
    const nobody = errorFromTransport(
      new natsErrors.NoRespondersError('s'),
      'tollgate.v1.call.elasticsearch.orders',
      100,
    );
    expect(nobody.message).toMatch(/^no Tollgate executor is running for tollgate\.v1\.call\./);
    expect(nobody.message).toContain('was not sent to the upstream');
    const silent = errorFromTransport(
      new natsErrors.TimeoutError(),
      'tollgate.v1.call.elasticsearch.orders',
      8_000,
    );
    expect(silent.message).toContain('executor did not answer');
    expect(silent.message).toContain('within 8000 ms');
    expect(silent.message).not.toMatch(/upstream/i);
    const listing = errorFromTransport(
      new natsErrors.NoRespondersError('s'),
      'tollgate.v1.svc.synthesizer.list_tools',
      100,
    );
    expect(listing.message).toBe(
      'no Tollgate service is answering on tollgate.v1.svc.synthesizer.list_tools',
    );
  });

  it('errors - gRPC failures keep the stable code from trailers, else derive one from the status', () => {
    const conflict = errorFromRpc(
      new RpcError(RpcStatus.ABORTED, 'stale', { tollgateCode: 'VERSION_CONFLICT' }),
      'PutSession',
    );
    expect(conflict).toMatchObject({
      code: 'VERSION_CONFLICT',
      category: 'fix_arguments',
      message: 'PutSession: stale',
    });
    expect(errorFromRpc(new RpcError(RpcStatus.UNAVAILABLE, 'down'), 'Draft')).toBeInstanceOf(
      RetryableError,
    );
    expect(errorFromRpc(new RpcError(RpcStatus.UNKNOWN, '?'), 'Draft')).toBeInstanceOf(
      InternalError,
    );
  });
});
