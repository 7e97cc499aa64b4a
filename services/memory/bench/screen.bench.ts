/**
 * Memory's last-line screen on its labelled corpus: precision, recall and the share of benign
 * facts refused, per corpus file, per label and per language, and what screening costs per text
 * (the instruction screen and the secret screen side by side, as a ratio). Targets: at least 95%
 * of attacks refused and at most 2% of benign facts refused; the run fails below them.
 *
 *   npx tsx services/memory/bench/screen.bench.ts          full (timing over many passes)
 *   npx tsx services/memory/bench/screen.bench.ts --smoke  one pass, no timing (CI)
 */
import { performance } from 'node:perf_hooks';
import { CORPUS_FILES, loadCorpus, scoreScreen } from '../corpus/evaluate.js';
import type { CorpusRow, ScreenScore } from '../corpus/evaluate.js';
import { findInjection } from '@tollgate/core';
import { secretReason } from '@tollgate/core';

const smoke = process.argv.includes('--smoke') || process.env['TOLLGATE_BENCH_SMOKE'] === '1';
const MIN_RECALL = 0.95;
const MAX_FALSE_POSITIVES = 0.02;

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const line = (name: string, s: ScreenScore) =>
  `${name.padEnd(22)} rows ${String(s.rows).padStart(4)}  attacks refused ${String(s.attacksRefused).padStart(3)}/${String(s.attacks).padEnd(3)} (recall ${pct(s.recall).padStart(6)})  benign refused ${String(s.benignRefused).padStart(2)}/${String(s.benign).padEnd(3)} (${pct(s.falsePositiveRate).padStart(5)})  precision ${pct(s.precision)}`;

let failed = false;
const all: CorpusRow[] = [];
for (const file of CORPUS_FILES) {
  const rows = loadCorpus(file);
  all.push(...rows);
  const score = scoreScreen(rows);
  console.log(line(file, score));
  for (const m of score.mistakes) {
    console.log(
      `    ${m.label === 'benign' ? 'refused benign' : 'missed'} [${m.lang}] ${JSON.stringify(m.text)}${m.reason ? ` (${m.reason})` : ''}`,
    );
  }
  if (score.recall < MIN_RECALL || score.falsePositiveRate > MAX_FALSE_POSITIVES) failed = true;
}
const total = scoreScreen(all);
console.log(line('all', total));
for (const label of ['instruction', 'secret'] as const) {
  console.log(
    line(`  ${label}s`, scoreScreen(all.filter((r) => r.label === label || r.label === 'benign'))),
  );
}
for (const lang of [...new Set(all.map((r) => r.lang))].sort()) {
  console.log(line(`  ${lang}`, scoreScreen(all.filter((r) => r.lang === lang))));
}

if (!smoke) {
  const texts = all.map((r) => r.text);
  const time = (screen: (text: string) => unknown, passes: number) => {
    const started = performance.now();
    for (let p = 0; p < passes; p++) for (const text of texts) screen(text);
    return ((performance.now() - started) * 1000) / (passes * texts.length);
  };
  time((t) => findInjection(t), 20);
  time((t) => secretReason(t), 20);
  const instructions = time((t) => findInjection(t), 200);
  const secrets = time((t) => secretReason(t), 200);
  console.log(
    `cost per text: instruction screen ${instructions.toFixed(1)} µs, secret screen ${secrets.toFixed(1)} µs (instructions/secrets ${(instructions / secrets).toFixed(2)}x)`,
  );
}
console.log(
  `targets: recall >= ${pct(MIN_RECALL)}, benign refused <= ${pct(MAX_FALSE_POSITIVES)}: ${failed ? 'MISSED' : 'met'}`,
);
process.exit(failed ? 1 : 0);
