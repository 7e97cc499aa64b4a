import type { Command } from 'commander';
import { toJson } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import { ApprovalSchema, ApprovalStatus, PolicyService } from '@tollgate/contracts/policy/v1';
import type { Approval } from '@tollgate/contracts/policy/v1';
import type { ActionRunner, CliContext } from '../context.js';
import { CLI_AGENT } from '../context.js';
import { renderFields, renderTable } from '../output/table.js';
import { short } from '../render/diff.js';

interface DeciderOptions {
  as?: string;
  user?: string;
}

/** `tollgate approvals ls | approve ID | reject ID`. */
export function registerApprovals(program: Command, run: ActionRunner): void {
  const approvals = program
    .command('approvals')
    .description('calls waiting for a person to decide');
  const decider = (command: Command) =>
    command
      .option('--as <agent>', `the approver agent (default ${CLI_AGENT})`)
      .option('--user <name>', 'the person deciding (default TOLLGATE_USER or the login name)');

  decider(approvals.command('ls').description('pending approvals in the tenant'))
    .option('--resource <name>', 'only calls on this resource')
    .action(
      run(async (ctx, options: DeciderOptions & { resource?: string }) => {
        const { client } = await policy(ctx, options);
        const pending: Approval[] = [];
        let pageToken = '';
        do {
          const page = await client.listPending({
            tenant: ctx.tenant(),
            resource: options.resource ?? '',
            pageSize: 200,
            pageToken,
          });
          pending.push(...page.approvals);
          pageToken = page.nextPageToken;
        } while (pageToken !== '');
        ctx.out.result({ approvals: pending.map(plainApproval) }, () =>
          pending.length === 0
            ? `no pending approvals in ${ctx.tenant()}`
            : renderTable(
                [
                  { header: 'ID', cell: (a: Approval) => a.id, max: 36 },
                  { header: 'TOOL', cell: (a) => a.tool },
                  { header: 'REQUESTED BY', cell: (a) => requester(a) },
                  { header: 'REQUESTED', cell: (a) => time(a.requestedAt) },
                  { header: 'EXPIRES', cell: (a) => time(a.expiresAt) },
                  { header: 'ARGUMENTS', cell: (a) => short(a.arguments ?? {}, 60) },
                ],
                pending,
                ctx.out.style,
              ),
        );
      }),
    );

  for (const verb of ['approve', 'reject'] as const) {
    decider(
      approvals
        .command(verb)
        .description(
          verb === 'approve' ? 'approve a parked call (it then runs)' : 'reject a parked call',
        )
        .argument('<id>', 'approval id'),
    )
      .option('--reason <text>', 'why (kept in the audit trail)')
      .action(
        run(async (ctx, id: string, options: DeciderOptions & { reason?: string }) => {
          const { client } = await policy(ctx, options);
          const request = { id, reason: options.reason ?? '' };
          const response =
            verb === 'approve' ? await client.approve(request) : await client.reject(request);
          const a = response.approval;
          if (a === undefined)
            throw new Error(`the policy service answered without the approval ${id}`);
          ctx.out.result(plainApproval(a), () =>
            [
              `${verb === 'approve' ? ctx.out.style.green('approved') : ctx.out.style.red('rejected')} ${a.id}`,
              renderFields(
                [
                  ['call', `${a.tool} (${a.callId})`],
                  ['requested by', requester(a)],
                  ['decided by', a.decidedBy || '-'],
                  ['status', statusName(a.status)],
                ],
                ctx.out.style,
              ),
            ].join('\n'),
          );
        }),
      );
  }
}

async function policy(ctx: CliContext, options: DeciderOptions) {
  const token =
    options.as || options.user
      ? await ctx.agentToken(options.as ?? CLI_AGENT, { user: options.user ?? ctx.user() })
      : await ctx.operatorToken();
  return ctx.grpc('policy', PolicyService, token);
}

export function plainApproval(a: Approval) {
  return toJson(ApprovalSchema, a);
}

function requester(a: Approval): string {
  const p = a.principal;
  if (p === undefined) return '-';
  return p.user ? `${p.agent} for ${p.user}` : p.agent;
}

function statusName(status: ApprovalStatus): string {
  return (ApprovalStatus[status] ?? 'UNSPECIFIED').toLowerCase();
}

function time(ts: Timestamp | undefined): string {
  return ts
    ? timestampDate(ts)
        .toISOString()
        .replace(/\.\d+Z$/, 'Z')
    : '-';
}
