/**
 * Micro-benchmark of the pure half of tool synthesis: synthesizing a 200-field resource,
 * compiling and using a cached validator, and recall over 10,000 resources. A runner, not a
 * test: it reports numbers and asserts nothing. Run: `npx tsx packages/connectors/elasticsearch/bench/synthesis.bench.ts`
 * (`--smoke`, for CI: 20 runs of each).
 */
import { pathToFileURL } from 'node:url';
import { RecallIndex, compileToolValidator, estimateTokens, renderTool } from '@tollgate/core';
import type { PermissionSet, RecallDocument, ToolDefinition } from '@tollgate/core';
import { syntheticResources } from '../../../core/test/recall-fixtures.js';
import { permissionsFromAccess, synthesizeTools, validatorCache } from '../test/family/bound.js';
import { orders, wideResource } from '../../../core/test/synthesis-fixtures.js';

/** Timings of one measured operation, in microseconds. */
export interface BenchStats {
  runs: number;
  meanUs: number;
  p50Us: number;
  p99Us: number;
}

export interface SynthesisBenchReport {
  /** synthesizeTools on a 200-field resource (5 tools). */
  synthesize200Fields: BenchStats;
  /** compileToolValidator on the es_orders search tool, cold (once per version × permissions). */
  compileOrdersSearch: BenchStats;
  /** One valid search call through a validator taken from ToolValidatorCache. */
  validateCachedCall: BenchStats;
  /** One invalid call, explained (the slower path). */
  validateInvalidCall: BenchStats;
  /** Recall search in one scope of 10,000 resources spread over 200 scopes. */
  recall10kSpread: BenchStats;
  /** Recall search over 10,000 resources all in one scope (worst case). */
  recall10kOneScope: BenchStats;
  /** Estimated tokens (estimateTokens) of the es_orders tool set as an agent sees it, per format. */
  ordersToolSetTokens: Record<string, number>;
}

function measure(runs: number, fn: () => unknown): BenchStats {
  for (let i = 0; i < Math.min(50, runs); i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number): number =>
    samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? 0;
  const round = (us: number): number => Math.round(us * 10) / 10;
  return {
    runs,
    meanUs: round(samples.reduce((a, b) => a + b, 0) / runs),
    p50Us: round(at(0.5)),
    p99Us: round(at(0.99)),
  };
}

function recallCorpus(scopes: number, perScope: number): RecallDocument[] {
  const kinds = syntheticResources().filter(
    (d) => d.tenant === 'team-mixed' && d.environment === 'prod',
  );
  const docs: RecallDocument[] = [];
  for (let s = 0; s < scopes; s++) {
    for (let i = 0; i < perScope; i++) {
      const kind = kinds[i % kinds.length] as RecallDocument;
      const name = `${kind.name}_${Math.floor(i / kinds.length)}`;
      docs.push({
        ...kind,
        id: `tenant-${s}/prod/${name}`,
        tenant: `tenant-${s}`,
        environment: 'prod',
        name,
      });
    }
  }
  return docs;
}

export function runSynthesisBench(options: { runs?: number } = {}): SynthesisBenchReport {
  const runs = options.runs ?? 500;
  const wide = wideResource(200);
  const widePermissions = permissionsFromAccess(wide, {
    roles: ['analyst'],
    agent: 'bench',
  }) as PermissionSet;
  const synthesize200Fields = measure(runs, () => synthesizeTools(wide, widePermissions));

  const resource = orders();
  const permissions = permissionsFromAccess(resource, {
    roles: ['order_ops'],
    agent: 'bench',
  }) as PermissionSet;
  const search = synthesizeTools(resource, permissions)[0] as ToolDefinition;
  const compileOrdersSearch = measure(Math.max(20, Math.floor(runs / 10)), () =>
    compileToolValidator(search),
  );

  const cache = validatorCache();
  const call = {
    filters: [
      { field: 'status', op: 'in', value: ['paid', 'shipped'] },
      {
        field: 'created_at',
        op: 'between',
        value: ['2024-05-01T00:00:00Z', '2024-06-01T00:00:00Z'],
      },
      { field: 'amount', op: 'gte', value: 100 },
    ],
    fields: ['id', 'amount', 'status'],
    sort: [{ field: 'created_at', order: 'desc' }],
    limit: 20,
    cursor: null,
  };
  const bad = {
    ...call,
    filters: [{ field: 'internal_note', op: 'match', value: 'x' }],
    limit: 1000,
  };
  const validateCachedCall = measure(runs * 20, () =>
    cache.validatorFor(resource, permissions, 'es_orders_search')?.validate(call),
  );
  const validateInvalidCall = measure(runs * 4, () =>
    cache.validatorFor(resource, permissions, 'es_orders_search')?.validate(bad),
  );

  const queries = [
    'find order 12345',
    '搜索 id 为 12345 的订单',
    'shipment tracking number',
    'refunds of customers',
  ];
  let q = 0;
  const spread = new RecallIndex();
  for (const doc of recallCorpus(200, 50)) spread.upsert(doc);
  const recall10kSpread = measure(runs * 4, () =>
    spread.search(queries[q++ % queries.length] as string, {
      scope: { tenant: 'tenant-7', environment: 'prod' },
      topK: 10,
    }),
  );
  const single = new RecallIndex();
  for (const doc of recallCorpus(1, 10_000)) single.upsert(doc);
  const recall10kOneScope = measure(runs, () =>
    single.search(queries[q++ % queries.length] as string, {
      scope: { tenant: 'tenant-0', environment: 'prod' },
      topK: 10,
    }),
  );

  const readTools = synthesizeTools(
    resource,
    permissionsFromAccess(resource, { roles: ['support'], agent: 'b' }) as PermissionSet,
  );
  const ordersToolSetTokens = Object.fromEntries(
    (['json_schema', 'openai', 'anthropic', 'mcp'] as const).map((format) => [
      format,
      estimateTokens(JSON.stringify(readTools.map((tool) => renderTool(tool, format)))),
    ]),
  );

  return {
    synthesize200Fields,
    compileOrdersSearch,
    validateCachedCall,
    validateInvalidCall,
    recall10kSpread,
    recall10kOneScope,
    ordersToolSetTokens,
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const smoke = process.argv.includes('--smoke') || process.env['BENCH_SMOKE'] === '1';
  const report = runSynthesisBench(smoke ? { runs: 20 } : {});
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}
