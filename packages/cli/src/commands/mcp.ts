import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { ActionRunner } from '../context.js';
import { CliError } from '../errors.js';
import { loadIssuer } from '../stack/issuer.js';
import { natsUrl } from '../stack/services.js';

/**
 * `tollgate mcp --as AGENT [--user NAME]`: serves that agent's tools over MCP stdio for a
 * desktop client that launches a command. stdin/stdout carry the protocol and nothing else;
 * the server (services/mcp's stdio entry) mints the agent's short-lived tokens from the dev
 * issuer and logs to stderr. Exits when the client closes stdin.
 */
export function registerMcp(program: Command, run: ActionRunner): void {
  program
    .command('mcp')
    .description("serve an agent's tools over MCP on stdin/stdout (for Claude Desktop, Cursor, …)")
    .requiredOption('--as <agent>', 'the agent whose tools are served')
    .option('--user <name>', 'the person the agent acts for')
    .action(
      run(async (ctx, options: { as: string; user?: string }) => {
        const principal = ctx.principal(options.as, options.user ? { user: options.user } : {});
        await loadIssuer(ctx.home);
        const checkout = ctx.home.checkout;
        const entry = checkout && join(checkout, 'services', 'mcp', 'dist', 'stdio.js');
        if (!entry || !existsSync(entry)) {
          throw new CliError(
            'NOT_BUILT',
            `the MCP server is not built${entry ? ` (${entry} is missing)` : ''}; run \`pnpm build\` in the Tollgate checkout`,
          );
        }
        const child = spawn(process.execPath, [entry], {
          stdio: 'inherit',
          env: {
            ...ctx.env,
            TOLLGATE_NATS_URL: natsUrl(ctx.env),
            TOLLGATE_MCP_AGENT: principal.agent,
            TOLLGATE_MCP_TENANT: principal.tenant,
            TOLLGATE_MCP_ENVIRONMENT: principal.environment,
            TOLLGATE_MCP_USER: principal.user ?? '',
            TOLLGATE_MCP_ISSUER_KEY_FILE: ctx.home.issuerKeyFile,
            TOLLGATE_LOG_LEVEL: ctx.env.TOLLGATE_LOG_LEVEL || 'warn',
          },
        });
        const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
        const onTerm = forward('SIGTERM');
        const onInt = forward('SIGINT');
        process.once('SIGTERM', onTerm);
        process.once('SIGINT', onInt);
        const code = await new Promise<number>((resolve, reject) => {
          child.once('error', reject);
          child.once('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
        });
        process.off('SIGTERM', onTerm);
        process.off('SIGINT', onInt);
        if (code !== 0) ctx.exitCode = code;
      }),
    );
}
