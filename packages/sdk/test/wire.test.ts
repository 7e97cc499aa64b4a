import { create, fromJson, toBinary } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { CallResultSchema, CallStatus } from '@tollgate/contracts/call/v1';
import { EventEnvelopeSchema } from '@tollgate/contracts/events/v1';
import { ToolDefinitionSchema } from '@tollgate/contracts/tools/v1';
import { describe, expect, it } from 'vitest';
import { checkArguments } from '../src/arguments.js';
import { decodeCompletion } from '../src/completions.js';
import { readCallResult } from '../src/result.js';
import { readTokenClaims } from '../src/protocol.js';
import { readTool } from '../src/tools.js';
import { principalToken } from './support/fixtures.js';

describe('wire - CallResult', () => {
  it('wire - ok results carry JSON data and meta, optional parts only when set', () => {
    const read = readCallResult(
      create(CallResultSchema, {
        callId: 'c1',
        status: CallStatus.OK,
        data: fromJson(ValueSchema, [{ id: 'a' }]),
        meta: { resource: 'es_orders', returned: 1, truncated: true },
      }),
      'c1',
    );
    expect(read).toEqual({
      status: 'ok',
      callId: 'c1',
      data: [{ id: 'a' }],
      meta: {
        resource: 'es_orders',
        resourceVersion: 0,
        tool: '',
        toolVersion: '',
        latencyMs: 0,
        upstreamStatus: 0,
        returned: 1,
        truncated: true,
        bytes: 0,
        traceId: '',
      },
    });
  });

  it.each([
    [{ callId: 'other', status: CallStatus.OK }, 'the reply is for call other, not c1'],
    [{ status: CallStatus.ERROR }, 'call c1: status ERROR without an error'],
    [{ status: CallStatus.PENDING_APPROVAL }, 'call c1: PENDING_APPROVAL without approval_id'],
    [{ status: CallStatus.ACCEPTED }, 'call c1: ACCEPTED without task_id'],
    [{ status: CallStatus.UNSPECIFIED }, 'call c1: the reply has no status (got 0)'],
  ])('wire - a malformed CallResult is an InternalError: %j', (init, message) => {
    expect(() => readCallResult(create(CallResultSchema, init), 'c1')).toThrow(message);
  });
});

describe('wire - tools', () => {
  it('wire - a tool whose call subject is not tollgate.v1.call.<kind>.<resource> is refused', () => {
    const def = create(ToolDefinitionSchema, {
      name: 'es_orders_search',
      callSubject: 'tollgate.v1.call.>',
    });
    expect(() => readTool(def)).toThrow(
      'tool es_orders_search: call_subject "tollgate.v1.call.>" is not tollgate.v1.call.<kind>.<resource>',
    );
    const ok = readTool({ ...def, callSubject: 'tollgate.v1.call.elasticsearch.es_orders' });
    expect(ok.callSubject).toBe('tollgate.v1.call.elasticsearch.es_orders');
    expect(ok.savedQuery).toBeUndefined();
  });

  it('wire - a saved-query tool says which saved query and base tool it is', () => {
    const tool = readTool(
      create(ToolDefinitionSchema, {
        name: 'sq_order_by_id',
        callSubject: 'tollgate.v1.call.elasticsearch.es_orders',
        savedQuery: {
          id: 'cap-1',
          name: 'order_by_id',
          revision: 2,
          contentHash: 'h',
          baseTool: 'es_orders_search',
          baseVersion: 'v',
        },
      }),
    );
    expect(tool.savedQuery).toEqual({
      id: 'cap-1',
      name: 'order_by_id',
      revision: 2,
      baseTool: 'es_orders_search',
    });
  });
});

describe('wire - arguments', () => {
  it('wire - plain JSON objects pass', () => {
    expect(
      checkArguments({ filters: [{ field: 'id', op: 'eq', value: 'x' }], limit: null }),
    ).toEqual([]);
  });

  it('wire - every non-JSON part is reported with its JSON Pointer', () => {
    expect(
      checkArguments({ a: undefined, b: [1, Infinity], c: new Date(0), 'd/e': () => 1 }),
    ).toEqual([
      { path: '/a', message: 'not a JSON value', expected: 'JSON', found: 'undefined' },
      { path: '/b/1', message: 'not a finite number', found: 'Infinity' },
      { path: '/c', message: 'not a JSON value', expected: 'JSON', found: 'Date' },
      { path: '/d~1e', message: 'not a JSON value', expected: 'JSON', found: 'function' },
    ]);
    expect(checkArguments([1])).toEqual([
      { path: '', message: 'arguments must be a JSON object', expected: 'object', found: 'array' },
    ]);
  });
});

describe('wire - token claims', () => {
  it('wire - tenant, agent, environment and user come from the token payload', () => {
    expect(
      readTokenClaims(
        principalToken({ tenant: 'team-a', agent: 'bot', environment: 'staging', user: 'u1' }),
      ),
    ).toEqual({
      tenant: 'team-a',
      agent: 'bot',
      environment: 'staging',
      user: 'u1',
    });
    expect(readTokenClaims('abc')).toBeUndefined();
    expect(readTokenClaims('a.bm90IGpzb24.c')).toBeUndefined();
  });
});

describe('wire - completion events', () => {
  const envelope = (schemaVersion: number) =>
    toBinary(
      EventEnvelopeSchema,
      create(EventEnvelopeSchema, {
        eventId: 'e1',
        type: 'call.completed',
        tenant: 'team-a',
        schemaVersion,
        payload: {
          case: 'callCompleted',
          value: {
            callId: 'c1',
            status: CallStatus.OK,
            approvalId: 'a1',
            principal: { tenant: 'team-a', agent: 'bot', environment: 'prod' },
          },
        },
      }),
    );

  it('wire - a call.completed envelope decodes to a CompletionEvent', () => {
    expect(decodeCompletion(envelope(1))).toMatchObject({
      eventId: 'e1',
      callId: 'c1',
      status: 'ok',
      approvalId: 'a1',
      principal: { tenant: 'team-a', agent: 'bot', user: '', environment: 'prod' },
    });
  });

  it('wire - a saved-query call says which saved query it went through', () => {
    const bytes = toBinary(
      EventEnvelopeSchema,
      create(EventEnvelopeSchema, {
        eventId: 'e2',
        type: 'call.completed',
        tenant: 'team-a',
        schemaVersion: 1,
        payload: {
          case: 'callCompleted',
          value: {
            callId: 'c2',
            status: CallStatus.OK,
            tool: 'es_orders_search',
            savedQuery: { id: 'cap-1', name: 'open_orders', revision: 2, tool: 'sq_open_orders' },
            meta: { tool: 'sq_open_orders', defaultFields: ['id', 'status'] },
          },
        },
      }),
    );
    expect(decodeCompletion(bytes)).toMatchObject({
      tool: 'es_orders_search',
      savedQuery: { id: 'cap-1', name: 'open_orders', revision: 2, tool: 'sq_open_orders' },
      meta: { tool: 'sq_open_orders', defaultFields: ['id', 'status'] },
    });
    expect(decodeCompletion(envelope(1))?.savedQuery).toBeUndefined();
    expect(decodeCompletion(envelope(1))?.meta).toBeUndefined();
  });

  it('wire - unknown schema versions and undecodable bytes are skipped', () => {
    expect(decodeCompletion(envelope(2))).toBeUndefined();
    expect(decodeCompletion(new Uint8Array([0xff, 0xff, 0xff]))).toBeUndefined();
  });
});
