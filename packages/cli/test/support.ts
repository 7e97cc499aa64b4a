import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runCli } from '../src/index.js';
import type { CliIo } from '../src/index.js';

/** A command run in-process: exit code and everything written. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `tollgate <argv>` in-process with captured output (no TTY, no colour). */
export async function cli(
  argv: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (t: string) => (stdout += t), isTTY: false },
    stderr: { write: (t: string) => (stderr += t), isTTY: false },
    env: { PATH: process.env.PATH, ...options.env },
    cwd: options.cwd ?? process.cwd(),
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

/** A scratch folder with `files` (relative path → content); removed by `cleanup`. */
export async function scratch(files: Record<string, string> = {}) {
  const root = await mkdtemp(join(tmpdir(), 'tollgate-cli-'));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return { root, cleanup: () => rm(root, { recursive: true, force: true }) };
}
