import { create, fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import {
  CallRequestSchema,
  CallResultSchema,
  CallStatus,
} from '../src/gen/tollgate/call/v1/index.js';
import { ErrorCategory, ErrorCode } from '../src/gen/tollgate/common/v1/index.js';

const request = create(CallRequestSchema, {
  callId: '0b6f4c1e-3a77-4b1e-9d8f-2f6f1c3b9a10',
  tool: 'es_orders_search',
  arguments: {
    filters: [
      { field: 'user_id', op: 'eq', value: 'u-42' },
      { field: 'amount', op: 'between', value: [10, 99.5] },
    ],
    fields: ['id', 'amount'],
    limit: 20,
    cursor: null,
  },
  sessionId: 'sess-1',
  idempotencyKey: 'key-1',
  timeoutMs: 2500,
  toolVersion: 'sha256:abc',
});

const okResult = create(CallResultSchema, {
  callId: request.callId,
  status: CallStatus.OK,
  // Value fields are messages in protobuf-es (only Struct fields are plain JSON objects).
  data: fromJson(ValueSchema, {
    items: [{ id: 'o-1', amount: 12.5, paid: true, note: null }],
    empty: [],
  }),
  meta: {
    resource: 'es_orders',
    resourceVersion: 3,
    tool: 'es_orders_search',
    toolVersion: 'sha256:abc',
    latencyMs: 17,
    upstreamStatus: 200,
    returned: 1,
    total: 0,
    truncated: false,
    bytes: 64,
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    nextCursor: 'c2VhcmNoX2FmdGVy',
  },
});

const errorResult = create(CallResultSchema, {
  callId: request.callId,
  status: CallStatus.ERROR,
  error: {
    code: ErrorCode.ARGUMENTS_INVALID,
    category: ErrorCategory.FIX_ARGUMENTS,
    message: 'arguments do not match the tool schema',
    details: [{ path: '/limit', message: 'must be <= 100', expected: '<= 100', found: '500' }],
  },
});

describe('call envelope', () => {
  it('call - CallRequest round-trips through binary', () => {
    const decoded = fromBinary(CallRequestSchema, toBinary(CallRequestSchema, request));
    expect(decoded).toEqual(request);
    expect(decoded.arguments).toEqual(request.arguments);
  });

  it('call - CallRequest round-trips through JSON with proto field names in camelCase', () => {
    const json = toJson(CallRequestSchema, request);
    expect(json).toMatchObject({
      callId: request.callId,
      timeoutMs: 2500,
      toolVersion: 'sha256:abc',
    });
    expect(fromJson(CallRequestSchema, json)).toEqual(request);
  });

  it('call - CallResult with data and meta round-trips through binary and JSON', () => {
    expect(fromBinary(CallResultSchema, toBinary(CallResultSchema, okResult))).toEqual(okResult);
    const json = toJson(CallResultSchema, okResult);
    expect(json).toMatchObject({
      status: 'CALL_STATUS_OK',
      data: { items: [{ id: 'o-1', note: null }], empty: [] },
      meta: { total: 0, resourceVersion: 3 },
    });
    expect(fromJson(CallResultSchema, json)).toEqual(okResult);
  });

  it('call - an explicit total of 0 stays distinguishable from an unknown total', () => {
    const unknownTotal = create(CallResultSchema, { meta: { returned: 1 } });
    const decoded = fromBinary(CallResultSchema, toBinary(CallResultSchema, unknownTotal));
    expect(decoded.meta?.total).toBeUndefined();
    expect(fromBinary(CallResultSchema, toBinary(CallResultSchema, okResult)).meta?.total).toBe(0);
  });

  it('call - CallResult error with details round-trips and encodes enums by name in JSON', () => {
    expect(fromBinary(CallResultSchema, toBinary(CallResultSchema, errorResult))).toEqual(
      errorResult,
    );
    const json = toJson(CallResultSchema, errorResult);
    expect(json).toMatchObject({
      status: 'CALL_STATUS_ERROR',
      error: {
        code: 'ERROR_CODE_ARGUMENTS_INVALID',
        category: 'ERROR_CATEGORY_FIX_ARGUMENTS',
        details: [{ path: '/limit', expected: '<= 100', found: '500' }],
      },
    });
    expect(fromJson(CallResultSchema, json)).toEqual(errorResult);
  });

  it('call - fromJson rejects unknown fields in a request', () => {
    expect(() => fromJson(CallRequestSchema, { tool: 'x', principal: { tenant: 't' } })).toThrow(
      /principal/,
    );
  });
});
