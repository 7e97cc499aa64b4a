/**
 * Local decision latency. Run: `npx tsx packages/policy/bench/decide.bench.ts`.
 * Builds a realistic tenant bundle (12 resources, 40 agents, 49 grants with IP and time-zone
 * conditions, deny and approval grants, raw Cedar) and measures p50/p99 over 20k decisions:
 * uncached (every decision goes to Cedar) and with the decision cache on a realistic mix.
 * `--smoke` (CI): 3k decisions per scenario, seconds.
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { TABLE_OPERATIONS } from '@tollgate/core';
import type { Operation } from '@tollgate/core';
import { preparsePolicySet, statefulIsAuthorized } from '@cedar-policy/cedar-wasm/nodejs';
import { LocalDecider, cedarWasmEngine, compileBundle } from '../src/index.js';
import type { CedarEngine } from '../src/index.js';
import type { BundleInputs, CallContext, Principal } from '../src/index.js';
import { agent, policy, resource } from '../test/fixtures.js';

/** Latency summary in microseconds. */
export interface LatencyReport {
  label: string;
  decisions: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  allowed: number;
  /** Mean µs spent inside Cedar per decision, when measured. */
  cedarMean?: number;
}

const TENANT = 'bench';
const ROLES = ['support', 'order_ops', 'finance', 'analyst', 'auditor', 'intern'];
const ZONES = ['Europe/Berlin', 'Asia/Shanghai', 'America/New_York'];
/** The operations calls ask for: the table family's (every bench resource is a table). */
const OPERATIONS = TABLE_OPERATIONS.map((op) => op.name);

export function benchInputs(): BundleInputs {
  const resources = Array.from({ length: 12 }, (_, i) =>
    resource(
      `es_data_${i}`,
      {
        allowedRoles: [ROLES[i % 4] as string],
        readonly: i % 3 !== 0,
        maxLimit: 50 + i * 10,
        fieldRoles: { user_id: ['order_ops'], email: ['support', 'order_ops'] },
      },
      { tenant: TENANT },
    ),
  );
  const agents = Array.from({ length: 40 }, (_, i) =>
    agent(
      `agent_${i}`,
      [ROLES[i % ROLES.length] as string, ...(i % 7 === 0 ? ['intern'] : [])],
      TENANT,
    ),
  );
  const policies = resources.map((r, i) =>
    policy(
      `rules-${i}`,
      [
        {
          effect: 'allow',
          principals: { roles: [ROLES[(i + 1) % 4] as string] },
          actions: [`${r.descriptor.metadata.name}.search`, `${r.descriptor.metadata.name}.get`],
          conditions: {
            ipCidr: ['10.0.0.0/8', '2001:db8::/32'],
            timeWindow: `07:00-21:00 ${ZONES[i % 3]}`,
          },
          rateLimit: { requests: 60, perSeconds: 60 },
        },
        {
          effect: 'require_approval',
          principals: { roles: ['order_ops'] },
          actions: [`${r.descriptor.metadata.name}.write`],
        },
        {
          effect: 'allow',
          principals: { agents: [`agent_${i}`, `agent_${i + 12}`] },
          actions: [`${r.descriptor.metadata.name}.*`],
          conditions: { timeWindow: '22:00-06:00 Europe/Berlin' },
        },
        {
          effect: 'deny',
          principals: { roles: ['finance'] },
          actions: [`${r.descriptor.metadata.name}.count`],
          conditions: { ipCidr: ['192.168.0.0/16'] },
        },
      ],
      undefined,
      TENANT,
    ),
  );
  policies.push(
    policy(
      'global',
      [
        {
          effect: 'allow',
          principals: { roles: ['analyst'] },
          actions: ['*.count', '*.aggregate'],
        },
        { effect: 'deny', principals: { roles: ['intern'] }, actions: ['*.write'] },
      ],
      'forbid (principal, action == Action::"search", resource) when { context has limit && context.limit > 40 } unless { principal in Role::"order_ops" };',
      TENANT,
    ),
  );
  return { tenant: TENANT, version: 1, agents, policies, resources };
}

interface Call {
  principal: Principal;
  action: Operation;
  resource: string;
  context: CallContext;
}

/** Deterministic pseudo-random calls; `distinct` bounds how many different calls occur. */
function calls(count: number, distinct: number): Call[] {
  let seed = 42;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const pool: Call[] = Array.from({ length: distinct }, () => ({
    principal: { tenant: TENANT, agent: `agent_${next(40)}`, environment: 'prod' },
    action: OPERATIONS[next(OPERATIONS.length)] as Operation,
    resource: `es_data_${next(12)}`,
    context: {
      sourceIp: [`10.${next(255)}.${next(255)}.7`, '192.168.1.20', '2001:db8::17', '203.0.113.9'][
        next(4)
      ] as string,
      now: Date.parse('2025-06-02T00:00:00Z') + next(24) * 3_600_000,
      ...(next(3) === 0 ? { limit: 10 + next(60) } : {}),
    },
  }));
  return Array.from(
    { length: count },
    (_, i) => pool[distinct >= count ? i : next(distinct)] as Call,
  );
}

/** The engine with the time spent in `statefulIsAuthorized` added up. */
function timedEngine(): { engine: CedarEngine; spent: { us: number } } {
  const spent = { us: 0 };
  const engine: CedarEngine = {
    ...cedarWasmEngine,
    statefulIsAuthorized: (call) => {
      const start = performance.now();
      const answer = statefulIsAuthorized(call);
      spent.us += (performance.now() - start) * 1000;
      return answer;
    },
  };
  return { engine, spent };
}

/** Cedar's own floor on this machine: one trivial policy, an empty request. */
function cedarFloor(n: number): LatencyReport {
  preparsePolicySet('bench-floor', {
    staticPolicies: { p: 'permit (principal, action, resource);' },
  });
  const call = {
    principal: { type: 'Agent', id: 'a' },
    action: { type: 'Action', id: 'search' },
    resource: { type: 'Resource', id: 'r' },
    context: {},
    entities: [],
    preparsedPolicySetId: 'bench-floor',
  };
  for (let i = 0; i < 2_000; i++) statefulIsAuthorized(call);
  const samples = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    statefulIsAuthorized(call);
    samples[i] = (performance.now() - start) * 1000;
  }
  return summarize('Cedar floor (1 policy, empty)', samples, n);
}

function summarize(label: string, samples: Float64Array, allowed: number): LatencyReport {
  samples.sort();
  const round = (v: number) => Math.round(v * 10) / 10;
  const at = (q: number) =>
    round(samples[Math.min(samples.length - 1, Math.floor(samples.length * q))] as number);
  const mean = round(samples.reduce((a, b) => a + b, 0) / samples.length);
  return {
    label,
    decisions: samples.length,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    mean,
    allowed,
  };
}

function measure(
  label: string,
  decider: LocalDecider,
  work: Call[],
  spent?: { us: number },
): LatencyReport {
  for (const c of work.slice(0, 2_000))
    decider.decide(c.principal, c.action, c.resource, c.context);
  if (spent) spent.us = 0;
  const samples = new Float64Array(work.length);
  let allowed = 0;
  for (let i = 0; i < work.length; i++) {
    const c = work[i] as Call;
    const start = performance.now();
    const decision = decider.decide(c.principal, c.action, c.resource, c.context);
    samples[i] = (performance.now() - start) * 1000;
    if (decision.decision !== 'deny') allowed++;
  }
  const report = summarize(label, samples, allowed);
  return spent ? { ...report, cedarMean: Math.round((spent.us / work.length) * 10) / 10 } : report;
}

/** Runs the benchmark and returns one report per scenario. */
export function runDecideBench(decisions = 20_000): LatencyReport[] {
  const compiled = compileBundle(benchInputs());
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  const bundle = compiled.bundle;
  const timed = timedEngine();
  const uncached = LocalDecider.fromBundle(bundle, { cacheSize: 0, engine: timed.engine });
  const cached = LocalDecider.fromBundle(bundle);
  return [
    cedarFloor(decisions),
    measure('uncached, all distinct calls', uncached, calls(decisions, decisions), timed.spent),
    measure('cached, 2k distinct calls', cached, calls(decisions, 2_000)),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { bundle } = compileBundle(benchInputs()) as {
    bundle: { policies: unknown[]; entities: unknown[] };
  };
  process.stdout.write(
    `bundle: ${bundle.policies.length} policies, ${bundle.entities.length} entities\n`,
  );
  const smoke = process.argv.includes('--smoke') || process.env['BENCH_SMOKE'] === '1';
  for (const r of runDecideBench(smoke ? 3_000 : 20_000)) {
    process.stdout.write(
      `${r.label.padEnd(30)} n=${r.decisions} p50=${r.p50}µs p90=${r.p90}µs p99=${r.p99}µs mean=${r.mean}µs` +
        (r.cedarMean !== undefined ? ` (in Cedar ${r.cedarMean}µs)` : '') +
        ` allowed=${r.allowed}\n`,
    );
  }
}
