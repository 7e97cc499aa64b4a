/**
 * Per-call overhead of the http kind against a direct `fetch` of the same Directus operation
 * (GET /items/tickets?limit=5), measured side by side in one run, alternating so load affects
 * both alike. Tollgate's path: argument validation, compile, pinned DNS + send with the byte
 * cap, response validation with Ajv, shaping. `--smoke` (CI) makes 20 calls of each.
 */
import { httpConnector } from '../src/index.js';
import { directus, ticketsDeclared } from '../test/directus.js';
import { applyDiscovery, principal, testCredentials } from '../test/support.js';

const smoke = process.argv.includes('--smoke');
const calls = smoke ? 20 : 400;

const declared = ticketsDeclared();
const resource = applyDiscovery(
  declared,
  await httpConnector.discover(declared['spec'] as never, testCredentials),
);
const support = principal(resource, ['support']);
const url = `${directus.url}/items/tickets?limit=5&offset=0&fields=*`;

async function direct(): Promise<void> {
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${directus.token}`, accept: 'application/json' },
  });
  await res.json();
}
async function tollgate(): Promise<void> {
  await support.call('list_tickets', { limit: 5 });
}

const times: Record<'direct' | 'tollgate', number[]> = { direct: [], tollgate: [] };
for (let i = 0; i < 5; i++) {
  await direct();
  await tollgate();
}
for (let i = 0; i < calls; i++) {
  for (const [name, fn] of i % 2 === 0
    ? ([
        ['direct', direct],
        ['tollgate', tollgate],
      ] as const)
    : ([
        ['tollgate', tollgate],
        ['direct', direct],
      ] as const)) {
    const started = performance.now();
    await fn();
    times[name].push(performance.now() - started);
  }
}

const pct = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
};
const row = (name: 'direct' | 'tollgate') =>
  `${name.padEnd(9)} p50 ${pct(times[name], 50).toFixed(2)} ms  p99 ${pct(times[name], 99).toFixed(2)} ms`;
process.stdout.write(`http kind vs direct fetch, ${calls} calls each${smoke ? ' (smoke)' : ''}\n`);
process.stdout.write(`${row('direct')}\n${row('tollgate')}\n`);
process.stdout.write(
  `ratio     p50 ${(pct(times.tollgate, 50) / pct(times.direct, 50)).toFixed(2)}x  p99 ${(pct(times.tollgate, 99) / pct(times.direct, 99)).toFixed(2)}x\n`,
);
