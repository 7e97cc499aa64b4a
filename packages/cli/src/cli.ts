import { Command, CommanderError } from 'commander';
import { CliContext } from './context.js';
import type { ActionRunner, GlobalOptions } from './context.js';
import { ExitCode, toFailure, usageError } from './errors.js';
import { Output } from './output/output.js';
import type { CliIo } from './output/output.js';
import { registerApply } from './commands/apply.js';
import { registerApprovals } from './commands/approvals.js';
import { registerAudit } from './commands/audit.js';
import { registerCall } from './commands/call.js';
import { registerChat } from './commands/chat.js';
import { registerCompletion } from './commands/completion.js';
import { registerDoctor } from './commands/doctor.js';
import { registerDiscover } from './commands/discover.js';
import { registerMcp } from './commands/mcp.js';
import { registerMemory } from './commands/memory.js';
import { registerResources } from './commands/resources.js';
import { registerStack } from './commands/stack.js';
import { registerToken } from './commands/token.js';
import { registerTools } from './commands/tools.js';

/**
 * Runs `tollgate <argv…>` against `io` and resolves the exit code: 0 done, 1 the operation
 * failed, 2 the command line was wrong. Never throws and never exits the process, so tests
 * and the demo can run commands in-process.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const json = argv.includes('--json');
  let context: CliContext | undefined;
  const run: ActionRunner =
    (action) =>
    async (...args) => {
      const command = args[args.length - 1] as Command;
      context = new CliContext(io, command.optsWithGlobals<GlobalOptions>());
      try {
        await action(context, ...args);
      } finally {
        await context.close();
      }
    };
  const program = buildProgram(io, run);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return context?.exitCode ?? ExitCode.ok;
  } catch (err) {
    const out = context?.out ?? new Output(io, { json });
    if (err instanceof CommanderError) {
      if (err.exitCode === 0) return ExitCode.ok;
      const message =
        err.code === 'commander.help' || err.code === 'commander.helpDisplayed'
          ? 'a command is required (see the list above)'
          : err.message.replace(/^error:\s*/, '');
      out.failure(toFailure(usageError(message)));
      return ExitCode.usage;
    }
    const failure = context ? context.failureOf(err) : toFailure(err);
    out.failure(failure);
    return failure.exitCode;
  }
}

function buildProgram(io: CliIo, run: ActionRunner): Command {
  const program = new Command('tollgate')
    .description('Tollgate: governed tools for LLM agents over real data systems.')
    .option('--json', 'machine output: one JSON document on stdout, nothing else')
    .option('--tenant <name>', 'tenant to act in (default: TOLLGATE_TENANT or team-a)')
    .option('--env <name>', 'environment to act in (default: TOLLGATE_ENV or prod)')
    .showSuggestionAfterError(true)
    .allowExcessArguments(false);
  const configure = (command: Command): void => {
    command
      .exitOverride()
      .allowExcessArguments(false)
      .configureOutput({
        writeOut: (text) => io.stdout.write(text),
        writeErr: (text) => io.stderr.write(text),
        outputError: () => undefined,
      });
    for (const sub of command.commands) configure(sub);
  };
  registerStack(program, run);
  registerApply(program, run);
  registerResources(program, run);
  registerDiscover(program, run);
  registerToken(program, run);
  registerTools(program, run);
  registerCall(program, run);
  registerChat(program, run);
  registerApprovals(program, run);
  registerMemory(program, run);
  registerMcp(program, run);
  registerAudit(program, run);
  registerDoctor(program, run);
  registerCompletion(program, run);
  configure(program);
  return program;
}
