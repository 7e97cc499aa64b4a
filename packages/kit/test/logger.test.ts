import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/index.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      cb();
    },
  });
  return { lines, stream };
}

describe('logger', () => {
  it('logger - every line carries service, trace_id and span_id', () => {
    const { lines, stream } = capture();
    createLogger({ service: 'registry', destination: stream }).info(
      { resource: 'es_orders' },
      'applied',
    );
    expect(lines[0]).toMatchObject({
      service: 'registry',
      level: 'info',
      msg: 'applied',
      resource: 'es_orders',
    });
    expect(lines[0]).toHaveProperty('trace_id');
    expect(lines[0]).toHaveProperty('span_id');
  });

  it('logger - credentials and tokens are redacted at any depth listed', () => {
    const { lines, stream } = capture();
    const canary = 'canary-secret-7f3a9';
    createLogger({ service: 'executor', destination: stream }).info(
      {
        password: canary,
        token: canary,
        headers: { authorization: `Bearer ${canary}` },
        upstream: { credentials: canary, apiKey: canary },
        call: { args: { token: canary } },
      },
      'call',
    );
    expect(JSON.stringify(lines)).not.toContain(canary);
    expect(lines[0]).toMatchObject({
      password: '[redacted]',
      headers: { authorization: '[redacted]' },
    });
  });
});
