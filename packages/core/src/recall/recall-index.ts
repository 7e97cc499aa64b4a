/**
 * In-memory BM25 recall over resources, partitioned by scope (tenant × environment). A search
 * must name its scope and only that scope's sub-index is read, so isolation never depends on
 * scoring and resources in other scopes cost nothing.
 */
import { compareCodeUnits } from '../canonical.js';
import type { RecallDocument, RecallScope } from './document.js';
import { queryTerms, tokenize } from './tokenize.js';

/** How much each part of a document counts towards its term frequencies. */
const WEIGHTS = { name: 3, labels: 2, description: 1, fieldName: 1, fieldDescription: 1 };
const K1 = 1.2;
const B = 0.75;
const MAX_TOP_K = 1000;

export interface RecallSearchOptions {
  /** Required: only documents of this tenant and environment are considered. */
  scope: RecallScope;
  /** Most hits returned (default 10, at most 1000). */
  topK?: number;
  /** An extra predicate a document must pass (it cannot widen the scope). */
  filter?: (doc: RecallDocument) => boolean;
  /** Preference multipliers by resource name: 1 neutral, above 1 favours, 0 excludes. */
  boosts?: Record<string, number>;
}

export interface RecallHit {
  id: string;
  name: string;
  score: number;
}

interface Entry {
  doc: RecallDocument;
  terms: Map<string, number>;
  length: number;
}

/** One scope's documents and postings. */
class ScopeIndex {
  readonly entries = new Map<string, Entry>();
  readonly postings = new Map<string, Map<Entry, number>>();
  totalLength = 0;

  add(entry: Entry): void {
    this.entries.set(entry.doc.id, entry);
    this.totalLength += entry.length;
    for (const [term, tf] of entry.terms) {
      let posting = this.postings.get(term);
      if (posting === undefined) this.postings.set(term, (posting = new Map()));
      posting.set(entry, tf);
    }
  }

  delete(id: string): void {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    this.entries.delete(id);
    this.totalLength -= entry.length;
    for (const term of entry.terms.keys()) {
      const posting = this.postings.get(term);
      posting?.delete(entry);
      if (posting?.size === 0) this.postings.delete(term);
    }
  }

  score(terms: string[]): Map<Entry, number> {
    const scores = new Map<Entry, number>();
    const n = this.entries.size;
    const avgLength = this.totalLength / n;
    for (const term of terms) {
      const posting = this.postings.get(term);
      if (posting === undefined) continue;
      const idf = Math.log(1 + (n - posting.size + 0.5) / (posting.size + 0.5));
      for (const [entry, tf] of posting) {
        const norm = tf + K1 * (1 - B + (B * entry.length) / avgLength);
        scores.set(entry, (scores.get(entry) ?? 0) + (idf * tf * (K1 + 1)) / norm);
      }
    }
    return scores;
  }
}

export class RecallIndex {
  readonly #scopes = new Map<string, ScopeIndex>();
  readonly #scopeOfId = new Map<string, string>();

  /** Documents indexed, across all scopes. */
  get size(): number {
    return this.#scopeOfId.size;
  }

  /** Adds or replaces the document with `doc.id` (moving it if its scope changed). */
  upsert(doc: RecallDocument): void {
    for (const key of ['id', 'tenant', 'environment', 'name'] as const) {
      if (typeof doc[key] !== 'string' || doc[key] === '') {
        throw new TypeError(`recall document ${key} must be a non-empty string`);
      }
    }
    this.remove(doc.id);
    const key = scopeKey(doc);
    let scope = this.#scopes.get(key);
    if (scope === undefined) this.#scopes.set(key, (scope = new ScopeIndex()));
    const stored: RecallDocument = structuredClone(doc);
    scope.add({ doc: stored, ...termsOf(stored) });
    this.#scopeOfId.set(doc.id, key);
  }

  /** Removes the document; true when it was indexed. */
  remove(id: string): boolean {
    const key = this.#scopeOfId.get(id);
    if (key === undefined) return false;
    const scope = this.#scopes.get(key);
    scope?.delete(id);
    if (scope?.entries.size === 0) this.#scopes.delete(key);
    this.#scopeOfId.delete(id);
    return true;
  }

  /** The best matches for `query` in `options.scope`, best first; ties broken by name, then id. */
  search(query: string, options: RecallSearchOptions): RecallHit[] {
    const { scope, topK = 10, filter, boosts = {} } = options;
    if (
      typeof scope?.tenant !== 'string' ||
      scope.tenant === '' ||
      typeof scope.environment !== 'string' ||
      scope.environment === ''
    ) {
      throw new TypeError('recall search needs a scope with a tenant and an environment');
    }
    if (!Number.isSafeInteger(topK) || topK < 1 || topK > MAX_TOP_K) {
      throw new RangeError(`topK must be an integer from 1 to ${MAX_TOP_K}; found ${topK}`);
    }
    for (const [name, boost] of Object.entries(boosts)) {
      if (!Number.isFinite(boost) || boost < 0) {
        throw new RangeError(`boost for ${name} must be a finite number >= 0; found ${boost}`);
      }
    }
    const index = this.#scopes.get(scopeKey(scope));
    if (index === undefined) return [];
    const best: RecallHit[] = [];
    for (const [entry, raw] of index.score([...new Set(queryTerms(query))])) {
      const { doc } = entry;
      if (doc.tenant !== scope.tenant || doc.environment !== scope.environment) continue;
      if (filter !== undefined && !filter(doc)) continue;
      const score = raw * (Object.hasOwn(boosts, doc.name) ? (boosts[doc.name] ?? 1) : 1);
      if (score > 0) keepBest(best, { id: doc.id, name: doc.name, score }, topK);
    }
    return best;
  }
}

/** Best first: higher score, then name, then id. */
function ranksBefore(a: RecallHit, b: RecallHit): boolean {
  if (a.score !== b.score) return a.score > b.score;
  const byName = compareCodeUnits(a.name, b.name);
  return byName !== 0 ? byName < 0 : compareCodeUnits(a.id, b.id) < 0;
}

/** Inserts `hit` into `best` (kept sorted, at most `topK` long) if it ranks high enough. */
function keepBest(best: RecallHit[], hit: RecallHit, topK: number): void {
  const last = best[best.length - 1];
  if (best.length === topK && last !== undefined && !ranksBefore(hit, last)) return;
  let low = 0;
  let high = best.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (ranksBefore(best[mid] as RecallHit, hit)) low = mid + 1;
    else high = mid;
  }
  best.splice(low, 0, hit);
  if (best.length > topK) best.pop();
}

function scopeKey(scope: RecallScope): string {
  return JSON.stringify([scope.tenant, scope.environment]);
}

function termsOf(doc: RecallDocument): { terms: Map<string, number>; length: number } {
  const terms = new Map<string, number>();
  let length = 0;
  const add = (text: string | undefined, weight: number): void => {
    for (const term of tokenize(text ?? '')) {
      terms.set(term, (terms.get(term) ?? 0) + weight);
      length += weight;
    }
  };
  add(doc.name, WEIGHTS.name);
  add(doc.description, WEIGHTS.description);
  for (const value of Object.values(doc.labels ?? {})) add(value, WEIGHTS.labels);
  for (const field of doc.fields ?? []) {
    add(field.name, WEIGHTS.fieldName);
    add(field.description, WEIGHTS.fieldDescription);
  }
  return { terms, length };
}
