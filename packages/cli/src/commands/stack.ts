import type { Command } from 'commander';
import type { ActionRunner, CliContext } from '../context.js';
import { ExitCode } from '../errors.js';
import { renderTable } from '../output/table.js';
import { stackDown, stackStatus, stackUp } from '../stack/stack.js';
import type { StackStatus } from '../stack/stack.js';
import type { StackProgress } from '../stack/status.js';
import { positiveInt } from './parse.js';
import { CLUSTER_INSTANCES } from '../stack/services.js';

/** `tollgate up | down | status`: the local stack. */
export function registerStack(program: Command, run: ActionRunner): void {
  program
    .command('up')
    .description(
      'start the local infrastructure, every service, the web console and the MCP endpoint, wait until healthy',
    )
    .option('--no-infra', 'do not run deploy/local/up.sh (the infrastructure is managed elsewhere)')
    .option(
      '--cluster',
      `cluster mode: a NATS cluster (TOLLGATE_CLUSTER nodes, default 3) with 3 replicas of every stream and bucket, and ${CLUSTER_INSTANCES} instances of every service (ports +100 for the second)`,
    )
    .option('--timeout <seconds>', 'how long each service may take to become healthy', '120')
    .action(
      run(async (ctx, options: { infra: boolean; cluster?: boolean; timeout: string }) => {
        const status = await stackUp(ctx.home, {
          env: ctx.env,
          skipInfra: !options.infra,
          cluster: options.cluster === true,
          timeoutMs: positiveInt('--timeout', options.timeout) * 1000,
          progress: progressOf(ctx),
        });
        ctx.out.result(status, () => renderStatus(ctx, status, 'up'));
      }),
    );

  program
    .command('down')
    .description('stop the services started by `up`, then the local infrastructure')
    .option(
      '--keep-infra',
      'leave the local infrastructure (NATS, the databases, the upstreams) running',
    )
    .option('--grace <seconds>', 'how long a service may take to stop before it is killed', '15')
    .action(
      run(async (ctx, options: { keepInfra?: boolean; grace: string }) => {
        const result = await stackDown(ctx.home, {
          env: ctx.env,
          keepInfra: options.keepInfra === true,
          graceMs: positiveInt('--grace', options.grace) * 1000,
          progress: progressOf(ctx),
        });
        ctx.out.result(result, () => {
          const stopped = result.services.filter((s) => s.result !== 'not_running');
          const services =
            stopped.length === 0
              ? 'no services were running'
              : `stopped ${stopped.map((s) => s.instance).join(', ')}`;
          return `${services}; infrastructure ${result.infra === 'kept' ? 'left running' : 'stopped'}`;
        });
      }),
    );

  program
    .command('status')
    .description('show the infrastructure and each service: state, pid, address, log')
    .action(
      run(async (ctx) => {
        const status = await stackStatus(ctx.home, ctx.env);
        ctx.out.result(status, () => renderStatus(ctx, status, 'status'));
        if (!status.healthy) ctx.exitCode = ExitCode.failed;
      }),
    );
}

function progressOf(ctx: CliContext): StackProgress {
  return { step: (label) => ctx.out.progress(label), warn: (text) => ctx.out.warn(text) };
}

function renderStatus(ctx: CliContext, status: StackStatus, mode: 'up' | 'status'): string {
  const { style } = ctx.out;
  const state = (text: string, ok: boolean) => (ok ? style.green(text) : style.red(text));
  const rows = [
    ...status.infra.map((s) => ({
      component: s.name,
      kind: 'infra',
      state: state(
        s.state === 'running' ? (s.healthy ? 'healthy' : 'unhealthy') : 'stopped',
        s.healthy,
      ),
      pid: s.pid === undefined ? '-' : String(s.pid),
      address: s.address,
      note: '',
    })),
    ...status.services.map((s) => ({
      component: s.instance,
      kind: 'service',
      state: state(s.state, s.state === 'running' || s.state === 'external'),
      pid: s.pid === undefined ? '-' : String(s.pid),
      address: `grpc://${s.address}`,
      note:
        mode === 'up' && s.action ? s.action.replace('_', ' ') : s.state === 'stopped' ? '' : s.log,
    })),
  ];
  const table = renderTable(
    [
      { header: 'COMPONENT', cell: (r: (typeof rows)[number]) => r.component },
      { header: 'KIND', cell: (r) => r.kind },
      { header: 'STATE', cell: (r) => r.state },
      { header: 'PID', cell: (r) => r.pid, right: true },
      { header: 'ADDRESS', cell: (r) => r.address },
      { header: mode === 'up' ? 'ACTION' : 'LOG', cell: (r) => r.note, max: 80 },
    ],
    rows,
    style,
  );
  const footer = [
    `console: ${style.cyan(status.console)}`,
    `MCP clients connect to ${style.cyan(status.mcp)} (or launch \`tollgate mcp --as AGENT\`)`,
    `agents connect to ${style.cyan(status.nats)} (tools: tollgate.v1.svc.synthesizer.list_tools)`,
    `state: ${status.home}   trusted issuers: ${status.trustedIssuersFile}`,
    ...(status.cluster
      ? [
          `cluster mode: ${CLUSTER_INSTANCES} instances of every service (the second on every port +100: gRPC, the console, MCP), streams and buckets at 3 replicas`,
        ]
      : []),
  ];
  const verdict = status.healthy
    ? style.green(mode === 'up' ? 'the stack is up' : 'all healthy')
    : style.red('not everything is healthy');
  return [table, '', ...footer, verdict].join('\n');
}
