import { create } from '@bufbuild/protobuf';
import { jetstream } from '@nats-io/jetstream';
import { QueryRequestSchema, VerifyRequestSchema } from '@tollgate/contracts/audit/v1';
import { CallStatus } from '@tollgate/contracts/call/v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { currentTraceId, inSpan, startTelemetry } from '@tollgate/kit';
import type { Telemetry } from '@tollgate/kit';
import { GENESIS, linkRecords, recordHash } from '../src/chain/chain.js';
import { draftRecord } from '../src/ingest/draft.js';
import { collections } from '../src/store.js';
import type { AuditDocument } from '../src/record.js';
import { callCompleted, toolsListed, tweak, onStream } from './support/events.js';
import { startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';
import { publishAll } from './support/publish.js';
import { eventually, uniqueName } from './support/servers.js';

const CANARY = 'sk-ant-api03-CANARY0123456789abcdefghijklmnop';

let h: Harness;
const spans = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter: spans });
let telemetry: Telemetry;

beforeAll(async () => {
  telemetry = startTelemetry({ service: 'audit-test', spanProcessors: [processor] });
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
  await telemetry?.shutdown();
});

const records = () => h.mongo.db.collection<AuditDocument>(collections.records);
const countOf = (tenant: string) => records().countDocuments({ tenant });
const verify = (tenant: string) => h.trail.verify(tenant, create(VerifyRequestSchema, {}));

describe('audit ingest', () => {
  it("ingest - each event's ingestion is a consumer span in the publisher's trace, without the event's content", async () => {
    const tenant = uniqueName('tr').replace(/_/g, '-');
    const event = callCompleted({ tenant, callId: 'traced-1' });
    const traceId = await inSpan('agent call', async () => {
      await publishAll(h.nc, [event]);
      return currentTraceId();
    });
    await eventually(async () => ((await countOf(tenant)) === 1 ? true : undefined));
    const ingest = await eventually(async () => {
      await processor.forceFlush();
      return spans
        .getFinishedSpans()
        .find((s) => s.name === 'audit ingest' && s.spanContext().traceId === traceId);
    });
    const publish = spans
      .getFinishedSpans()
      .find((s) => s.name.startsWith('publish ') && s.spanContext().traceId === traceId);
    expect(ingest.kind).toBe(SpanKind.CONSUMER);
    expect(ingest.parentSpanContext?.spanId).toBe(publish?.spanContext().spanId);
    expect(ingest.attributes['messaging.destination.name']).toMatch(
      /^tollgate\.v1\.evt\.call\.completed\./,
    );
    const text = JSON.stringify([ingest.attributes, publish?.attributes]);
    expect(text).not.toContain('traced-1');
  });

  it('ingest - every event is recorded once in its own tenant chain, and each chain verifies', async () => {
    const [a, b] = [uniqueName('ta').replace(/_/g, '-'), uniqueName('tb').replace(/_/g, '-')];
    const events = [
      ...Array.from({ length: 30 }, (_, i) => callCompleted({ tenant: a, callId: `a-${i}` })),
      ...Array.from({ length: 20 }, (_, i) => callCompleted({ tenant: b, callId: `b-${i}` })),
      toolsListed({ tenant: a }),
    ];
    await publishAll(h.nc, events);
    // A publisher retry (same event id) and the same call reported again under a new event id.
    await publishAll(h.nc, [events[0]!, callCompleted({ tenant: a, callId: 'a-1' })]);
    await eventually(async () =>
      (await countOf(a)) === 31 && (await countOf(b)) === 20 ? true : undefined,
    );
    await eventually(() => (h.ingest.counts.duplicates >= 1 ? true : undefined));
    expect(await countOf(a)).toBe(31);
    const seqs = (await records().find({ tenant: a }).sort({ seq: 1 }).toArray()).map((d) => d.seq);
    expect(seqs).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
    expect(await verify(a)).toMatchObject({ ok: true, checked: 31n, firstBrokenSequence: 0n });
    expect(await verify(b)).toMatchObject({ ok: true, checked: 20n });
    const page = await h.trail.query(b, create(QueryRequestSchema, { tenant: b, pageSize: 100 }));
    expect(page.records.map((r) => r.tenant)).toEqual(Array(20).fill(b));
  });

  it('ingest - malformed and unknown-version messages are dead-lettered with an alert, ingestion goes on', async () => {
    const tenant = uniqueName('dl').replace(/_/g, '-');
    const js = jetstream(h.nc);
    const garbage = new Uint8Array([0xde, 0xad, 0xbe, 0xef, 0xff]);
    await js.publish('tollgate.v1.evt.call.completed', garbage);
    const future = tweak(callCompleted({ tenant }), { schemaVersion: 7 });
    const raw = onStream(future);
    await js.publish(raw.subject, raw.data, { msgID: future.eventId });
    const after = callCompleted({ tenant });
    await publishAll(h.nc, [after]);
    await eventually(async () => ((await countOf(tenant)) === 1 ? true : undefined));
    const letters = await eventually(async () => {
      const all = await h.store.deadLetters();
      return all.length >= 2 ? all : undefined;
    });
    const byReason = letters.map((l) => l.reason);
    expect(byReason.some((r) => r.startsWith('not a tollgate.events.v1.EventEnvelope'))).toBe(true);
    expect(byReason).toContain('schema_version 7 is unknown (audit reads 1)');
    const unknown = letters.find((l) => l.event_id === future.eventId)!;
    expect(Buffer.from(unknown.data, 'base64')).toEqual(Buffer.from(raw.data));
    expect(unknown).toMatchObject({
      tenant,
      type: 'call.completed',
      subject: raw.subject,
      deliveries: 1,
    });
    const alerts = h.lines.filter((l) => l.alert === true);
    expect(alerts.length).toBeGreaterThanOrEqual(2);
    expect(alerts.every((l) => l.level === 'error' && l.msg === 'audit event dead-lettered')).toBe(
      true,
    );
    expect(await verify(tenant)).toMatchObject({ ok: true, checked: 1n });
  });

  it('ingest - secrets in arguments never reach the store', async () => {
    const tenant = uniqueName('sec').replace(/_/g, '-');
    await publishAll(h.nc, [
      callCompleted({
        tenant,
        arguments: { filters: [{ field: 'note', op: 'match', value: CANARY }] },
      }),
    ]);
    const doc = await eventually(() =>
      records()
        .findOne({ tenant })
        .then((d) => d ?? undefined),
    );
    expect(JSON.stringify(doc)).not.toContain('CANARY0123');
    expect(JSON.parse(doc.event).callCompleted.arguments.filters[0].value).toBe('[redacted]');
  });

  it('ingest - records already stored by a run that crashed before acking are not stored again', async () => {
    const tenant = uniqueName('crash').replace(/_/g, '-');
    const events = Array.from({ length: 10 }, (_, i) =>
      callCompleted({ tenant, callId: `c-${i}` }),
    );
    // As if an earlier run stored the first six and died before acknowledging them.
    await records().insertMany(
      linkRecords(
        GENESIS,
        events.slice(0, 6).map((e) => draftRecord(e)),
        new Date(),
      ),
    );
    await publishAll(h.nc, events);
    await eventually(async () => ((await countOf(tenant)) === 10 ? true : undefined));
    await eventually(() => (h.ingest.counts.duplicates >= 6 ? true : undefined));
    expect(await countOf(tenant)).toBe(10);
    expect(await verify(tenant)).toMatchObject({ ok: true, checked: 10n });
  });

  it('verify - a record changed, forged or removed directly in Mongo is found', async () => {
    const tenant = uniqueName('tamper').replace(/_/g, '-');
    await publishAll(
      h.nc,
      Array.from({ length: 8 }, (_, i) =>
        callCompleted({ tenant, callId: `t-${i}`, status: CallStatus.OK }),
      ),
    );
    await eventually(async () => ((await countOf(tenant)) === 8 ? true : undefined));
    expect(await verify(tenant)).toMatchObject({ ok: true, checked: 8n });

    await records().updateOne({ tenant, seq: 5 }, { $set: { status: 'error' } });
    expect(await verify(tenant)).toMatchObject({
      ok: false,
      checked: 4n,
      firstBrokenSequence: 5n,
      reason: "hash does not match the record's contents (it was changed)",
    });
    await records().updateOne({ tenant, seq: 5 }, { $set: { status: 'ok' } });
    expect(await verify(tenant)).toMatchObject({ ok: true });

    const third = (await records().findOne({ tenant, seq: 3 }))!;
    await records().updateOne(
      { tenant, seq: 3 },
      { $set: { event: third.event.replace('"open"', '"closed"') } },
    );
    expect(await verify(tenant)).toMatchObject({ ok: false, firstBrokenSequence: 3n });
    await records().updateOne({ tenant, seq: 3 }, { $set: { event: third.event } });

    // A stored field tampered to another type.
    await records().updateOne(
      { tenant, seq: 7 },
      { $set: { latency_ms: 'fast' as unknown as number } },
    );
    expect(await verify(tenant)).toMatchObject({
      ok: false,
      firstBrokenSequence: 7n,
      reason: `stored audit record "${tenant}/call.completed/t-6/ok": latency_ms is not a non-negative integer`,
    });
    await records().updateOne({ tenant, seq: 7 }, { $set: { latency_ms: 12 } });

    // Rewritten with a hash recomputed to match: the next record's link gives it away.
    const fourth = (await records().findOne({ tenant, seq: 4 }))!;
    const forged = { ...fourth, agent: 'someone_else' };
    await records().updateOne(
      { tenant, seq: 4 },
      { $set: { agent: forged.agent, hash: recordHash(forged) } },
    );
    expect(await verify(tenant)).toMatchObject({ ok: false, firstBrokenSequence: 5n });
    await records().updateOne(
      { tenant, seq: 4 },
      { $set: { agent: fourth.agent, hash: fourth.hash } },
    );
    expect(await verify(tenant)).toMatchObject({ ok: true, checked: 8n });

    await records().deleteOne({ tenant, seq: 2 });
    expect(await verify(tenant)).toMatchObject({
      ok: false,
      checked: 1n,
      firstBrokenSequence: 2n,
      reason: 'record 2 is missing (next stored is 3)',
    });
    expect(
      await h.trail.verify(tenant, create(VerifyRequestSchema, { fromSequence: 3n })),
    ).toMatchObject({ ok: false, firstBrokenSequence: 2n, reason: 'record 2 is missing' });
    expect(
      await h.trail.verify(tenant, create(VerifyRequestSchema, { fromSequence: 4n })),
    ).toMatchObject({ ok: true, checked: 5n });
  });
});
