import { TollgateClient } from '@tollgate/sdk';
import type { Tool } from '@tollgate/sdk';
import { ordersTool } from '../../fixtures/orders.js';
import { ended } from './stack.js';
import type { ChaosStack } from './stack.js';
import { faultOf, percentile, seeded, trialSeed } from './random.js';
import type { Random } from './random.js';
import { TrailWatch } from './trail.js';

/** What the campaign does to the system in one trial; each is held a while, then healed. */
export const FAULTS = [
  'kill-executor',
  'pause-executor',
  'kill-audit',
  'restart-nats',
  'database-outage',
  'slow-upstream',
] as const;
/**
 * On a NATS cluster, also: one node SIGKILLed (started again on healing), or frozen with
 * SIGSTOP — to its peers and its clients it is gone, and it comes back with a stale view.
 */
export const NODE_FAULTS = ['kill-nats-node', 'pause-nats-node'] as const;
export type Fault = (typeof FAULTS)[number] | (typeof NODE_FAULTS)[number];

/** The faults a campaign draws from on this stack. */
export const faultsOf = (stack: ChaosStack): readonly Fault[] =>
  stack.cluster ? [...FAULTS, ...NODE_FAULTS] : FAULTS;

/** Every call's deadline; an answer later than this plus the slack is a hang. */
const CALL_TIMEOUT_MS = 3_000;
const ANSWER_SLACK_MS = 1_500;
/** How long healing may take before the system counts as not converged. */
export const CONVERGE_WITHIN_MS = 30_000;
/**
 * After the last trial, how long answered calls still missing from the audit trail are awaited
 * before they count as lost rather than late.
 */
export const LOST_AFTER_MS = 120_000;
/** How often the audit trail is read while waiting for it. */
const TRAIL_POLL_MS = 1_000;

type CallKind = 'read' | 'write' | 'intruder';

/** One call of the load and how it ended. */
interface CallRecord {
  callId: string;
  kind: CallKind;
  /** Writes: the idempotency key, also the document id. */
  key?: string;
  elapsedMs: number;
  /** When the answer (or the error) came, ms since the epoch. */
  endedAt: number;
  /** `answered`: the executor replied ok/error; `failed`: the client got a retryable error. */
  end: 'answered' | 'failed';
  status?: string;
  code?: string;
}

export interface TrialReport {
  index: number;
  seed: number;
  fault: Fault;
  holdMs: number;
  recoveryMs: number;
  calls: number;
  violations: string[];
  /** Answered calls that reached the audit trail only after the convergence time. */
  late: number;
  /** Answered calls that never reached it (awaited until `LOST_AFTER_MS` after the campaign). */
  lost: number;
}

export interface CampaignReport {
  seed: number;
  trials: TrialReport[];
  byFault: Record<
    string,
    { trials: number; violations: number; late: number; lost: number; p50: number; p99: number }
  >;
}

const SEARCH = ordersTool('search');
const WRITE = ordersTool('write', 'orders_writes');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A steady mixed load from several agents: reads; writes, each with its own idempotency key
 * (retried with the same key after a retryable error, as an agent should); and calls by an
 * agent no policy admits. Runs until `stop()`.
 */
class Load {
  readonly records: CallRecord[] = [];
  #running = true;
  #workers: Promise<void>[] = [];
  #writes = 0;

  constructor(
    private readonly clients: {
      support: TollgateClient;
      ops: TollgateClient;
      intruder: TollgateClient;
    },
    private readonly prefix: string,
    private readonly random: Random,
  ) {}

  start(workers: number): void {
    for (let i = 0; i < workers; i++) this.#workers.push(this.#work());
  }

  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#workers);
    this.#workers = [];
  }

  async #work(): Promise<void> {
    while (this.#running) {
      const roll = this.random.next();
      if (roll < 0.55) await this.#call('read', this.clients.support, SEARCH, readArgs());
      else if (roll < 0.9) await this.#write();
      else {
        const id = `${this.prefix}-x-${this.#writes++}`;
        await this.#call('intruder', this.clients.intruder, WRITE, writeArgs(id), id);
      }
      await sleep(20);
    }
  }

  async #write(): Promise<void> {
    const key = `${this.prefix}-w-${this.#writes++}`;
    for (let attempt = 0; attempt < 4; attempt++) {
      const record = await this.#call('write', this.clients.ops, WRITE, writeArgs(key), key);
      if (record.end === 'answered' && record.code !== 'UPSTREAM_TIMEOUT') return;
      await sleep(300);
    }
  }

  async #call(
    kind: CallKind,
    client: TollgateClient,
    target: Tool,
    args: Record<string, unknown>,
    key?: string,
  ): Promise<CallRecord> {
    const callId = crypto.randomUUID();
    const started = Date.now();
    let record: CallRecord;
    try {
      const outcome = await client.call(target, args as never, {
        callId,
        timeoutMs: CALL_TIMEOUT_MS,
        ...(kind === 'read' ? {} : { idempotencyKey: key }),
      });
      record = {
        callId,
        kind,
        elapsedMs: Date.now() - started,
        endedAt: Date.now(),
        end: 'answered',
        status: outcome.status,
        ...(outcome.status === 'error' ? { code: outcome.error.code } : {}),
      };
    } catch (err) {
      record = {
        callId,
        kind,
        elapsedMs: Date.now() - started,
        endedAt: Date.now(),
        end: 'failed',
        code: String((err as { code?: unknown }).code ?? (err as Error).name),
      };
    }
    if (key !== undefined) record.key = key;
    this.records.push(record);
    return record;
  }
}

const readArgs = () => ({ filters: [{ field: 'id', op: 'eq', value: '12345' }] });
const writeArgs = (id: string) => ({ id, document: { status: 'shipped', note_ref: id } });

/** Applies `fault` and returns how to heal it. */
async function inject(stack: ChaosStack, fault: Fault, random: Random, holdMs: number) {
  switch (fault) {
    case 'kill-executor': {
      const victim = random.pick(stack.executors);
      await ended(victim);
      return () => victim.restart();
    }
    case 'pause-executor': {
      const victim = random.pick(stack.executors);
      victim.running.child.kill('SIGSTOP');
      return async () => void victim.running.child.kill('SIGCONT');
    }
    case 'kill-audit':
      await ended(stack.audit);
      return () => stack.audit.restart();
    case 'restart-nats':
      await stack.h.nats.stop(true);
      return () => stack.h.nats.start();
    case 'database-outage':
      stack.mongoCut.cut();
      return async () => stack.mongoCut.heal();
    case 'kill-nats-node': {
      const cluster = stack.cluster!;
      await cluster.killNode(random.between(1, cluster.nodes));
      return () => cluster.startNodes();
    }
    case 'pause-nats-node': {
      const cluster = stack.cluster!;
      const node = random.between(1, cluster.nodes);
      await cluster.signalNode(node, 'SIGSTOP');
      return () => cluster.signalNode(node, 'SIGCONT');
    }
    case 'slow-upstream': {
      const delay = random.between(holdMs, holdMs + 2_000);
      stack.proxy.delay = () => delay;
      return async () => {
        stack.proxy.delay = () => 0;
      };
    }
  }
}

/** Time from healing until a read answers ok again. */
async function recovery(client: TollgateClient): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < CONVERGE_WITHIN_MS) {
    const ok = await client
      .call(SEARCH, readArgs() as never, { timeoutMs: 1_000 })
      .then((o) => o.status === 'ok')
      .catch(() => false);
    if (ok) return Date.now() - started;
    await sleep(100);
  }
  return Number.POSITIVE_INFINITY;
}

/**
 * The invariants of the issue, over the calls of one trial; each broken one is a line. Answered
 * calls the audit trail does not hold within the convergence time are returned as `awaiting`:
 * whether they are late or lost is decided after the campaign (`settle`).
 */
async function check(
  stack: ChaosStack,
  records: CallRecord[],
  seenBefore: number,
  trail: TrailWatch,
): Promise<{ violations: string[]; awaiting: CallRecord[] }> {
  const violations: string[] = [];
  // 4. An answer or a retryable error within the deadline, never a hang.
  for (const r of records) {
    if (r.elapsedMs > CALL_TIMEOUT_MS + ANSWER_SLACK_MS)
      violations.push(`call ${r.callId} (${r.kind}) took ${r.elapsedMs} ms`);
    if (
      r.end === 'failed' &&
      !['SERVICE_UNAVAILABLE', 'UPSTREAM_TIMEOUT', 'UPSTREAM_UNAVAILABLE'].includes(r.code ?? '')
    )
      violations.push(`call ${r.callId} failed with ${r.code}, not a retryable error`);
  }
  // 3. Nothing an unadmitted agent asked for ran, or reached Elasticsearch.
  for (const r of records.filter((r) => r.kind === 'intruder')) {
    if (r.status === 'ok') violations.push(`intruder call ${r.callId} was answered ok`);
  }
  const writesSeen = new Map<string, number>();
  for (const req of stack.proxy.requests.slice(seenBefore)) {
    const m = /\/_(?:update|create|doc)\/([^/?]+)/.exec(req.path);
    if (m && req.method !== 'GET') {
      const id = decodeURIComponent(m[1]!);
      writesSeen.set(id, (writesSeen.get(id) ?? 0) + 1);
    }
  }
  for (const [id, count] of writesSeen) {
    if (id.includes('-x-')) violations.push(`intruder document ${id} reached Elasticsearch`);
    // 2. No write ran twice: one upstream write per idempotency key, retries included.
    if (count > 1) violations.push(`write ${id} reached Elasticsearch ${count} times`);
  }
  for (const r of records.filter((r) => r.kind === 'write' && r.status === 'ok')) {
    if (!writesSeen.has(r.key!))
      violations.push(`write ${r.key} answered ok but never reached Elasticsearch`);
  }
  // 1 + 5. Every answered call is in the audit trail within the convergence time, with at most
  // one outcome, and the chain verifies. A read is answered before its call.completed is stored
  // (its write-ahead call.started is stored first), so an executor killed in between leaves the
  // call as started, which audit replays as outcome unknown; a call with neither is awaited.
  const answered = records.filter((r) => r.end === 'answered');
  const deadline = Date.now() + CONVERGE_WITHIN_MS;
  for (;;) {
    await trail.poll();
    if (answered.every((r) => trail.seen(r.callId)) || Date.now() > deadline) break;
    await sleep(TRAIL_POLL_MS);
  }
  violations.push(...outcomeViolations(records, trail));
  return { violations, awaiting: answered.filter((r) => !trail.seen(r.callId)) };
}

/** Calls with more than one outcome in the audit trail. */
function outcomeViolations(records: readonly CallRecord[], trail: TrailWatch): string[] {
  return records.flatMap((r) => {
    const n = trail.call(r.callId).outcomes;
    if (n <= 1) return [];
    return [
      r.end === 'answered'
        ? `answered call ${r.callId} (${r.kind}) is in the audit trail ${n} times`
        : `failed call ${r.callId} is audited ${n} times`,
    ];
  });
}

/**
 * After the last trial: waits (up to `LOST_AFTER_MS`) for the answered calls each trial was
 * still awaiting, then records each as late or lost in its trial, re-counts every call's
 * outcomes (a duplicate can arrive late too) and adds the chain problems to the last trial.
 */
async function settle(
  trail: TrailWatch,
  trials: Array<{ report: TrialReport; records: CallRecord[]; awaiting: CallRecord[] }>,
  log: (line: string) => void,
): Promise<void> {
  const awaiting = trials.flatMap((t) => t.awaiting);
  const started = Date.now();
  for (;;) {
    await trail.poll();
    if (awaiting.every((r) => trail.seen(r.callId)) || Date.now() - started > LOST_AFTER_MS) break;
    await sleep(TRAIL_POLL_MS);
  }
  if (awaiting.length > 0)
    log(`${awaiting.length} calls awaited the audit trail; settled in ${Date.now() - started} ms`);
  for (const { report, records, awaiting: mine } of trials) {
    for (const r of mine) {
      if (trail.seen(r.callId)) {
        report.late++;
        report.violations.push(
          `answered call ${r.callId} (${r.kind}) reached the audit trail ${Math.round((trail.call(r.callId).firstSeenAt - r.endedAt) / 1000)} s after its answer (later than ${CONVERGE_WITHIN_MS / 1000} s)`,
        );
      } else {
        report.lost++;
        report.violations.push(`answered call ${r.callId} (${r.kind}) is not in the audit trail`);
      }
    }
    const already = new Set(report.violations);
    for (const line of outcomeViolations(records, trail))
      if (!already.has(line)) report.violations.push(line);
  }
  const last = trials.at(-1);
  if (last) last.report.violations.push(...trail.problems());
}

export interface CampaignOptions {
  seed: number;
  trials: number;
  /** Run only this trial (reproducing one). */
  only?: number;
  workers?: number;
  /** How long a fault is held, ms: drawn in this range for each trial. */
  holdMs?: [number, number];
  log?: (line: string) => void;
}

export async function runCampaign(
  stack: ChaosStack,
  options: CampaignOptions,
): Promise<CampaignReport> {
  const log = options.log ?? (() => undefined);
  const clients = {
    support: await TollgateClient.connect({
      natsUrl: stack.h.nats.url,
      token: await stack.h.token('support_bot'),
      timeoutMs: CALL_TIMEOUT_MS,
    }),
    ops: await TollgateClient.connect({
      natsUrl: stack.h.nats.url,
      token: await stack.h.token('ops_bot'),
      timeoutMs: CALL_TIMEOUT_MS,
    }),
    intruder: await TollgateClient.connect({
      natsUrl: stack.h.nats.url,
      token: await stack.h.token('intruder_bot'),
      timeoutMs: CALL_TIMEOUT_MS,
    }),
  };
  const faults = faultsOf(stack);
  const trail = new TrailWatch(stack.mongo.db(stack.auditDb).collection('audit_records'));
  const runs: Array<{ report: TrialReport; records: CallRecord[]; awaiting: CallRecord[] }> = [];
  try {
    // Warm: the first calls compile validators and open connections; no trial measures that.
    const warm = await recovery(clients.support);
    if (!Number.isFinite(warm)) throw new Error('the stack answered no read before any fault');
    const indices = options.only === undefined ? [...Array(options.trials).keys()] : [options.only];
    for (const index of indices) {
      const seed = trialSeed(options.seed, index);
      const random = seeded(seed);
      const fault = faultOf(faults, options.seed, index);
      const holdMs = random.between(...(options.holdMs ?? [1_000, 3_000]));
      const seenBefore = stack.proxy.requests.length;
      const load = new Load(clients, `t${options.seed}-${index}`, seeded(seed ^ 0x5bd1e995));
      load.start(options.workers ?? 4);
      await sleep(500);
      const heal = await inject(stack, fault, random, holdMs);
      await sleep(holdMs);
      await heal();
      const recoveryMs = await recovery(clients.support);
      await sleep(500);
      await load.stop();
      const { violations, awaiting } = await check(stack, load.records, seenBefore, trail);
      if (!Number.isFinite(recoveryMs))
        violations.push(`no read answered ok within ${CONVERGE_WITHIN_MS} ms of healing`);
      const report: TrialReport = {
        index,
        seed,
        fault,
        holdMs,
        recoveryMs,
        calls: load.records.length,
        violations,
        late: 0,
        lost: 0,
      };
      runs.push({ report, records: load.records, awaiting });
      const waiting = awaiting.length ? `, ${awaiting.length} not in the audit trail yet` : '';
      log(
        `trial ${index} seed ${options.seed} (${seed}): ${fault} held ${holdMs} ms, recovered in ${recoveryMs} ms, ${report.calls} calls, ${violations.length} violations${waiting}${violations.length ? `\n  ${violations.slice(0, 5).join('\n  ')}` : ''}`,
      );
    }
  } finally {
    await Promise.all(Object.values(clients).map((c) => c.close().catch(() => undefined)));
  }
  await settle(trail, runs, log);
  const trials = runs.map((r) => r.report);
  const byFault: CampaignReport['byFault'] = {};
  for (const fault of faults) {
    const of = trials.filter((t) => t.fault === fault);
    if (of.length === 0) continue;
    const times = of.map((t) => t.recoveryMs);
    const sum = (f: (t: TrialReport) => number) => of.reduce((n, t) => n + f(t), 0);
    byFault[fault] = {
      trials: of.length,
      violations: sum((t) => t.violations.length),
      late: sum((t) => t.late),
      lost: sum((t) => t.lost),
      p50: percentile(times, 50),
      p99: percentile(times, 99),
    };
  }
  return { seed: options.seed, trials, byFault };
}
