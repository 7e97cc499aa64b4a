/**
 * What an upstream request shows in a trace. The Elasticsearch client traces every request
 * itself, with each path parameter — a document id, the index — as an attribute; a document id
 * is an argument. Its spans must not exist, and the connector's own span of each attempt must
 * name the operation, the server and the status, never a value of the call.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { elasticsearchConnector as es } from '@tollgate/connector-elasticsearch';
import { parseCredentialSecret } from '@tollgate/core';
import type { CompileContext, Operation } from '@tollgate/core';
import { inSpan, startTelemetry } from '@tollgate/kit';
import type { Telemetry } from '@tollgate/kit';
import { ordersResource, ORDERS_MAPPING } from '../fixtures/orders.js';
import { infra, uniqueName } from '../support/infra.js';
import { Client } from '@elastic/elasticsearch';
import { fullPermissions } from '../../packages/connectors/elasticsearch/test/fixtures.js';

const canary = (what: string) => `CANARY-${what}-${randomBytes(10).toString('hex')}`;
const ID = canary('id').toLowerCase();
const VALUE = canary('value');
const FILTER = canary('filter');
const SECRET = canary('secret');
const index = uniqueName('tg_spans');
const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter });
const admin = new Client({ node: infra.esUrl });
let telemetry: Telemetry;

const descriptor = ordersResource({
  endpoint: infra.esUrl,
  index,
  readonly: false,
  credentialRef: 'env://SPANS_ES_KEY',
});

async function run(operation: Operation, args: unknown): Promise<void> {
  const ctx: CompileContext = {
    descriptor,
    permissions: fullPermissions(descriptor),
    principal: { tenant: 'team-a', agent: 'ops_bot' },
    cursorKey: 'spans-test',
  };
  const request = es.compile(operation, args, ctx);
  await inSpan('executor.execute', () =>
    es.execute(request, {
      descriptor,
      // Security is off on the local node: the key is sent and ignored, it only has to travel.
      credentials: async () => parseCredentialSecret(SECRET),
    }),
  );
}

const shown = (span: ReadableSpan) =>
  JSON.stringify([span.name, span.attributes, span.events, span.status, span.links]);

beforeAll(async () => {
  telemetry = startTelemetry({ service: 'upstream-spans', spanProcessors: [processor] });
  await admin.indices.create({ index, mappings: ORDERS_MAPPING as never });
});
afterAll(async () => {
  await admin.indices.delete({ index }, { ignore: [404] });
  await admin.close();
  await telemetry?.shutdown();
});

describe('security - upstream spans', () => {
  it('spans - a write and a search are each one client span of operation, server and status, and no value of the call is in any span', async () => {
    exporter.reset();
    await run('write', { id: ID, document: { status: VALUE } });
    await run('search', { filters: [{ field: 'id', op: 'eq', value: FILTER }] });
    await processor.forceFlush();
    const stored = await admin.get({ index, id: ID });
    expect(stored._source).toMatchObject({ status: VALUE });

    const spans = exporter.getFinishedSpans();
    expect(spans.filter((s) => s.instrumentationScope.name === '@elastic/transport')).toEqual([]);
    const upstream = spans.filter((s) => s.name.startsWith('elasticsearch '));
    expect(upstream.map((s) => s.name)).toEqual(['elasticsearch write', 'elasticsearch search']);
    const port = Number(new URL(infra.esUrl).port);
    for (const span of upstream) {
      expect(span.kind).toBe(2); // CLIENT
      expect(span.attributes).toEqual({
        'db.system.name': 'elasticsearch',
        'db.operation.name': span.name.slice('elasticsearch '.length),
        'server.address': new URL(infra.esUrl).hostname,
        'server.port': port,
        'db.response.status_code': expect.stringMatching(/^2\d\d$/),
      });
      expect(span.parentSpanContext?.spanId).toBeDefined();
    }
    for (const span of spans)
      for (const value of [ID, VALUE, FILTER, SECRET, index])
        expect(shown(span)).not.toContain(value);
  });

  it('spans - a failed upstream attempt records the status and error type, not the message', async () => {
    exporter.reset();
    // A document in another tenant's scope: the guarded write is refused by Elasticsearch's
    // answer, which names the document id in its message.
    await admin.index({ index, id: `${ID}-b`, document: { tenant_id: 'team-b' }, refresh: true });
    await expect(
      run('write', { id: `${ID}-b`, document: { status: VALUE } }),
    ).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    await processor.forceFlush();
    const attempt = exporter.getFinishedSpans().find((s) => s.name === 'elasticsearch write');
    expect(attempt?.attributes['error.type']).toBeDefined();
    for (const span of exporter.getFinishedSpans())
      for (const value of [ID, VALUE, SECRET]) expect(shown(span)).not.toContain(value);
  });
});
