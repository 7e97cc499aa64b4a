/**
 * `pnpm bench`: runs every benchmark one after another (never in parallel — the machine is
 * small and noisy) and prints each one's report. Each benchmark measures its alternatives side
 * by side in one run and reports ratios, so numbers from different runs need not be compared.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

const benches: Array<{ name: string; script: string; needsInfra: boolean }> = [
  {
    name: 'tool synthesis, validation and recall',
    script: 'packages/connectors/elasticsearch/bench/synthesis.bench.ts',
    needsInfra: false,
  },
  {
    name: 'local policy decisions',
    script: 'packages/policy/bench/decide.bench.ts',
    needsInfra: false,
  },
  {
    name: 'executor: direct Elasticsearch vs through Tollgate',
    script: 'test/bench/executor.bench.ts',
    needsInfra: true,
  },
  { name: 'synthesizer ListTools', script: 'test/bench/synthesizer.bench.ts', needsInfra: true },
  {
    name: 'MCP tools/call over Streamable HTTP vs NATS SDK vs direct',
    script: 'test/bench/mcp.bench.ts',
    needsInfra: true,
  },
  {
    name: 'MCP tool listings in o200k tokens (orders agents)',
    script: 'test/bench/mcp-tokens.bench.ts',
    needsInfra: false,
  },
  {
    name: 'registry apply→KV and List',
    script: 'services/registry/bench/registry.bench.ts',
    needsInfra: true,
  },
  {
    name: 'policy bundle propagation',
    script: 'services/policy/bench/propagation.bench.ts',
    needsInfra: true,
  },
  { name: 'audit ingest', script: 'services/audit/bench/ingest.bench.ts', needsInfra: true },
  {
    name: 'memory screen: precision and recall on the labelled corpus',
    script: 'services/memory/bench/screen.bench.ts',
    needsInfra: false,
  },
  {
    name: 'console: first page JavaScript and time to interactive',
    script: 'services/console/bench/page-load.bench.ts',
    needsInfra: true,
  },
];

const only = process.argv.slice(2);
let failed = 0;
const tsx = `${root}node_modules/.bin/tsx`;
for (const bench of benches) {
  if (only.length > 0 && !only.some((o) => bench.script.includes(o))) continue;
  if (!existsSync(`${root}${bench.script}`)) continue;
  process.stdout.write(`\n=== ${bench.name} (${bench.script})\n`);
  const run = spawnSync(tsx, [bench.script], { cwd: root, stdio: 'inherit', env: process.env });
  if (run.status !== 0) {
    failed++;
    process.stdout.write(`!!! ${bench.name} exited with ${run.status}\n`);
  }
}
process.exit(failed > 0 ? 1 : 0);
