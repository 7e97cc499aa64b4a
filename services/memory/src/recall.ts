/**
 * Recall: which of a principal's preferences, saved queries and skills matter for a task.
 * Items are ranked by BM25 over their names and words (core's RecallIndex, built per request
 * over the principal's own memory, which is small). Preferences are facts about the user, so
 * those that match nothing still follow the matches, most recently confirmed first; saved
 * queries and skills are returned only when they match the task (or when there is no task).
 */
import { RecallIndex } from '@tollgate/core';

export type RecallItemKind = 'preference' | 'saved_query' | 'skill';

/** One item as recall sees it. */
export interface RecallItem {
  id: string;
  kind: RecallItemKind;
  name: string;
  text: string;
  /** Extra words: parameter names, tools, fields. */
  terms: string[];
  /** For ordering items that match nothing. */
  freshness: number;
}

export interface RankedItem {
  item: RecallItem;
  score: number;
}

const SCOPE = { tenant: 'memory', environment: 'recall' };

/** The `topK` items most relevant to `task`, best first. */
export function rankMemory(task: string, items: readonly RecallItem[], topK: number): RankedItem[] {
  const byFreshness = (a: RecallItem, b: RecallItem) =>
    b.freshness - a.freshness || (a.id < b.id ? -1 : 1);
  if (task.trim() === '') {
    return [...items]
      .sort(byFreshness)
      .slice(0, topK)
      .map((item) => ({ item, score: 0 }));
  }
  const index = new RecallIndex();
  const byId = new Map<string, RecallItem>();
  for (const item of items) {
    const id = `${item.kind}/${item.id}`;
    byId.set(id, item);
    index.upsert({
      id,
      ...SCOPE,
      name: item.name,
      description: item.text,
      labels: { kind: item.kind.replace('_', ' ') },
      fields: item.terms.map((name) => ({ name })),
    });
  }
  const hits = index.search(task, {
    scope: SCOPE,
    topK: Math.min(1000, Math.max(1, items.length)),
  });
  const ranked: RankedItem[] = [];
  const matched = new Set<string>();
  for (const hit of hits) {
    const item = byId.get(hit.id);
    if (item === undefined) continue;
    matched.add(hit.id);
    ranked.push({ item, score: hit.score });
  }
  const rest = items
    .filter((item) => item.kind === 'preference' && !matched.has(`${item.kind}/${item.id}`))
    .sort(byFreshness)
    .map((item) => ({ item, score: 0 }));
  return [...ranked, ...rest].slice(0, topK);
}
