import { errors } from '@elastic/elasticsearch';
import { describe, expect, it } from 'vitest';

import { classifyFailure } from '../src/execute/failure.js';

const meta = (
  statusCode: number,
  body: unknown,
): ConstructorParameters<typeof errors.ResponseError>[0] =>
  ({
    body,
    statusCode,
    headers: {},
    warnings: null,
    meta: {
      context: null,
      name: 'x',
      request: {
        params: {
          method: 'GET',
          path: '/',
          headers: { authorization: 'Basic Y2FuYXJ5OnNlY3JldA==' },
        },
        options: {},
        id: 1,
      },
      connection: null,
      attempts: 0,
      aborted: false,
    },
  }) as unknown as ConstructorParameters<typeof errors.ResponseError>[0];

const response = (status: number, type = 'some_exception'): errors.ResponseError =>
  new errors.ResponseError(
    meta(status, { error: { type, reason: 'internal detail: shard [3] on node-7' }, status }),
  );

describe('classify failure', () => {
  it.each([
    [
      response(400, 'parsing_exception'),
      'read',
      'UPSTREAM_REJECTED',
      false,
      'Elasticsearch rejected the request for es_orders (400 parsing_exception).',
    ],
    [
      response(401),
      'read',
      'CREDENTIAL_UNAVAILABLE',
      false,
      'Elasticsearch refused the configured credential for es_orders (401).',
    ],
    [
      response(404, 'index_not_found_exception'),
      'read',
      'NOT_FOUND',
      false,
      'The index behind es_orders does not exist.',
    ],
    [
      response(409),
      'write',
      'VERSION_CONFLICT',
      false,
      'The document in es_orders changed concurrently; read it again before writing.',
    ],
    [
      response(429),
      'read',
      'UPSTREAM_UNAVAILABLE',
      true,
      'Elasticsearch is overloaded or unavailable for es_orders (429).',
    ],
    [
      response(503),
      'read',
      'UPSTREAM_UNAVAILABLE',
      true,
      'Elasticsearch is overloaded or unavailable for es_orders (503).',
    ],
    [
      response(504),
      'read',
      'UPSTREAM_UNAVAILABLE',
      true,
      'Elasticsearch answered 504 for es_orders.',
    ],
    [
      response(504),
      'write',
      'WRITE_OUTCOME_UNKNOWN',
      false,
      expect.stringContaining('may or may not have been applied') as unknown as string,
    ],
    [
      response(500),
      'read',
      'UPSTREAM_BAD_RESPONSE',
      false,
      'Elasticsearch failed the request for es_orders (500).',
    ],
    [
      new errors.TimeoutError('Request timed out'),
      'read',
      'UPSTREAM_TIMEOUT',
      true,
      'Elasticsearch did not answer in time for es_orders.',
    ],
    [
      new errors.TimeoutError('Request timed out'),
      'write',
      'WRITE_OUTCOME_UNKNOWN',
      false,
      expect.stringContaining('did not answer in time') as unknown as string,
    ],
    [
      new errors.ConnectionError('connect ECONNREFUSED 127.0.0.1:1'),
      'read',
      'UPSTREAM_UNAVAILABLE',
      true,
      'Elasticsearch is unreachable for es_orders (ECONNREFUSED).',
    ],
    [
      new errors.ConnectionError('connect ECONNREFUSED 127.0.0.1:1'),
      'write',
      'UPSTREAM_UNAVAILABLE',
      true,
      'Elasticsearch is unreachable for es_orders (ECONNREFUSED).',
    ],
    [
      new errors.ConnectionError('other side closed - Local: x, Remote: y'),
      'write',
      'WRITE_OUTCOME_UNKNOWN',
      false,
      expect.stringContaining('connection to Elasticsearch failed') as unknown as string,
    ],
    [
      new errors.DeserializationError('bad', '<html>'),
      'read',
      'UPSTREAM_BAD_RESPONSE',
      false,
      'Unexpected answer for es_orders: the response body was not valid JSON.',
    ],
    [
      new errors.ProductNotSupportedError('Elasticsearch'),
      'read',
      'UPSTREAM_BAD_RESPONSE',
      false,
      'Unexpected answer for es_orders: the endpoint did not identify itself as Elasticsearch.',
    ],
    [
      new TypeError('boom'),
      'read',
      'INTERNAL',
      false,
      'Calling Elasticsearch for es_orders failed unexpectedly.',
    ],
  ] as const)('failure - %s during %s maps to %s', (err, phase, code, retryable, message) => {
    const failure = classifyFailure(err, 'es_orders', phase, false);
    expect(failure).toMatchObject({ code, retryable, message });
    expect(JSON.stringify(failure)).not.toMatch(/Y2FuYXJ5|shard \[3\]|node-7/);
  });

  it('failure - an abort by the caller is a timeout, not retried', () => {
    expect(
      classifyFailure(new errors.RequestAbortedError('Request aborted'), 'es_orders', 'read', true),
    ).toMatchObject({
      code: 'UPSTREAM_TIMEOUT',
      retryable: false,
    });
    expect(
      classifyFailure(
        new errors.RequestAbortedError('Request aborted'),
        'es_orders',
        'write',
        true,
      ),
    ).toMatchObject({
      code: 'WRITE_OUTCOME_UNKNOWN',
    });
  });
});
