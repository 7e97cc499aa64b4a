import type { Command } from 'commander';
import type { ActionRunner } from '../context.js';
import { usageError } from '../errors.js';

/**
 * `tollgate completion bash|zsh`: a completion script for the commands, subcommands and options
 * of this build (generated from the command tree, so it cannot go stale). Install with
 * `source <(tollgate completion bash)` in ~/.bashrc, or the zsh equivalent.
 */
export function registerCompletion(program: Command, run: ActionRunner): void {
  program
    .command('completion')
    .description(
      'print a shell completion script (bash or zsh): source <(tollgate completion bash)',
    )
    .argument('<shell>', 'bash or zsh')
    .action(
      run(async (ctx, shell: string) => {
        if (shell !== 'bash' && shell !== 'zsh')
          throw usageError(`shell must be bash or zsh, got ${JSON.stringify(shell)}`);
        ctx.io.stdout.write(completionScript(program, shell));
      }),
    );
}

export function completionScript(program: Command, shell: 'bash' | 'zsh'): string {
  const words = (command: Command) => [
    ...command.commands.map((c) => c.name()),
    ...command.options.map((o) => o.long ?? o.short ?? '').filter(Boolean),
  ];
  const cases = program.commands
    .map((c) => `    ${c.name()}) words="${words(c).join(' ')}" ;;`)
    .join('\n');
  const body = `_tollgate() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" words
  if [ "$COMP_CWORD" -le 1 ]; then
    words="${words(program).join(' ')}"
  else
    case "\${COMP_WORDS[1]}" in
${cases}
    *) words="" ;;
    esac
  fi
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
`;
  return shell === 'bash'
    ? `# tollgate bash completion\n${body}complete -o default -F _tollgate tollgate\n`
    : `# tollgate zsh completion (bash-style)\nautoload -U +X bashcompinit && bashcompinit\n${body}complete -o default -F _tollgate tollgate\n`;
}
