/**
 * Where one call's time goes over the wire, for the executor benchmark: the executor's own
 * per-stage milliseconds (its debug `call answered` lines) and, measured here on the same NATS
 * server, what the transport pieces under them cost — a core NATS round trip, a JetStream
 * publish acknowledgement, a KV write, protobuf encoding, a token signature check.
 */
import { create, fromBinary, fromJson, toBinary } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { CallRequestSchema, CallResultSchema, CallStatus } from '@tollgate/contracts/call/v1';
import type { TokenVerifier } from '@tollgate/core';

/** Median milliseconds per named piece. */
export type Breakdown = Record<string, number>;

const round = (ms: number) => Math.round(ms * 1000) / 1000;

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return round(sorted[Math.floor(sorted.length / 2)] ?? 0);
}

async function timeEach(runs: number, fn: () => Promise<unknown> | unknown): Promise<number> {
  for (let i = 0; i < Math.min(20, runs); i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return median(samples);
}

/** Medians of the executor's `stagesMs` over its `call answered` log lines. */
export function executorStages(lines: ReadonlyArray<Record<string, unknown>>): Breakdown {
  const byStage = new Map<string, number[]>();
  const totals: number[] = [];
  for (const line of lines) {
    if (line['msg'] !== 'call answered' || typeof line['stagesMs'] !== 'object') continue;
    totals.push(Number(line['ms']));
    for (const [stage, ms] of Object.entries(line['stagesMs'] as Record<string, number>)) {
      byStage.set(stage, [...(byStage.get(stage) ?? []), ms]);
    }
  }
  const out: Breakdown = { 'executor total (decode → encode)': median(totals) };
  for (const [stage, samples] of byStage) out[stage] = median(samples);
  return out;
}

/** Costs of the transport pieces a call uses, measured on `nc`'s server. */
export async function wireCosts(
  nc: NatsConnection,
  other: NatsConnection,
  verify: { verifier: TokenVerifier; token: string },
  runs: number,
): Promise<Breakdown> {
  const request = create(CallRequestSchema, {
    callId: crypto.randomUUID(),
    tool: 'es_orders_search',
    arguments: { filters: [{ field: 'id', op: 'eq', value: '12345' }] },
    toolVersion: 'v1',
    timeoutMs: 30_000,
  });
  const requestBytes = toBinary(CallRequestSchema, request);
  const result = create(CallResultSchema, {
    callId: request.callId,
    status: CallStatus.OK,
    data: fromJson(ValueSchema, {
      items: [{ id: '12345', status: 'shipped', amount: 42.5, currency: 'EUR' }],
    }),
  });
  const resultBytes = toBinary(CallResultSchema, result);
  const echo = other.subscribe('bench.echo');
  void (async () => {
    for await (const m of echo) m.respond(resultBytes);
  })();
  await other.flush();
  const jsm = await jetstreamManager(nc);
  const stream = `BENCH_STAGES_${Date.now().toString(36)}`;
  await jsm.streams.add({ name: stream, subjects: [`bench.stages.${stream}`] });
  const js = jetstream(nc);
  const event = new Uint8Array(1_500).fill(7);
  const kv = await new Kvm(nc).create(`bench_stages_${Date.now().toString(36)}`);
  let revision = await kv.put('counter', '0');
  try {
    return {
      'NATS request/reply round trip (same sizes)': await timeEach(runs, () =>
        nc.request('bench.echo', requestBytes, { timeout: 5_000 }),
      ),
      'JetStream publish + ack (1.5 KB event)': await timeEach(runs, () =>
        js.publish(`bench.stages.${stream}`, event),
      ),
      'KV update at revision (a rate-limit counter)': await timeEach(runs, async () => {
        revision = await kv.update('counter', String(revision), revision);
      }),
      'protobuf decode request + encode result': await timeEach(runs * 10, () => {
        fromBinary(CallRequestSchema, requestBytes);
        toBinary(CallResultSchema, result);
      }),
      'token signature check (uncached)': await timeEach(runs, () =>
        verify.verifier.verify(verify.token),
      ),
    };
  } finally {
    echo.unsubscribe();
    await jsm.streams.delete(stream);
    await kv.destroy();
  }
}
