import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';

async function script(shell: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['completion', shell], {
    stdout: { write: (t: string) => ((out += t), true), isTTY: false },
    stderr: { write: (t: string) => ((err += t), true), isTTY: false },
    env: {},
  } as never);
  return { code, out, err };
}

function complete(completion: string, words: string[]): string[] {
  const program = `${completion}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _tollgate; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['-c', program], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

describe('completion', () => {
  it('completion - the bash script completes commands and their subcommands from the command tree', async () => {
    const { code, out } = await script('bash');
    expect(code).toBe(0);
    expect(complete(out, ['tollgate', 'do']).sort()).toEqual(['doctor', 'down']);
    expect(complete(out, ['tollgate', 'memory', ''])).toEqual(
      expect.arrayContaining(['prefs', 'candidates', 'skills']),
    );
    expect(complete(out, ['tollgate', 'resources', 'hi'])).toEqual(['history']);
  });

  it('completion - an unknown shell is a usage error', async () => {
    const { code, err } = await script('fish');
    expect(code).toBe(2);
    expect(err).toContain('shell must be bash or zsh');
  });
});
