/**
 * One call, one trace, in a real backend: the SDK in this process, the executor and the audit
 * service as real child processes, all exporting over OTLP to Jaeger; the trace is read back from
 * Jaeger's query API. The arguments, the idempotency key and the credential are canaries that
 * must appear in no span of it — the Elasticsearch client's own spans used to carry the
 * document id of every request. The audit service's metrics go out over OTLP/HTTP (JSON) to a
 * receiver in this test, which reads them as a collector would.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { startTelemetry } from '@tollgate/kit';
import type { Telemetry } from '@tollgate/kit';
import { TollgateClient } from '@tollgate/sdk';
import { ordersResource, ordersTool, seedOrders } from '../fixtures/orders.js';
import { eventually, infra, uniqueName } from '../support/infra.js';
import { startAuthCallout } from '../support/bus.js';
import { startService } from '../support/process.js';
import type { RunningService } from '../support/process.js';
import {
  ES_URL,
  ORDERS_INDEX,
  startHarness,
} from '../../services/executor/test/support/harness.js';
import type { Harness } from '../../services/executor/test/support/harness.js';

// Ports of this file: 31400-31419.
const EXECUTOR_GRPC = '127.0.0.1:31401';
const AUDIT_GRPC = '127.0.0.1:31402';
const METRICS_PORT = 31403;

const canary = (what: string) => `CANARY-${what}-${randomBytes(10).toString('hex')}`;
const ID_CANARY = canary('id');
const VALUE_CANARY = canary('value');
const FILTER_CANARY = canary('filter');
const KEY_CANARY = canary('idem');
const SECRET_CANARY = canary('secret');
const CANARIES = [ID_CANARY, VALUE_CANARY, FILTER_CANARY, KEY_CANARY, SECRET_CANARY];

const run = uniqueName('trace').replaceAll('_', '-');
const SERVICES = { sdk: `${run}-sdk`, executor: `${run}-executor`, audit: `${run}-audit` };

/** The part of Jaeger's `GET /api/traces/<id>` answer this test reads. */
interface JaegerSpan {
  spanID: string;
  operationName: string;
  references: { refType: string; traceID: string; spanID: string }[];
  tags: { key: string; value: unknown }[];
  logs: { fields: { key: string; value: unknown }[] }[];
  processID: string;
}
interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string; tags: { key: string; value: unknown }[] }>;
}

const tool = (operation: string) => ordersTool(operation);

let h: Harness;
let telemetry: Telemetry;
let callout: Awaited<ReturnType<typeof startAuthCallout>>;
let executor: RunningService;
let audit: RunningService;
let support: TollgateClient;
let ops: TollgateClient;
let metricsReceiver: Server;
const metricBodies: string[] = [];
const files: string[] = [];

async function fetchTrace(traceId: string): Promise<JaegerTrace | undefined> {
  const res = await fetch(`${infra.jaeger.queryUrl}/api/traces/${traceId}`);
  if (res.status === 404) return undefined;
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: JaegerTrace[] }).data[0];
}

/** The trace once every service's part of it has arrived (exports are batched). */
/** The trace once it holds each of `operations` (a name given twice must be there twice). */
async function completeTrace(traceId: string, operations: string[]): Promise<JaegerTrace> {
  const wanted = (trace: JaegerTrace, op: string) =>
    trace.spans.filter((s) => s.operationName === op).length >=
    operations.filter((o) => o === op).length;
  return eventually(
    async () => {
      const trace = await fetchTrace(traceId);
      return trace && operations.every((op) => wanted(trace, op)) ? trace : undefined;
    },
    30_000,
    500,
  );
}

/** Every word a trace shows an operator: names, tags, log fields, process tags. */
const shown = (trace: JaegerTrace) => JSON.stringify([trace.spans, trace.processes]);

function serviceOf(trace: JaegerTrace, span: JaegerSpan): string {
  return trace.processes[span.processID]?.serviceName ?? '';
}

/** OTLP/HTTP JSON metrics, as the audit service exports them. */
function startMetricsReceiver(): Promise<void> {
  metricsReceiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/v1/metrics') metricBodies.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => metricsReceiver.listen(METRICS_PORT, '127.0.0.1', resolve));
}

/** A metric's data points across every export received so far. */
function points(name: string): Array<Record<string, unknown>> {
  const found: Array<Record<string, unknown>> = [];
  for (const body of metricBodies) {
    const doc = JSON.parse(body) as {
      resourceMetrics: {
        scopeMetrics: {
          metrics: {
            name: string;
            sum?: { dataPoints: Record<string, unknown>[] };
            histogram?: { dataPoints: Record<string, unknown>[] };
          }[];
        }[];
      }[];
    };
    for (const rm of doc.resourceMetrics)
      for (const sm of rm.scopeMetrics)
        for (const m of sm.metrics)
          if (m.name === name)
            found.push(...(m.sum?.dataPoints ?? []), ...(m.histogram?.dataPoints ?? []));
  }
  return found;
}

const otlp = (service: string) => ({
  OTEL_SERVICE_NAME: service,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${infra.jaeger.otlpHttpUrl}/v1/traces`,
  OTEL_BSP_SCHEDULE_DELAY: '200',
});

beforeAll(async () => {
  telemetry = startTelemetry({
    service: SERVICES.sdk,
    spanProcessors: [
      new SimpleSpanProcessor({
        exporter: new OTLPTraceExporter({ url: `${infra.jaeger.otlpHttpUrl}/v1/traces` }),
      }),
    ],
  });
  await startMetricsReceiver();
  h = await startHarness({ noExecutor: true });
  await seedOrders(h.es, ORDERS_INDEX);
  const orders = {
    descriptor: ordersResource({
      endpoint: ES_URL,
      index: ORDERS_INDEX,
      readonly: false,
      credentialRef: 'env://TRACE_ES_KEY',
    }),
    version: 1,
  };
  await h.publishResource(orders.descriptor, orders.version);
  await h.publishBundle([orders], 1);
  const issuersFile = join(tmpdir(), `trace-issuer-${process.pid}.json`);
  files.push(issuersFile);
  await writeFile(issuersFile, JSON.stringify(h.keys), { mode: 0o600 });
  callout = await startAuthCallout(h.nats.url, h.nats.credentialsDir, issuersFile);
  executor = startService('executor', {
    ...h.nats.env,
    ...otlp(SERVICES.executor),
    TOLLGATE_TRUSTED_ISSUERS_FILE: issuersFile,
    TOLLGATE_EXECUTOR_GRPC_ADDR: EXECUTOR_GRPC,
    TOLLGATE_CREDENTIAL_NAMESPACES: 'unrestricted',
    TOLLGATE_CURSOR_KEY: 'trace-test',
    TOLLGATE_EXECUTOR_ACCEPT_AFTER_MS: '0',
    // Security is off on the local node, so the key is sent and ignored: it only has to travel.
    TRACE_ES_KEY: SECRET_CANARY,
  });
  audit = startService('audit', {
    ...h.nats.env,
    ...otlp(SERVICES.audit),
    OTEL_METRICS_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `http://127.0.0.1:${METRICS_PORT}/v1/metrics`,
    OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
    OTEL_METRIC_EXPORT_INTERVAL: '500',
    TOLLGATE_TRUSTED_ISSUERS_FILE: issuersFile,
    TOLLGATE_AUDIT_GRPC_ADDR: AUDIT_GRPC,
    TOLLGATE_MONGO_URL: `${infra.mongoUrl}/${run.replaceAll('-', '_')}`,
  });
  await Promise.all([
    executor.waitForLog((line) => line['msg'] === 'ready', 90_000),
    audit.waitForLog((line) => line['msg'] === 'ready', 90_000),
  ]);
  support = await TollgateClient.connect({
    natsUrl: h.nats.url,
    token: await h.token('support_bot'),
    timeoutMs: 10_000,
  });
  ops = await TollgateClient.connect({
    natsUrl: h.nats.url,
    token: await h.token('ops_bot'),
    timeoutMs: 10_000,
  });
});
afterAll(async () => {
  await support?.close();
  await ops?.close();
  for (const service of [executor, audit]) {
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
  }
  await callout?.stop();
  await h?.es.delete({ index: ORDERS_INDEX, id: ID_CANARY }, { ignore: [404] });
  await h?.stop();
  await telemetry?.shutdown();
  await new Promise((resolve) => metricsReceiver?.close(resolve));
  for (const file of files) await rm(file, { force: true });
});

describe('e2e - one trace per call, read back from Jaeger', () => {
  let readTrace: JaegerTrace;
  let writeTrace: JaegerTrace;

  it('trace - a search is one trace: caller, executor stages, the upstream request, call.completed and its audit ingestion', async () => {
    const answer = await support.call(
      tool('search'),
      { filters: [{ field: 'id', op: 'eq', value: FILTER_CANARY }] },
      { timeoutMs: 8_000 },
    );
    expect(answer.status).toBe('ok');
    if (answer.status !== 'ok') return;
    const traceId = answer.meta?.traceId ?? '';
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    readTrace = await completeTrace(traceId, [
      'executor.call',
      'executor.decide',
      'executor.execute',
      'elasticsearch search',
      'publish call.started',
      'publish call.completed',
      // One for the write-ahead call.started, one for call.completed.
      'audit ingest',
      'audit ingest',
    ]);

    const byName = (name: string) => readTrace.spans.find((s) => s.operationName === name);
    const caller = readTrace.spans.find((s) => s.operationName.startsWith('tollgate request '));
    expect(caller && serviceOf(readTrace, caller)).toBe(SERVICES.sdk);
    for (const stage of ['executor.call', 'executor.decide', 'executor.validate']) {
      expect(serviceOf(readTrace, byName(stage)!)).toBe(SERVICES.executor);
    }
    const upstream = byName('elasticsearch search')!;
    expect(upstream.tags).toEqual(
      expect.arrayContaining([
        { key: 'db.system.name', type: 'string', value: 'elasticsearch' },
        { key: 'db.operation.name', type: 'string', value: 'search' },
        { key: 'db.response.status_code', type: 'string', value: '200' },
        { key: 'span.kind', type: 'string', value: 'client' },
      ]),
    );
    // The upstream request is a child of the execute stage, the ingestion of the publication.
    const parentOf = (span: JaegerSpan) =>
      readTrace.spans.find((s) => s.spanID === span.references[0]?.spanID);
    expect(parentOf(upstream)?.operationName).toBe('executor.execute');
    const ingests = readTrace.spans.filter((s) => s.operationName === 'audit ingest');
    for (const ingest of ingests) expect(serviceOf(readTrace, ingest)).toBe(SERVICES.audit);
    expect(ingests.map((ingest) => parentOf(ingest)?.operationName).sort()).toEqual([
      'publish call.completed',
      'publish call.started',
    ]);
    // One tree: every span but the caller's has its parent in this trace.
    for (const span of readTrace.spans) {
      if (span === caller) continue;
      expect(parentOf(span), `${span.operationName} has no parent in the trace`).toBeDefined();
    }
  });

  it('trace - a write with canary id, values and idempotency key leaves none of them in any span', async () => {
    const answer = await ops.call(
      tool('write'),
      { id: ID_CANARY, document: { status: VALUE_CANARY } },
      { timeoutMs: 8_000, idempotencyKey: KEY_CANARY },
    );
    expect(answer.status).toBe('ok');
    if (answer.status !== 'ok') return;
    // The write reached Elasticsearch with those values, so the spans had them to leak.
    const stored = await h.es.get({ index: ORDERS_INDEX, id: ID_CANARY });
    expect(stored._source).toMatchObject({ status: VALUE_CANARY });
    writeTrace = await completeTrace(answer.meta?.traceId ?? '', [
      'executor.idempotency',
      'executor.credential',
      'elasticsearch write',
      'audit ingest',
    ]);
    for (const trace of [readTrace, writeTrace]) {
      const text = shown(trace);
      for (const value of CANARIES) expect(text).not.toContain(value);
    }
  });

  it('metrics - calls, latency, denials, argument failures and idempotency conflicts arrive over OTLP, without arguments', async () => {
    const invalid = await support.call(
      tool('search'),
      { filters: [{ field: 'internal_note', op: 'match', value: FILTER_CANARY }] },
      { timeoutMs: 8_000 },
    );
    expect(invalid).toMatchObject({ status: 'error', error: { code: 'ARGUMENTS_INVALID' } });
    const conflict = await ops.call(
      tool('write'),
      { id: ID_CANARY, document: { status: 'other' } },
      { timeoutMs: 8_000, idempotencyKey: KEY_CANARY },
    );
    expect(conflict).toMatchObject({ status: 'error', error: { code: 'IDEMPOTENCY_CONFLICT' } });
    const denied = await support.call(
      tool('write'),
      { id: ID_CANARY, document: { status: 'other' } },
      { timeoutMs: 8_000 },
    );
    expect(denied).toMatchObject({ status: 'error', error: { category: 'denied' } });

    const tools = (name: string) =>
      JSON.stringify(points(name).map((p) => p['attributes'])).match(/es_orders_\w+/g) ??
      ([] as string[]);
    await eventually(
      () =>
        tools('tollgate.audit.calls').includes('es_orders_search') &&
        tools('tollgate.audit.calls').includes('es_orders_write') &&
        tools('tollgate.audit.call.denials').includes('es_orders_write') &&
        tools('tollgate.audit.call.argument_failures').includes('es_orders_search') &&
        tools('tollgate.audit.call.idempotency_conflicts').includes('es_orders_write')
          ? true
          : undefined,
      20_000,
      250,
    );
    const latency = points('tollgate.audit.call.latency');
    expect(latency.some((p) => Number(p['count']) >= 1)).toBe(true);
    for (const value of CANARIES) expect(metricBodies.join('\n')).not.toContain(value);
  });
});
