/**
 * Drives the real `tollgate` binary (packages/cli/dist/main.js) the way a person or a script
 * does: a child process, its exit code, stdout and stderr.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { DEFAULT_CREDENTIAL_NAMESPACES } from '@tollgate/core';
import { repoRoot } from '../../support/process.js';

export const CLI = join(repoRoot, 'packages', 'cli', 'dist', 'main.js');

/**
 * Where scenarios put their tenant's credential (`<tenant>/<environment>/…`): a file namespace
 * of the stack, since each scenario has a tenant of its own and the services' environment is
 * fixed when they start.
 */
export const E2E_CREDENTIALS = join(repoRoot, '.tollgate', 'e2e-credentials');

/**
 * The environment the stack and every command run with: credential namespaces (the default
 * rules plus the scenarios' file namespace), the demo's credential for examples/orders as
 * written, no colour, and the scripted model whatever LLM the machine has configured (the
 * assertions follow its script).
 */
export const stackEnv: NodeJS.ProcessEnv = {
  ...process.env,
  TOLLGATE_CREDENTIAL_NAMESPACES: `${DEFAULT_CREDENTIAL_NAMESPACES},file://${E2E_CREDENTIALS}/{tenant}/{environment}/`,
  TOLLGATE_TEAM_A__PROD__ES_ORDERS: '{"kind":"none"}',
  TOLLGATE_LLM_BASE_URL: '',
  NO_COLOR: '1',
};

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `tollgate <args>`; never rejects on a non-zero exit (tests assert the code). */
export function tollgate(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: repoRoot,
      env: { ...stackEnv, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `tollgate ${args.join(' ')} did not finish within ${options.timeoutMs ?? 120_000} ms\n${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 120_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Runs `tollgate --json <args>`, expects exit 0 and exactly one JSON document on stdout. */
export async function tollgateJson<T = Record<string, unknown>>(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<T> {
  const run = await tollgate(['--json', ...args], options);
  if (run.code !== 0) {
    throw new Error(
      `tollgate --json ${args.join(' ')} exited ${run.code}: ${run.stderr}${run.stdout}`,
    );
  }
  return parseJson<T>(run.stdout);
}

/** The one JSON document a `--json` command printed (fails when there is anything else). */
export function parseJson<T>(stdout: string): T {
  return JSON.parse(stdout) as T;
}
