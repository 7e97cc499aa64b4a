/**
 * `pnpm bench`: runs every benchmark one after another (never in parallel — the machine is
 * small and noisy) and prints each one's report. Each benchmark measures its alternatives side
 * by side in one run and reports ratios, so numbers from different runs need not be compared.
 *
 *   tsx test/bench/run.ts [--smoke] [--pure | --infra] [part of a path …]
 *   tsx test/bench/run.ts --check     only check that every *.bench.ts is listed (pnpm lint)
 *
 * `--smoke` (CI) gives each benchmark its `--smoke` flag: seconds each, to show it still runs.
 * `--pure` runs those that need no server, `--infra` those that need deploy/local's.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benches, listProblems } from './benches.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const flags = new Set(process.argv.slice(2).filter((a) => a.startsWith('--')));
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
for (const flag of flags) {
  if (!['--smoke', '--pure', '--infra', '--check'].includes(flag)) {
    process.stderr.write(`unknown flag ${flag} (known: --smoke, --pure, --infra, --check)\n`);
    process.exit(2);
  }
}

const problems = listProblems(root);
for (const p of problems) process.stderr.write(`${p}\n`);
if (problems.length > 0 || flags.has('--check')) process.exit(problems.length > 0 ? 1 : 0);

let failed = 0;
const tsx = `${root}node_modules/.bin/tsx`;
for (const bench of benches) {
  if (only.length > 0 && !only.some((o) => bench.script.includes(o))) continue;
  if (flags.has('--pure') && bench.needsInfra) continue;
  if (flags.has('--infra') && !bench.needsInfra) continue;
  process.stdout.write(`\n=== ${bench.name} (${bench.script})\n`);
  const started = Date.now();
  const args = [bench.script, ...(flags.has('--smoke') ? ['--smoke'] : [])];
  const run = spawnSync(tsx, args, { cwd: root, stdio: 'inherit', env: process.env });
  const took = `${((Date.now() - started) / 1000).toFixed(1)} s`;
  if (run.status !== 0) {
    failed++;
    process.stdout.write(`!!! ${bench.name} exited with ${run.status ?? run.signal} (${took})\n`);
  } else {
    process.stdout.write(`--- ${bench.name}: ${took}\n`);
  }
}
process.exit(failed > 0 ? 1 : 0);
