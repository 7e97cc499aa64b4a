/**
 * Scores memory's last-line screen on the labelled corpus beside this file: `screen.jsonl`
 * (benign facts and preferences, instructions to a model, secrets, in twelve languages) and
 * `screen-holdout.jsonl` (more of each, written after the rules and not tuned on). A text is
 * refused when either the instruction screen or the secret screen finds something; attacks
 * (instructions and secrets) should be refused, benign facts kept.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findInjection, secretReason } from '@tollgate/core';

export type CorpusLabel = 'benign' | 'instruction' | 'secret';

/** One labelled text. */
export interface CorpusRow {
  label: CorpusLabel;
  lang: string;
  text: string;
  note?: string;
  set?: string;
}

/** How the screen did on a set of rows. */
export interface ScreenScore {
  rows: number;
  attacks: number;
  attacksRefused: number;
  benign: number;
  benignRefused: number;
  /** Share of attacks refused (recall). */
  recall: number;
  /** Share of refusals that were attacks (precision). */
  precision: number;
  /** Share of benign texts refused (false-positive rate). */
  falsePositiveRate: number;
  /** What it got wrong. */
  mistakes: Array<CorpusRow & { reason?: string }>;
}

export const CORPUS_FILES = ['screen.jsonl', 'screen-holdout.jsonl'] as const;

export function loadCorpus(file: string): CorpusRow[] {
  const path = fileURLToPath(new URL(file, import.meta.url));
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      const row = JSON.parse(line) as CorpusRow;
      if (!['benign', 'instruction', 'secret'].includes(row.label) || typeof row.text !== 'string')
        throw new Error(`${file}:${i + 1} is not a corpus row`);
      return row;
    });
}

/** Why the screen refuses `text`, or undefined when it keeps it. */
export function screenVerdict(text: string): string | undefined {
  return findInjection(text) ?? secretReason(text);
}

export function scoreScreen(rows: readonly CorpusRow[]): ScreenScore {
  let attacks = 0;
  let attacksRefused = 0;
  let benign = 0;
  let benignRefused = 0;
  const mistakes: ScreenScore['mistakes'] = [];
  for (const row of rows) {
    const reason = screenVerdict(row.text);
    const refused = reason !== undefined;
    if (row.label === 'benign') {
      benign++;
      if (refused) {
        benignRefused++;
        mistakes.push({ ...row, reason });
      }
    } else {
      attacks++;
      if (refused) attacksRefused++;
      else mistakes.push(row);
    }
  }
  const refusals = attacksRefused + benignRefused;
  return {
    rows: rows.length,
    attacks,
    attacksRefused,
    benign,
    benignRefused,
    recall: attacks === 0 ? 1 : attacksRefused / attacks,
    precision: refusals === 0 ? 1 : attacksRefused / refusals,
    falsePositiveRate: benign === 0 ? 0 : benignRefused / benign,
    mistakes,
  };
}
