import { Metadata, status } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import {
  ERROR_DETAILS_KEY,
  fromServiceError,
  isRpcError,
  RpcError,
  toStatus,
} from '../src/grpc/errors.js';
import { readBearerToken, readTraceparent, toMetadata } from '../src/grpc/metadata.js';

function asServiceError(code: status, details: string, metadata: Metadata): ServiceError {
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), {
    code,
    details,
    metadata,
  });
}

describe('rpc errors', () => {
  it('rpc errors - code, message, tollgate code and details survive status + trailers', () => {
    const sent = new RpcError(status.FAILED_PRECONDITION, 'version conflict', {
      tollgateCode: 'VERSION_CONFLICT',
      details: [{ path: 'expected_version', message: 'is stale', expected: '4', found: '3' }],
    });
    const wire = toStatus(sent);
    const received = fromServiceError(asServiceError(wire.code!, wire.details!, wire.metadata!));
    expect(isRpcError(received)).toBe(true);
    expect(received.code).toBe(status.FAILED_PRECONDITION);
    expect(received.message).toBe('version conflict');
    expect(received.tollgateCode).toBe('VERSION_CONFLICT');
    expect(received.details).toEqual(sent.details);
  });

  it('rpc errors - no tollgate code or details means none on the client', () => {
    const wire = toStatus(new RpcError(status.NOT_FOUND, 'no such resource'));
    expect(wire.metadata?.getMap()).toEqual({});
    const received = fromServiceError(asServiceError(status.NOT_FOUND, 'x', wire.metadata!));
    expect(received.tollgateCode).toBeUndefined();
    expect(received.details).toEqual([]);
  });

  it('rpc errors - malformed details are dropped, not thrown', () => {
    for (const raw of [
      'not json',
      '{"path":"a"}',
      '[{"path":1,"message":"m"},{"path":"p","message":"m","found":2}]',
    ]) {
      const metadata = new Metadata();
      metadata.set(ERROR_DETAILS_KEY, Buffer.from(raw));
      const received = fromServiceError(asServiceError(status.INTERNAL, 'x', metadata));
      expect(received.details).toEqual(raw.startsWith('[') ? [{ path: 'p', message: 'm' }] : []);
    }
  });
});

describe('rpc metadata', () => {
  it('rpc metadata - bearer token and traceparent are read; malformed ones are ignored', () => {
    const good = toMetadata({
      authorization: 'Bearer abc.def.ghi',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    });
    expect(readBearerToken(good)).toBe('abc.def.ghi');
    expect(readTraceparent(good)).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    const bad = toMetadata({ authorization: 'Basic dXNlcjpwYXNz', traceparent: '00-xyz-01' });
    expect(readBearerToken(bad)).toBeUndefined();
    expect(readTraceparent(bad)).toBeUndefined();
    expect(readBearerToken(new Metadata())).toBeUndefined();
  });

  it('rpc metadata - later sources replace earlier values of the same key', () => {
    const base = new Metadata();
    base.set('authorization', 'Bearer old');
    base.set('x-tenant', 'team-a');
    const merged = toMetadata(base, { authorization: 'Bearer new' });
    expect(merged.get('authorization')).toEqual(['Bearer new']);
    expect(merged.get('x-tenant')).toEqual(['team-a']);
  });
});
