/**
 * The memory bucket (`tollgate_memory`): what the call path needs of memory — approved saved
 * queries and active `preferred_fields` facts — kept as KV entries the synthesizer and executor
 * read (keys and shapes in core's memory/published.ts). MongoDB is the source of truth. Each
 * transition that changes what is in effect re-projects its one key: read the entry, then the
 * store, then compare-and-set on the entry's revision, so a slower writer holding an older view
 * never overwrites a newer one. A failed write only logs; `reconcile` (at start-up and from the
 * sweeper) puts every entry that should exist and deletes every key that should not.
 */
import { JetStreamApiCodes } from '@nats-io/jetstream';
import type { KV, Logger } from '@tollgate/kit';
import { readCapability } from '../capabilities/capability-docs.js';
import { readPreference } from '../preferences/preference-doc.js';
import {
  PREFERRED_FIELDS,
  entryText,
  fieldPreferenceItem,
  itemOfKey,
  keyOf,
  preferenceKeyOf,
  publishedFieldPreference,
  publishedSavedQuery,
} from './bucket-entries.js';
import type { ProjectedItem } from './bucket-entries.js';
import { savedQuerySpec } from '../capabilities/saved-query.js';
import type { MemoryStore } from '../store/collections.js';
import type { Owner } from '../types.js';
import type { ProjectionHook } from './hook.js';

/** What one reconciliation pass found. */
export interface ProjectionReport {
  /** Entries that should exist. */
  entries: number;
  /** Keys written or deleted to match the store. */
  repaired: number;
  /** Keys that could not be repaired (tried again next pass). */
  failed: number;
}

export interface MemoryProjectorDeps {
  kv: KV;
  store: MemoryStore;
  logger: Logger;
  /** Keys checked at once during a pass. */
  concurrency?: number;
}

const MAX_ATTEMPTS = 5;

export class MemoryProjector implements ProjectionHook {
  readonly #deps: MemoryProjectorDeps;
  /** Items already warned about as unpublishable (once per process, not once per pass). */
  readonly #warned = new Set<string>();
  #pass: Promise<ProjectionReport> | undefined;

  constructor(deps: MemoryProjectorDeps) {
    this.#deps = deps;
  }

  async savedQueryChanged(owner: Owner, name: string): Promise<void> {
    await this.#projectQuietly({ kind: 'saved_query', owner, name });
  }

  async preferenceChanged(owner: Owner, key: string): Promise<void> {
    const item = fieldPreferenceItem(owner, key);
    if (item !== undefined) await this.#projectQuietly(item);
  }

  /**
   * Brings the key of `item` to what the store holds; true when it wrote. Throws when the
   * bucket or the store fails; an item that cannot have a key is skipped with a warning.
   */
  async project(item: ProjectedItem): Promise<boolean> {
    let key: string;
    try {
      key = keyOf(item);
    } catch (err) {
      this.#warnOnce(describe(item), (err as Error).message);
      return false;
    }
    return this.#converge(key, () => this.#wanted(item));
  }

  /**
   * One pass over the store and the bucket: every entry that should exist is put where the
   * bucket lacks it or holds something else, every other key is deleted. Each repair re-reads
   * its item from the store, so a transition made during the pass is not undone. Passes do
   * not overlap.
   */
  reconcile(): Promise<ProjectionReport> {
    this.#pass ??= this.#reconcile().finally(() => (this.#pass = undefined));
    return this.#pass;
  }

  async #reconcile(): Promise<ProjectionReport> {
    const wanted = await this.#wantedEntries();
    const present = new Set<string>();
    for await (const key of await this.#deps.kv.keys()) present.add(key);
    let repaired = 0;
    let failed = 0;
    const keys = [...new Set([...wanted.keys(), ...present])];
    await pool(keys, this.#deps.concurrency ?? 8, async (key) => {
      try {
        const want = wanted.get(key);
        if (want !== undefined && present.has(key)) {
          const entry = await this.#deps.kv.get(key);
          if (entry?.operation === 'PUT' && entry.string() === want.text) return;
        }
        const item = want?.item ?? itemOfKey(key);
        const wrote =
          item === undefined
            ? await this.#converge(key, () => Promise.resolve(undefined))
            : await this.project(item);
        if (wrote) repaired += 1;
      } catch (err) {
        failed += 1;
        this.#deps.logger.error(
          { key, err: { message: (err as Error).message } },
          'memory projection: could not repair a key',
        );
      }
    });
    if (repaired > 0 || failed > 0) {
      this.#deps.logger.warn(
        { repaired, failed, entries: wanted.size },
        'memory projection repaired the bucket',
      );
    }
    return { entries: wanted.size, repaired, failed };
  }

  /** Every entry the store says should exist, by key. */
  async #wantedEntries(): Promise<Map<string, { item: ProjectedItem; text: string }>> {
    const wanted = new Map<string, { item: ProjectedItem; text: string }>();
    const add = (item: ProjectedItem, text: string): void => {
      try {
        wanted.set(keyOf(item), { item, text });
      } catch (err) {
        this.#warnOnce(describe(item), (err as Error).message);
      }
    };
    const { savedQueries, preferences } = this.#deps.store;
    for (const doc of await savedQueries.find({ approvedRevision: { $gt: 0 } }).toArray()) {
      try {
        const capability = readCapability(savedQuerySpec, doc);
        const entry = publishedSavedQuery(capability);
        if (entry !== undefined) {
          add(
            { kind: 'saved_query', owner: capability.owner, name: capability.name },
            entryText(entry),
          );
        }
      } catch (err) {
        this.#warnOnce(`saved query ${doc._id}`, (err as Error).message);
      }
    }
    for (const doc of await preferences
      .find({ status: 'active', kind: PREFERRED_FIELDS })
      .toArray()) {
      try {
        const preference = readPreference(doc);
        const entry = publishedFieldPreference(preference);
        if (entry !== undefined) {
          add(
            { kind: 'preferred_fields', owner: preference.owner, tool: entry.tool },
            entryText(entry),
          );
        }
      } catch (err) {
        this.#warnOnce(`preference ${doc._id}`, (err as Error).message);
      }
    }
    return wanted;
  }

  /** The text the key of `item` should hold, read from the store; undefined = no entry. */
  async #wanted(item: ProjectedItem): Promise<string | undefined> {
    const { savedQueries, preferences } = this.#deps.store;
    if (item.kind === 'saved_query') {
      const doc = await savedQueries.findOne({ ...item.owner, name: item.name });
      const entry =
        doc === null ? undefined : publishedSavedQuery(readCapability(savedQuerySpec, doc));
      return entry === undefined ? undefined : entryText(entry);
    }
    const doc = await preferences.findOne({ ...item.owner, key: preferenceKeyOf(item.tool) });
    const entry = doc === null ? undefined : publishedFieldPreference(readPreference(doc));
    return entry === undefined ? undefined : entryText(entry);
  }

  /**
   * Compare-and-set of one key to `wanted()`, read after the entry: whatever is written is at
   * least as new as what the entry held. Retried when another writer moved the entry first.
   */
  async #converge(key: string, wanted: () => Promise<string | undefined>): Promise<boolean> {
    const { kv } = this.#deps;
    for (let attempt = 1; ; attempt++) {
      const entry = await kv.get(key);
      const live = entry !== null && entry.operation === 'PUT';
      const text = await wanted();
      if (text === undefined ? !live : live && entry.string() === text) return false;
      try {
        if (text === undefined) await kv.delete(key, { previousSeq: entry?.revision ?? 0 });
        else await kv.put(key, text, { previousSeq: entry?.revision ?? 0 });
        return true;
      } catch (err) {
        if (!isWrongLastSequence(err) || attempt >= MAX_ATTEMPTS) throw err;
      }
    }
  }

  async #projectQuietly(item: ProjectedItem): Promise<void> {
    try {
      await this.project(item);
    } catch (err) {
      this.#deps.logger.warn(
        { item: describe(item), err: { message: (err as Error).message } },
        'memory projection not written; the reconciler will repair it',
      );
    }
  }

  #warnOnce(what: string, reason: string): void {
    if (this.#warned.has(what)) return;
    this.#warned.add(what);
    this.#deps.logger.warn({ item: what, reason }, 'memory item left out of the memory bucket');
  }
}

function describe(item: ProjectedItem): string {
  const { tenant, agent, user } = item.owner;
  const owner = `${tenant}/${agent}/${user === '' ? '*' : 'user'}`;
  return item.kind === 'saved_query'
    ? `saved query ${owner}/${item.name}`
    : `preferred fields ${owner}/${item.tool}`;
}

function isWrongLastSequence(err: unknown): boolean {
  const code = err instanceof Error ? (err as Error & { code?: unknown }).code : undefined;
  return (
    code === JetStreamApiCodes.StreamWrongLastSequence ||
    code === JetStreamApiCodes.StreamWrongLastSequenceUnknown
  );
}

async function pool<T>(items: T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await run(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
}
