/**
 * Every benchmark of the repository, in the order `pnpm bench` runs them. A `*.bench.ts` file
 * that is not in this list makes `test/bench/run.ts` (and so `pnpm lint` and CI) fail, so no
 * benchmark can quietly stop running.
 */
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** One benchmark script. */
export interface Bench {
  name: string;
  /** Path from the repository root. */
  script: string;
  /** Needs the servers of deploy/local (CI runs these after `pnpm test`, the others before). */
  needsInfra: boolean;
}

export const benches: readonly Bench[] = [
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
    name: 'MCP tool listings in o200k tokens (orders agents)',
    script: 'test/bench/mcp-tokens.bench.ts',
    needsInfra: false,
  },
  {
    name: 'mcp kind: upstream tool calls direct vs governed, sandbox start',
    script: 'packages/connectors/mcp/bench/calls.bench.ts',
    needsInfra: false,
  },
  {
    name: 'memory screen: precision and recall on the labelled corpus',
    script: 'services/memory/bench/screen.bench.ts',
    needsInfra: false,
  },
  {
    name: 'executor: direct Elasticsearch vs through Tollgate',
    script: 'test/bench/executor.bench.ts',
    needsInfra: true,
  },
  {
    name: 'http kind: a Directus call through Tollgate vs direct fetch',
    script: 'packages/connectors/http/bench/call.bench.ts',
    needsInfra: true,
  },
  {
    name: 'SQL: direct driver vs the postgres and mysql connectors vs MCP Toolbox',
    script: 'test/bench/sql.bench.ts',
    needsInfra: true,
  },
  { name: 'synthesizer ListTools', script: 'test/bench/synthesizer.bench.ts', needsInfra: true },
  {
    name: 'MCP tools/call over Streamable HTTP vs NATS SDK vs direct',
    script: 'test/bench/mcp.bench.ts',
    needsInfra: true,
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
    name: 'console: first page JavaScript and time to interactive',
    script: 'services/console/bench/page-load.bench.ts',
    needsInfra: true,
  },
];

const SKIPPED = new Set(['node_modules', 'dist', '.git', '.tollgate']);

/** Every `*.bench.ts` under `root`, as paths from it with forward slashes. */
export function benchFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name) && !entry.name.startsWith('.')) walk(join(dir, entry.name));
      } else if (entry.name.endsWith('.bench.ts')) {
        found.push(relative(root, join(dir, entry.name)).split(sep).join('/'));
      }
    }
  };
  walk(root);
  return found.sort();
}

/** What is wrong with the list: files it misses, and entries whose file is gone. */
export function listProblems(root: string): string[] {
  const files = benchFiles(root);
  const listed = new Set(benches.map((b) => b.script));
  return [
    ...files
      .filter((f) => !listed.has(f))
      .map((f) => `${f} is a benchmark that nothing runs: add it to test/bench/benches.ts`),
    ...[...listed]
      .filter((s) => !files.includes(s))
      .map((s) => `${s} is listed in test/bench/benches.ts but does not exist`),
  ];
}
