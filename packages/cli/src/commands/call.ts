import type { Command } from 'commander';
import type { CallOutcome, FinalOutcome } from '@tollgate/sdk';
import type { ActionRunner } from '../context.js';
import { CliError } from '../errors.js';
import { plainOutcome, renderOutcome } from '../render/outcome.js';
import { jsonObjectArg, positiveInt } from './parse.js';

/** `tollgate call TOOL --as AGENT --args JSON [--session ID] [--idempotency-key K] [--wait]`. */
export function registerCall(program: Command, run: ActionRunner): void {
  program
    .command('call')
    .description(
      'call a tool as an agent and print the envelope (status, data, meta with trace id)',
    )
    .argument('<tool>', 'tool name, e.g. es_orders_search')
    .requiredOption('--as <agent>', 'the agent making the call')
    .requiredOption('--args <json>', 'arguments as a JSON object, or @file.json')
    .option('--user <name>', 'the person the agent acts for')
    .option('--session <id>', 'conversation the call belongs to')
    .option('--idempotency-key <key>', 'required for writes; reuse it when retrying the same write')
    .option(
      '--wait',
      'when the call is parked for approval (or accepted), wait for the final outcome',
    )
    .option('--timeout <seconds>', 'how long to wait with --wait', '300')
    .action(
      run(
        async (
          ctx,
          tool: string,
          options: {
            as: string;
            args: string;
            user?: string;
            session?: string;
            idempotencyKey?: string;
            wait?: boolean;
            timeout: string;
          },
        ) => {
          const args = jsonObjectArg('--args', options.args);
          const timeoutSeconds = positiveInt('--timeout', options.timeout);
          const client = await ctx.agentClient(
            options.as,
            options.user ? { user: options.user } : {},
          );
          let outcome: CallOutcome | FinalOutcome = await client.call(tool, args, {
            ...(options.session ? { sessionId: options.session } : {}),
            ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
          });
          if (
            options.wait &&
            (outcome.status === 'pending_approval' || outcome.status === 'accepted')
          ) {
            const waiting = outcome;
            ctx.out.note(
              waiting.status === 'pending_approval'
                ? `parked for approval ${waiting.approvalId}; an approver runs: tollgate approvals approve ${waiting.approvalId}`
                : `accepted as task ${waiting.taskId}`,
            );
            const progress = ctx.out.progress('waiting for the outcome');
            try {
              outcome = await waiting.wait({ timeoutMs: timeoutSeconds * 1000 });
              progress.done(outcome.status);
            } catch (err) {
              progress.fail();
              throw err;
            }
          }
          const plain = plainOutcome(outcome);
          ctx.out.result(plain, () => renderOutcome(plain, ctx.out.style));
          // The envelope is the result; the one-line reason still goes to stderr, exit 1.
          if (plain.status === 'error') throw new CliError(plain.error!.code, plain.error!.message);
        },
      ),
    );
}
