import type { Command } from 'commander';
import type { ActionRunner } from '../context.js';
import { ExitCode } from '../errors.js';
import { renderTable } from '../output/table.js';
import { checkoutChecks, portChecks, prerequisiteChecks, stackChecks } from '../stack/doctor.js';
import type { Check } from '../stack/doctor.js';
import { stackStatus } from '../stack/stack.js';

/** `tollgate doctor`: what the demo and the tests need, each problem with its fix. */
export function registerDoctor(program: Command, run: ActionRunner): void {
  program
    .command('doctor')
    .description(
      'check the prerequisites, the build, the ports and the stack; print a fix for each problem',
    )
    .action(
      run(async (ctx) => {
        const status = await stackStatus(ctx.home, ctx.env);
        const checks: Check[] = [
          ...(await prerequisiteChecks(ctx.env, ctx.home.checkout)),
          ...checkoutChecks(ctx.home),
          ...(await portChecks(ctx.env, status)),
          ...stackChecks(status),
        ];
        const failed = checks.filter((c) => c.state === 'fail').length;
        const warned = checks.filter((c) => c.state === 'warn').length;
        ctx.out.result({ ok: failed === 0, failed, warned, checks }, () => {
          const { style } = ctx.out;
          const mark = (c: Check) =>
            c.state === 'ok'
              ? style.green('ok')
              : c.state === 'warn'
                ? style.yellow('warn')
                : style.red('FAIL');
          const table = renderTable(
            [
              { header: 'AREA', cell: (c: Check) => c.area },
              { header: 'CHECK', cell: (c) => c.name },
              { header: '', cell: mark },
              { header: 'FOUND', cell: (c) => c.found, max: 70 },
              { header: 'FIX', cell: (c) => c.fix ?? '', max: 80 },
            ],
            checks,
            style,
          );
          const verdict =
            failed > 0
              ? style.red(`${failed} problem(s) to fix before the demo or the tests can run`)
              : warned > 0
                ? style.yellow(`ready; ${warned} note(s) above`)
                : style.green('ready: everything checks out');
          return `${table}\n\n${verdict}`;
        });
        if (failed > 0) ctx.exitCode = ExitCode.failed;
      }),
    );
}
