/**
 * Audit ingest benchmark: sustained ingest rate and end-to-end delay from publishing
 * `call.completed` to a queryable record. Real NATS (a nats-server of its own, so the stream
 * holds only these events) and the local FerretDB (a fresh database, dropped afterwards).
 *
 *   npx tsx services/audit/bench/ingest.bench.ts [events=20000] [rate=200] [seconds=15]
 *   npx tsx services/audit/bench/ingest.bench.ts --smoke   (CI: 500 events, 100/s for 2 s)
 */
import { create } from '@bufbuild/protobuf';
import { QueryRequestSchema } from '@tollgate/contracts/audit/v1';
import type { AuditDocument } from '../src/record.js';
import { AuditStore } from '../src/store.js';
import type { InsertOutcome } from '../src/store.js';
import { AuditIngest } from '../src/ingest/ingest.js';
import { AuditTrail } from '../src/audit.js';
import { percentile } from '../src/read/stats.js';
import { parseQuery } from '../src/read/query.js';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  EVENTS_STREAM,
  connectMongo,
  createLogger,
  encodePageToken,
  ensureEventStream,
} from '@tollgate/kit';
import { jetstreamManager } from '@nats-io/jetstream';
import type { MongoHandle } from '@tollgate/kit';
import { callCompleted } from '../test/support/events.js';
import { publishAll } from '../test/support/publish.js';
import { ownNatsServer, uniqueName } from '../test/support/servers.js';
import { auditConfig } from '../src/config.js';

const smoke = process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1';
const sizes = process.argv
  .slice(2)
  .filter((a) => !a.startsWith('--'))
  .map(Number);
const [events = smoke ? 500 : 20_000, rate = smoke ? 100 : 200, seconds = smoke ? 2 : 15] = sizes;
const mongoBase = process.env.TOLLGATE_MONGO_URL ?? 'mongodb://127.0.0.1:27017';
const logger = createLogger({ service: 'audit-bench', level: 'warn' });

/** Notes when each record's insert was acknowledged by Mongo (from then on it is queryable). */
class TimedStore extends AuditStore {
  readonly committedAt = new Map<string, number>();
  override async insertRecords(docs: readonly AuditDocument[]): Promise<InsertOutcome> {
    const outcome = await super.insertRecords(docs);
    const now = performance.now();
    const written = outcome.kind === 'inserted' ? docs.length : outcome.index;
    for (const doc of docs.slice(0, written)) this.committedAt.set(doc.call_id, now);
    return outcome;
  }
}

function ingestFor(nc: NatsConnection, store: AuditStore): AuditIngest {
  const d = auditConfig;
  return new AuditIngest({
    nc,
    store,
    logger,
    settings: {
      durable: uniqueName('bench'),
      batchSize: d.batchSize.default!,
      lingerMs: d.batchLingerMs.default!,
      ackWaitMs: d.ackWaitMs.default!,
      maxAckPending: d.maxAckPending.default!,
      poisonDeliveries: d.poisonDeliveries.default!,
      maxArgumentBytes: d.maxArgumentBytes.default!,
    },
  });
}

async function freshStore(): Promise<{ mongo: MongoHandle; store: TimedStore }> {
  const mongo = await connectMongo(`${mongoBase}/${uniqueName('audit_bench')}`);
  const store = new TimedStore(mongo.db);
  await store.ensureIndexes();
  return { mongo, store };
}

async function until(check: () => boolean | Promise<boolean>, stepMs = 20): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, stepMs));
}

const ms = (v: number) => `${v.toFixed(0)} ms`;

async function sustainedRate(nc: NatsConnection): Promise<void> {
  const { mongo, store } = await freshStore();
  await publishAll(
    nc,
    Array.from({ length: events }, (_, i) => callCompleted({ tenant: 'bench', callId: `r-${i}` })),
    { concurrency: 64 },
  );
  const ingest = ingestFor(nc, store);
  const started = performance.now();
  await ingest.start();
  await until(() => ingest.counts.stored >= events, 50);
  const elapsed = (performance.now() - started) / 1000;
  await ingest.stop();
  console.log(
    `sustained ingest: ${events} events backlog stored in ${elapsed.toFixed(1)} s = ${(events / elapsed).toFixed(0)} events/s`,
  );
  await mongo.db.dropDatabase();
  await mongo.close();
  // The next phase starts from an empty stream.
  await (await jetstreamManager(nc)).streams.purge(EVENTS_STREAM);
}

async function endToEndDelay(nc: NatsConnection): Promise<void> {
  const { mongo, store } = await freshStore();
  const trail = new AuditTrail({ store });
  const ingest = ingestFor(nc, store);
  await ingest.start();
  const total = rate * seconds;
  const publishedAt = new Map<string, number>();
  const seenAt = new Map<string, number>();
  let tailing = true;
  // Tail the tenant's records the way a console would: query after the last sequence seen.
  const request = (pageToken: string) =>
    create(QueryRequestSchema, { tenant: 'bench', pageSize: 1000, pageToken });
  const seal = parseQuery('bench', request('')).seal;
  const tail = (async () => {
    let after = 0;
    while (tailing || seenAt.size < total) {
      const page = await trail.query('bench', request(after ? encodePageToken(after, seal) : ''));
      const now = performance.now();
      for (const r of page.records) {
        const c = r.event?.payload.case === 'callCompleted' ? r.event.payload.value.callId : '';
        if (!seenAt.has(c)) seenAt.set(c, now);
        after = Number(r.sequence);
      }
      if (page.nextPageToken === '') await new Promise((r) => setTimeout(r, 10));
    }
  })();
  const start = performance.now();
  const publisher = new Set<Promise<void>>();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const event = callCompleted({ tenant: 'bench', callId: `e-${i}` });
    publishedAt.set(`e-${i}`, performance.now());
    const p = publishAll(nc, [event], { concurrency: 1 }).finally(() => publisher.delete(p));
    publisher.add(p);
  }
  await Promise.all(publisher);
  await until(() => [...publishedAt.keys()].every((id) => store.committedAt.has(id)), 50);
  tailing = false;
  await tail;
  await ingest.stop();
  const commit = [...publishedAt]
    .map(([id, t]) => store.committedAt.get(id)! - t)
    .sort((a, b) => a - b);
  const visible = [...publishedAt].map(([id, t]) => seenAt.get(id)! - t).sort((a, b) => a - b);
  console.log(
    `end-to-end at ${rate} events/s for ${seconds} s (${total} events):\n` +
      `  publish -> record committed (queryable): p50 ${ms(percentile(commit, 50))}, p99 ${ms(percentile(commit, 99))}\n` +
      `  publish -> seen by a tailing Query:      p50 ${ms(percentile(visible, 50))}, p99 ${ms(percentile(visible, 99))}`,
  );
  await mongo.db.dropDatabase();
  await mongo.close();
}

const nats = await ownNatsServer();
const nc = await nats.connect('audit-bench');
await ensureEventStream(nc);
try {
  await sustainedRate(nc);
  await endToEndDelay(nc);
} finally {
  await nc.close();
  await nats.dispose();
}
