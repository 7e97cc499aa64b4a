/**
 * The randomized fault campaign as a test suite: one node (`chaos.int.test.ts`) or a 3-node NATS
 * cluster (`chaos-cluster.int.test.ts`). `TOLLGATE_CHAOS_SEED` fixes the seed (printed with every
 * trial; default: a fresh one for the full campaign, a fixed one for the smoke run),
 * `TOLLGATE_CHAOS_TRIALS` the count, `TOLLGATE_CHAOS_TRIAL` reruns one trial of that seed. The
 * report goes to stdout and to `.tollgate/chaos/<seed>.json` (`<seed>-cluster.json`). The smoke
 * run holds each fault 0.5–1.5 s, the full one 1–3 s.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/process.js';
import { CONVERGE_WITHIN_MS, LOST_AFTER_MS, runCampaign } from './campaign.js';
import { startChaosStack } from './stack.js';
import type { ChaosStack } from './stack.js';

/**
 * `smoke`: the trials and seed of the smoke run (in every test run). It replays one seed, so a
 * red run means a regression, not a new draw; the full campaign draws a fresh seed each time.
 */
export function campaignSuite(options: {
  cluster: boolean;
  smoke: { trials: number; seed: number };
}): void {
  const env = process.env;
  const TRIALS = Number(env['TOLLGATE_CHAOS_TRIALS'] ?? options.smoke.trials);
  const SEED = env['TOLLGATE_CHAOS_SEED']
    ? Number(env['TOLLGATE_CHAOS_SEED'])
    : TRIALS > options.smoke.trials
      ? Date.now() % 2 ** 31
      : options.smoke.seed;
  const ONLY =
    env['TOLLGATE_CHAOS_TRIAL'] === undefined ? undefined : Number(env['TOLLGATE_CHAOS_TRIAL']);
  for (const [name, value] of [
    ['TOLLGATE_CHAOS_SEED', SEED],
    ['TOLLGATE_CHAOS_TRIALS', TRIALS],
    ['TOLLGATE_CHAOS_TRIAL', ONLY ?? 0],
  ] as const) {
    if (!Number.isInteger(value) || value < 0)
      throw new Error(`${name} must be a whole number ≥ 0 (got "${env[name]}")`);
  }
  const shape = options.cluster ? 'a 3-node NATS cluster' : 'one NATS node';
  const tag = options.cluster ? 'chaos cluster' : 'chaos';

  let stack: ChaosStack;
  const say = (line: string) => process.stdout.write(`[${tag}] ${line}\n`);

  beforeAll(async () => {
    stack = await startChaosStack({ cluster: options.cluster });
  }, 240_000);
  afterAll(async () => {
    await stack?.stop();
  });

  describe(`faults - randomized campaign on ${shape}`, () => {
    it(
      `chaos - ${ONLY === undefined ? TRIALS : 1} trials of seed ${SEED}: every invariant holds and the system converges within ${CONVERGE_WITHIN_MS / 1000} s`,
      async () => {
        const report = await runCampaign(stack, {
          seed: SEED,
          trials: TRIALS,
          ...(ONLY === undefined ? {} : { only: ONLY }),
          holdMs: TRIALS > options.smoke.trials ? [1_000, 3_000] : [500, 1_500],
          log: say,
        });
        say(
          `seed ${SEED}: fault | trials | violations | of them late / lost in audit | recovery p50 ms | p99 ms`,
        );
        for (const [fault, row] of Object.entries(report.byFault))
          say(
            `${fault} | ${row.trials} | ${row.violations} | ${row.late} / ${row.lost} | ${row.p50} | ${row.p99}`,
          );
        const dir = join(repoRoot, '.tollgate', 'chaos');
        await mkdir(dir, { recursive: true });
        const file = `${SEED}${options.cluster ? '-cluster' : ''}.json`;
        await writeFile(join(dir, file), JSON.stringify(report, null, 2));
        const failing = report.trials.filter((t) => t.violations.length > 0);
        if (failing.length > 0) {
          // What the services said (warnings and worse, current processes) next to the report.
          const logs = Object.fromEntries(
            [stack.audit, ...stack.executors].map((instance, i) => [
              `${instance.name}-${i}`,
              instance.running.lines.filter((line) => Number(line['level'] ?? 0) >= 40),
            ]),
          );
          await writeFile(join(dir, file.replace('.json', '-logs.json')), JSON.stringify(logs));
        }
        expect(
          failing.map(
            (t) =>
              `TOLLGATE_CHAOS_SEED=${SEED} TOLLGATE_CHAOS_TRIAL=${t.index}: ${t.fault}: ${t.violations.join('; ')}`,
          ),
        ).toEqual([]);
        expect(report.trials.every((t) => t.calls > 0)).toBe(true);
      },
      (ONLY === undefined ? TRIALS : 1) * 60_000 + LOST_AFTER_MS + 30_000,
    );
  });
}
