/**
 * A newcomer's first minutes: a fresh clone (committed files only, no node_modules, no build)
 * in a temporary folder, set up by the script the README's two commands run first — the pinned
 * pnpm, the frozen install, the build — then `bin/tollgate doctor` finds the checkout ready, and
 * a second setup reuses everything and says so. (The README's commands themselves, `npm test`
 * and `npm run demo`, are what CI runs on its own clean clone.)
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/process.js';

let dir: string;
let clone: string;

function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      // A person's own defaults must not matter; nor may this checkout's tools on PATH.
      env: { ...process.env, TOLLGATE_TENANT: 'someone-else', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tollgate-fresh-'));
  clone = join(dir, 'tollgate');
  const cloned = await run('git', ['clone', '--quiet', '--no-hardlinks', repoRoot, clone], dir);
  if (cloned.code !== 0) throw new Error(`git clone failed: ${cloned.out}`);
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
}, 120_000);

describe('e2e - fresh clone', () => {
  it('e2e - the setup the two commands run brings a bare clone to a ready checkout, and a second run reuses it', async () => {
    expect(existsSync(join(clone, 'node_modules'))).toBe(false);
    const first = await run('bash', ['scripts/setup.sh'], clone);
    expect(first.code, first.out).toBe(0);
    expect(first.out).toContain('dependencies: pnpm install --frozen-lockfile');
    expect(existsSync(join(clone, 'packages', 'cli', 'dist', 'main.js'))).toBe(true);

    const doctor = await run(join(clone, 'bin', 'tollgate'), ['--json', 'doctor'], clone);
    const report = JSON.parse(doctor.out.slice(doctor.out.indexOf('{'))) as {
      checks: Array<{ area: string; name: string; state: string }>;
    };
    const checkout = report.checks.filter((c) => c.area === 'checkout');
    expect(checkout.map((c) => [c.name, c.state])).toEqual([
      ['dependencies', 'ok'],
      ['build', 'ok'],
    ]);
    expect(report.checks.find((c) => c.name === 'node')?.state).toBe('ok');

    const second = await run('bash', ['scripts/setup.sh'], clone);
    expect(second.code, second.out).toBe(0);
    expect(second.out).toContain('dependencies: up to date');
    expect(second.out).not.toContain('pnpm install');
  }, 900_000);
});
