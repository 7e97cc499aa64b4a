import type { NatsConnection } from '@nats-io/transport-node';
import type { RpcClient } from '@tollgate/contracts';
import type { AuditService } from '@tollgate/contracts/audit/v1';
import { buckets, ensureEventStream, openBucket } from '@tollgate/kit';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callCompleted, callDenied, callStarted } from './support/events.js';
import { sharedMongoUrl } from './support/harness.js';
import { publishAll } from './support/publish.js';
import { eventually, ownNatsServer, uniqueName } from './support/servers.js';
import type { OwnedNatsServer } from './support/servers.js';
import { auditClient, startAuditProcess, testIssuer } from './support/service.js';
import type { AuditProcess } from './support/service.js';
import { declareAgents } from '../../../test/support/roles.js';

const A = 'team-a';
const past = new Date(Date.now() - 60_000);
const future = new Date(Date.now() + 3_600_000);

let nats: OwnedNatsServer;
let nc: NatsConnection;
let audit: AuditProcess;
let dbUrl: string;
let issuer: Awaited<ReturnType<typeof testIssuer>>;
let asA: RpcClient<typeof AuditService>;

beforeAll(async () => {
  nats = await ownNatsServer();
  nc = await nats.connect('audit-write-ahead');
  await ensureEventStream(nc);
  await declareAgents(await openBucket(nc, buckets.policyBundles), A, { auditor: ['viewer'] });
  dbUrl = `${sharedMongoUrl}/${uniqueName('audit_wal')}`;
  issuer = await testIssuer();
  audit = await startAuditProcess({
    ...nats.env,
    TOLLGATE_MONGO_URL: dbUrl,
    TOLLGATE_TRUSTED_ISSUERS_FILE: issuer.file,
  });
  asA = auditClient(audit.grpc, await issuer.token(A));
  await publishAll(nc, [
    callStarted({ sessionId: 'w-1', callId: 'done', deadline: past }),
    callCompleted({ sessionId: 'w-1', callId: 'done' }),
    callStarted({ sessionId: 'w-1', callId: 'lost', deadline: past }),
    callStarted({ sessionId: 'w-1', callId: 'running', deadline: future }),
    callStarted({ sessionId: 'w-1', callId: 'refused', deadline: past }),
    callDenied({ sessionId: 'w-1', callId: 'refused' }),
    // The same start published twice (a publisher retry under another event id) is one record.
    callStarted({ sessionId: 'w-1', callId: 'lost', deadline: past }),
  ]);
  await eventually(
    async () => ((await asA.query({ pageSize: 100 })).records.length === 6 ? true : undefined),
    60_000,
    250,
  );
});

afterAll(async () => {
  asA?.close();
  if (audit && audit.child.exitCode === null) audit.child.kill('SIGKILL');
  await nc?.close();
  const client = new MongoClient(dbUrl);
  await client
    .db()
    .dropDatabase()
    .catch(() => {});
  await client.close();
  await nats?.dispose();
  await issuer?.dispose();
});

describe('audit - write-ahead call.started paired with its outcome', () => {
  it('audit - a started call without an outcome by its deadline replays as outcome unknown', async () => {
    const replay = await asA.replaySession({ sessionId: 'w-1' });
    const summaries = Object.fromEntries(
      replay.steps.filter((s) => s.type === 'call.started').map((s) => [s.callId, s.summary]),
    );
    expect(summaries).toEqual({
      done: 'es_orders_search started',
      refused: 'es_orders_search started',
      lost: 'es_orders_search started -> outcome unknown: no completion was recorded by its deadline (its executor stopped mid-way)',
      running: 'es_orders_search started (no outcome recorded yet)',
    });
  });

  it('audit - ExportSession pairs started calls the same way', async () => {
    let text = '';
    for await (const chunk of asA.exportSession({ sessionId: 'w-1' })) text += chunk.jsonl;
    const lost = text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { callId?: string; summary?: string })
      .find((s) => s.callId === 'lost');
    expect(lost?.summary).toMatch(/outcome unknown/);
  });

  it('audit - started records are found by type, and are not counted as calls', async () => {
    const started = await asA.query({ types: ['call.started'], pageSize: 100 });
    const ids = started.records.map((r) =>
      r.event?.payload.case === 'callStarted' ? r.event.payload.value.callId : '',
    );
    expect(ids.sort()).toEqual(['done', 'lost', 'refused', 'running']);
    const stats = await asA.stats({});
    expect(stats.total?.calls).toBe(2n);
  });
});
