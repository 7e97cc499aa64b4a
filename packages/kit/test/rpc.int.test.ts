import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { TollgateError } from '@tollgate/core';
import { ERROR_HEADER, createLogger, request, serve } from '../src/index.js';
import { connectTestBus } from '../../../test/support/bus.js';

const natsUrl =
  process.env.TOLLGATE_NATS_URL ?? `nats://127.0.0.1:${process.env.TOLLGATE_NATS_PORT ?? 4222}`;
const logger = createLogger({ service: 'test', level: 'silent' });
let nc: NatsConnection;

beforeAll(async () => {
  nc = await connectTestBus({ url: natsUrl, name: 'rpc-test' });
});
afterAll(async () => {
  await nc?.drain();
});

describe('bus - request/reply errors', () => {
  it('rpc - a thrown TollgateError travels as the tollgate-error header; anything else as a generic INTERNAL', async () => {
    const subject = `test.rpc.${Date.now()}`;
    const sub = serve(
      nc,
      subject,
      async (msg) => {
        const kind = new TextDecoder().decode(msg.data);
        if (kind === 'domain') {
          throw new TollgateError('ARGUMENTS_INVALID', 'bad limit', {
            details: [{ path: 'limit', message: 'too big' }],
          });
        }
        throw new Error('db password=hunter2 leaked');
      },
      { logger },
    );
    const domain = await request(nc, subject, new TextEncoder().encode('domain'), {
      timeoutMs: 2_000,
    });
    expect(JSON.parse(domain.headers!.get(ERROR_HEADER))).toEqual({
      code: 'ARGUMENTS_INVALID',
      category: 'fix_arguments',
      message: 'bad limit',
      details: [{ path: 'limit', message: 'too big' }],
    });
    const other = await request(nc, subject, new TextEncoder().encode('other'), {
      timeoutMs: 2_000,
    });
    const wire = other.headers!.get(ERROR_HEADER);
    expect(JSON.parse(wire)).toEqual({
      code: 'INTERNAL',
      category: 'internal',
      message: 'internal error',
      details: [],
    });
    expect(wire).not.toContain('hunter2');
    sub.unsubscribe();
  });
});
