import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { TollgateError } from '@tollgate/core';
import { inSpan, startTelemetry } from '../src/index.js';
import {
  incomingRequestAttributes,
  outgoingRequestAttributes,
  redactQuery,
} from '../src/telemetry/redaction.js';
import type { Telemetry } from '../src/index.js';

const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter });
const PATH_CANARY = `doc-${crypto.randomUUID()}`;
const QUERY_CANARY = `code-${crypto.randomUUID()}`;
let telemetry: Telemetry;

/** Everything a span carries that a trace backend would show: attributes and event fields. */
const shown = (span: ReadableSpan) =>
  JSON.stringify([span.name, span.attributes, span.events, span.status]);

beforeAll(async () => {
  telemetry = startTelemetry({ service: 'kit-telemetry', spanProcessors: [processor] });
});
afterAll(async () => {
  await telemetry?.shutdown();
});

describe('telemetry - what spans may say', () => {
  it('telemetry - an outgoing HTTP request is shown by its origin only: path and query are arguments', () => {
    expect(
      outgoingRequestAttributes({
        protocol: 'https:',
        hostname: 'api.example.com',
        port: 8443,
        path: `/orders/${PATH_CANARY}?code=${QUERY_CANARY}`,
      }),
    ).toEqual({ 'url.full': 'https://api.example.com:8443' });
    expect(outgoingRequestAttributes({ host: 'api.example.com', path: '/x' })).toEqual({
      'url.full': 'http://api.example.com',
    });
  });

  it('telemetry - an incoming request keeps its query parameter names and loses every value', () => {
    const incoming = (url: string) => ({ url }) as IncomingMessage;
    expect(
      incomingRequestAttributes(incoming(`/callback?code=${QUERY_CANARY}&state=s&code=again`)),
    ).toEqual({ 'url.query': 'code=REDACTED&state=REDACTED&code=REDACTED' });
    expect(incomingRequestAttributes(incoming('/mcp'))).toEqual({});
    expect(redactQuery(`a%20b=${QUERY_CANARY}&=x`)).toBe('a%20b=REDACTED&=REDACTED');
  });

  it('telemetry - a failed span records the error name and code and where it was thrown, never its message', async () => {
    exporter.reset();
    const canary = `value-${crypto.randomUUID()}`;
    await expect(
      inSpan('stage', async () => {
        throw new TollgateError('ARGUMENTS_INVALID', `filters[0].value: "${canary}" is not a date`);
      }),
    ).rejects.toThrow(canary);
    await inSpan('plain', async () => {
      throw new Error(`upstream said ${canary}`);
    }).catch(() => undefined);
    await processor.forceFlush();
    const [stage, plain] = exporter.getFinishedSpans();
    expect(stage?.events[0]?.attributes).toMatchObject({
      'exception.type': 'TollgateError',
      'exception.message': 'ARGUMENTS_INVALID',
    });
    expect(String(stage?.events[0]?.attributes?.['exception.stacktrace'])).toMatch(/^\s+at /);
    expect(plain?.events[0]?.attributes).toMatchObject({
      'exception.type': 'Error',
      'exception.message': 'Error',
    });
    for (const span of [stage!, plain!]) expect(shown(span)).not.toContain(canary);
  });
});
