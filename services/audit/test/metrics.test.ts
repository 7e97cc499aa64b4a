import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { HistogramMetricData, SumMetricData } from '@opentelemetry/sdk-metrics';
import { CallStatus } from '@tollgate/contracts/call/v1';
import { ErrorCode } from '@tollgate/contracts/common/v1';
import { describe, expect, it } from 'vitest';
import { GENESIS, linkRecords } from '../src/chain/chain.js';
import { draftRecord } from '../src/ingest/draft.js';
import { IngestMetrics } from '../src/ingest/metrics.js';
import { callCompleted, callDenied, toolsListed } from './support/events.js';

class CollectingReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

describe('metrics', () => {
  it('metrics - stored call records update the tollgate.audit counters and latency histogram', async () => {
    const reader = new CollectingReader();
    const provider = new MeterProvider({ readers: [reader] });
    const metrics = new IngestMetrics(provider.getMeter('tollgate.audit'));
    const events = [
      callCompleted({ latencyMs: 10, truncated: true }),
      callCompleted({ latencyMs: 30 }),
      callCompleted({
        status: CallStatus.ERROR,
        errorCode: ErrorCode.ARGUMENTS_INVALID,
        latencyMs: 2,
      }),
      callCompleted({
        status: CallStatus.ERROR,
        errorCode: ErrorCode.IDEMPOTENCY_CONFLICT,
        latencyMs: 4,
      }),
      callDenied(),
      toolsListed(),
    ];
    for (const doc of linkRecords(
      GENESIS,
      events.map((e) => draftRecord(e)),
      new Date(),
    )) {
      metrics.recordStored(doc);
    }
    metrics.duplicates(3);
    metrics.deadLettered();
    const { resourceMetrics } = await reader.collect();
    const all = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
    const sum = (name: string) =>
      (
        (all.find((m) => m.descriptor.name === name) as SumMetricData | undefined)?.dataPoints ?? []
      ).reduce((n, p) => n + p.value, 0);
    expect(sum('tollgate.audit.calls')).toBe(5);
    expect(sum('tollgate.audit.call.denials')).toBe(1);
    expect(sum('tollgate.audit.call.argument_failures')).toBe(1);
    expect(sum('tollgate.audit.call.idempotency_conflicts')).toBe(1);
    expect(sum('tollgate.audit.call.truncations')).toBe(1);
    expect(sum('tollgate.audit.records.stored')).toBe(6);
    expect(sum('tollgate.audit.records.duplicates')).toBe(3);
    expect(sum('tollgate.audit.dead_letters')).toBe(1);
    const latency = all.find(
      (m) => m.descriptor.name === 'tollgate.audit.call.latency',
    ) as HistogramMetricData;
    const points = latency.dataPoints;
    expect(points.reduce((n, p) => n + p.value.count, 0)).toBe(4);
    expect(points.reduce((n, p) => n + (p.value.sum ?? 0), 0)).toBe(46);
    expect(points[0]!.attributes).toMatchObject({
      tenant: 'team-a',
      tool: 'es_orders_search',
      agent: 'support_bot',
    });
    await provider.shutdown();
  });
});
