import type { Command } from 'commander';
import { toJson } from '@bufbuild/protobuf';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { AuditRecordSchema, AuditService, SessionStepSchema } from '@tollgate/contracts/audit/v1';
import type { AuditRecord, QueryRequestSchema, SessionStep } from '@tollgate/contracts/audit/v1';
import { CallStatus } from '@tollgate/contracts/call/v1';
import { ErrorCode } from '@tollgate/contracts/common/v1';
import { DecisionEffect } from '@tollgate/contracts/policy/v1';
import type { ActionRunner, CliContext } from '../context.js';
import { ExitCode, usageError } from '../errors.js';
import { renderFields } from '../output/table.js';
import { recordLine, renderRecords, renderSteps } from '../render/audit.js';
import { sleep } from '../stack/processes.js';
import { oneOf, positiveInt, timeArg } from './parse.js';

type QueryInit = MessageInitShape<typeof QueryRequestSchema>;

interface FilterOptions {
  type?: string[];
  session?: string;
  call?: string;
  agent?: string;
  user?: string;
  resource?: string;
  tool?: string;
  status?: string;
  decision?: string;
  errorCode?: string;
  since?: string;
  until?: string;
}

const STATUSES = ['ok', 'error', 'pending_approval', 'accepted'] as const;
const DECISIONS = ['allow', 'deny', 'require_approval'] as const;

/** `tollgate audit tail | query … | replay SESSION | verify`. */
export function registerAudit(program: Command, run: ActionRunner): void {
  const audit = program
    .command('audit')
    .description('the tamper-evident audit trail of the tenant');

  withFilters(audit.command('query').description('records matching filters, oldest first'))
    .option('--limit <n>', 'most records to return', '100')
    .action(
      run(async (ctx, options: FilterOptions & { limit: string }) => {
        const limit = positiveInt('--limit', options.limit);
        const records = await query(ctx, filters(ctx, options), limit, 'first');
        ctx.out.result({ records: records.map(plainRecord) }, () =>
          records.length === 0 ? 'no matching records' : renderRecords(records, ctx.out.style),
        );
      }),
    );

  withFilters(
    audit.command('tail').description('the latest records; --follow keeps printing new ones'),
  )
    .option('-n, --lines <n>', 'how many of the latest records', '20')
    .option('--follow', 'keep watching for new records (not with --json)')
    .action(
      run(async (ctx, options: FilterOptions & { lines: string; follow?: boolean }) => {
        const count = positiveInt('--lines', options.lines);
        if (options.follow && ctx.out.json)
          throw usageError('--follow prints a stream; it cannot be combined with --json');
        const request = filters(ctx, { ...options, since: options.since ?? '24h' });
        const latest = await query(ctx, request, count, 'last');
        ctx.out.result({ records: latest.map(plainRecord) }, () =>
          latest.length === 0 ? 'no records yet' : renderRecords(latest, ctx.out.style),
        );
        if (options.follow) await follow(ctx, request, latest);
      }),
    );

  audit
    .command('replay')
    .description('a session step by step: what was offered, called, decided and returned')
    .argument('<session>', 'session id')
    .action(
      run(async (ctx, sessionId: string) => {
        const { client } = await ctx.grpc('audit', AuditService);
        const steps: SessionStep[] = [];
        const records: AuditRecord[] = [];
        let pageToken = '';
        do {
          const page = await client.replaySession({
            tenant: ctx.tenant(),
            sessionId,
            pageSize: 500,
            pageToken,
          });
          steps.push(...page.steps);
          records.push(...page.records);
          pageToken = page.nextPageToken;
        } while (pageToken !== '');
        ctx.out.result(
          {
            sessionId,
            steps: steps.map((s) => toJson(SessionStepSchema, s)),
            records: records.map(plainRecord),
          },
          () =>
            steps.length === 0
              ? `no records for session ${sessionId}`
              : renderSteps(steps, ctx.out.style),
        );
      }),
    );

  audit
    .command('verify')
    .description("check the tenant's hash chain end to end")
    .option('--from <seq>', 'first sequence to check')
    .option('--to <seq>', 'last sequence to check')
    .action(
      run(async (ctx, options: { from?: string; to?: string }) => {
        const { client } = await ctx.grpc('audit', AuditService);
        const response = await client.verify({
          tenant: ctx.tenant(),
          fromSequence: options.from ? BigInt(positiveInt('--from', options.from)) : 0n,
          toSequence: options.to ? BigInt(positiveInt('--to', options.to)) : 0n,
        });
        const document = {
          ok: response.ok,
          checked: Number(response.checked),
          headHash: response.headHash,
          ...(response.ok
            ? {}
            : {
                firstBrokenSequence: Number(response.firstBrokenSequence),
                reason: response.reason,
              }),
        };
        ctx.out.result(document, () =>
          renderFields(
            [
              [
                'chain',
                response.ok
                  ? ctx.out.style.green('intact')
                  : ctx.out.style.red(`broken at ${response.firstBrokenSequence}`),
              ],
              ['checked', `${response.checked} records`],
              ['head', response.headHash || '-'],
              ...(response.ok ? [] : ([['reason', response.reason]] as Array<[string, string]>)),
            ],
            ctx.out.style,
          ),
        );
        if (!response.ok) ctx.exitCode = ExitCode.failed;
      }),
    );
}

function withFilters(command: Command): Command {
  return command
    .option('--type <type...>', 'event types, e.g. call.completed call.denied')
    .option('--session <id>', 'session id')
    .option('--call <id>', 'call id')
    .option('--agent <name>', 'agent')
    .option('--user <name>', 'user')
    .option('--resource <name>', 'resource')
    .option('--tool <name>', 'tool')
    .option('--status <status>', `call status: ${STATUSES.join(', ')}`)
    .option('--decision <effect>', `policy decision: ${DECISIONS.join(', ')}`)
    .option('--error-code <code>', 'error code, e.g. POLICY_DENIED')
    .option('--since <time>', 'from this time (ISO-8601) or this long ago (15m, 2h, 7d)')
    .option('--until <time>', 'before this time (ISO-8601) or this long ago');
}

function filters(ctx: CliContext, o: FilterOptions): QueryInit {
  const request: QueryInit = {
    tenant: ctx.tenant(),
    types: o.type ?? [],
    sessionId: o.session ?? '',
    callId: o.call ?? '',
    agent: o.agent ?? '',
    user: o.user ?? '',
    resource: o.resource ?? '',
    tool: o.tool ?? '',
  };
  if (o.status) {
    const name = oneOf('--status', o.status, STATUSES).toUpperCase() as keyof typeof CallStatus;
    request.status = CallStatus[name];
  }
  if (o.decision) {
    const name = oneOf(
      '--decision',
      o.decision,
      DECISIONS,
    ).toUpperCase() as keyof typeof DecisionEffect;
    request.decision = DecisionEffect[name];
  }
  if (o.errorCode) {
    const code = ErrorCode[o.errorCode.toUpperCase() as keyof typeof ErrorCode];
    if (typeof code !== 'number' || code === ErrorCode.UNSPECIFIED) {
      throw usageError(
        `--error-code: unknown code ${JSON.stringify(o.errorCode)} (e.g. POLICY_DENIED, ARGUMENTS_INVALID)`,
      );
    }
    request.errorCode = code;
  }
  if (o.since) request.from = timestampFromDate(timeArg('--since', o.since));
  if (o.until) request.to = timestampFromDate(timeArg('--until', o.until));
  return request;
}

/** Pages through a query: the first `limit` records, or the last `limit` of them. */
async function query(
  ctx: CliContext,
  request: QueryInit,
  limit: number,
  which: 'first' | 'last',
): Promise<AuditRecord[]> {
  const { client } = await ctx.grpc('audit', AuditService);
  const records: AuditRecord[] = [];
  let pageToken = '';
  do {
    const pageSize = which === 'first' ? Math.min(1000, limit - records.length) : 1000;
    const page = await client.query({ ...request, pageSize, pageToken });
    records.push(...page.records);
    if (which === 'last' && records.length > limit) records.splice(0, records.length - limit);
    pageToken = page.nextPageToken;
  } while (pageToken !== '' && (which === 'last' || records.length < limit));
  return records;
}

/** Polls for records after the last one seen and prints each as it arrives, until interrupted. */
async function follow(
  ctx: CliContext,
  request: QueryInit,
  seen: readonly AuditRecord[],
): Promise<void> {
  let last = seen.at(-1);
  const printed = new Set(seen.map((r) => r.sequence));
  const { client } = await ctx.grpc('audit', AuditService);
  for (;;) {
    await sleep(1_000);
    const next: QueryInit = { ...request, pageSize: 1000 };
    if (last?.event?.occurredAt) next.from = last.event.occurredAt;
    const page = await client.query(next);
    for (const record of page.records) {
      if (printed.has(record.sequence)) continue;
      printed.add(record.sequence);
      last = record;
      const line = recordLine(record);
      ctx.out.line(
        [line.sequence, line.time, line.type, line.who, line.what, line.outcome, line.traceId].join(
          '  ',
        ),
      );
    }
  }
}

export function plainRecord(record: AuditRecord) {
  return toJson(AuditRecordSchema, record);
}
