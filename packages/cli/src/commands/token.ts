import type { Command } from 'commander';
import type { ActionRunner } from '../context.js';
import { loadIssuer, mintToken } from '../stack/issuer.js';
import { renderFields } from '../output/table.js';
import { positiveInt } from './parse.js';

/** `tollgate token issue --agent NAME`: a signed principal token from the dev issuer. */
export function registerToken(program: Command, run: ActionRunner): void {
  const token = program.command('token').description('principal tokens (dev issuer)');
  token
    .command('issue')
    .description('mint a signed principal token for an agent from the local dev issuer')
    .requiredOption('--agent <name>', 'the agent (principal) the token is for')
    .option('--user <name>', 'the person the agent acts for')
    .option('--ttl <seconds>', 'lifetime', '3600')
    .action(
      run(async (ctx, options: { agent: string; user?: string; ttl: string }) => {
        const ttl = positiveInt('--ttl', options.ttl);
        const principal = ctx.principal(options.agent, options.user ? { user: options.user } : {});
        const keys = await loadIssuer(ctx.home);
        const minted = await mintToken(keys, principal, ttl);
        ctx.out.result(
          { token: minted.token, principal, issuer: keys.issuer, expiresAt: minted.expiresAt },
          () =>
            ctx.io.stdout.isTTY
              ? `${renderFields(
                  [
                    ['agent', principal.agent],
                    ['tenant', principal.tenant],
                    ['environment', principal.environment],
                    ['user', principal.user ?? '-'],
                    ['expires', minted.expiresAt],
                  ],
                  ctx.out.style,
                )}\n\n${minted.token}`
              : minted.token,
        );
      }),
    );
}
