/**
 * How the demo talks: step titles, narration, and `$ tollgate …` commands run in-process
 * through the CLI (shown as typed, with their real output), or quietly with `--json` when the
 * demo needs their result.
 */
import { colourWanted, createStyle, runCli } from '../packages/cli/dist/index.js';
import type { CliIo, Style } from '../packages/cli/dist/index.js';

export class DemoError extends Error {}

export class Narrator {
  readonly env: NodeJS.ProcessEnv;
  readonly style: Style;

  constructor(env: NodeJS.ProcessEnv) {
    this.env = env;
    this.style = createStyle(colourWanted(process.stdout.isTTY, env));
  }

  title(step: string, text: string): void {
    const line = `━━ ${step}. ${text} `;
    process.stdout.write(`\n${this.style.bold(this.style.cyan(line.padEnd(78, '━')))}\n`);
  }

  say(text: string): void {
    process.stdout.write(`${this.style.dim(text)}\n`);
  }

  line(text = ''): void {
    process.stdout.write(`${text}\n`);
  }

  ok(text: string): void {
    process.stdout.write(`${this.style.green('✓')} ${text}\n`);
  }

  /**
   * A step that cannot run on this machine: says so and why, and the demo goes on — except
   * under `CI=true`, where everything the demo tells must run, so it fails.
   */
  skip(what: string, reason: string): void {
    if (this.env.CI === 'true') throw new DemoError(`${what} cannot run (CI=true): ${reason}`);
    process.stdout.write(`${this.style.yellow(`↷ skipped ${what}:`)} ${reason}\n`);
  }

  /** Shows `$ tollgate <args>` and runs it with its normal output; resolves the exit code. */
  async tollgate(args: string[], expect: number | 'any' = 0): Promise<number> {
    this.command(args);
    const code = await runCli(args, this.#io(process.stdout, process.stderr));
    if (expect !== 'any' && code !== expect) {
      throw new DemoError(`\`tollgate ${args.join(' ')}\` exited ${code}, expected ${expect}`);
    }
    return code;
  }

  /** Prints a command line as typed. */
  command(args: string[]): void {
    process.stdout.write(
      `\n${this.style.bold(this.style.magenta('$'))} ${this.style.bold(`tollgate ${args.map(quote).join(' ')}`)}\n`,
    );
  }

  /** Runs `tollgate --json <args>` quietly; resolves its exit code, document and stderr. */
  async run<T>(args: string[]): Promise<{ code: number; doc: T; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const code = await runCli(
      ['--json', ...args],
      this.#io({ write: (t: string) => (stdout += t) }, { write: (t: string) => (stderr += t) }),
    );
    return { code, doc: JSON.parse(stdout || 'null') as T, stderr };
  }

  /** Runs `tollgate --json <args>` quietly and returns its document; it must succeed. */
  async json<T>(args: string[]): Promise<T> {
    const { code, doc, stderr } = await this.run<T>(args);
    if (code !== 0) throw new DemoError(`\`tollgate ${args.join(' ')}\` failed: ${stderr.trim()}`);
    return doc;
  }

  /** Polls `check` every second until it yields a value, failing after `timeoutMs`. */
  async until<T>(
    what: string,
    check: () => Promise<T | undefined>,
    timeoutMs = 60_000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new DemoError(`${what}: not within ${timeoutMs / 1000}s`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }

  failed(err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`\n${this.style.red(`demo failed: ${message}`)}\n`);
    process.stderr.write(
      `${this.style.dim('see `pnpm tollgate status` and the logs in .tollgate/run/')}\n`,
    );
  }

  #io(stdout: CliIo['stdout'], stderr: CliIo['stderr']): CliIo {
    return { stdout, stderr, env: this.env, cwd: process.cwd() };
  }
}

/** A command-line argument as a shell would need it. */
function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}
