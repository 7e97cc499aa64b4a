/**
 * Learning from completed calls: usage signals per owner — how often a resource is queried,
 * which fields a tool is asked for (decayed counts), and how often a tool is called with the
 * same argument shape (uses within a window). A decayed count crossing the threshold writes a
 * derived preference (or stages it, per the gate policy); enough same-shape uses propose a
 * saved-query candidate. Each signal remembers the events it counted, so redelivery is safe.
 */
import { TollgateError } from '@tollgate/core';
import type { CandidateBook } from './candidates.js';
import { countUse } from './decay.js';
import type { UsageSignal } from './decay.js';
import type { DerivedFact, PreferenceBook } from '../preferences/preference-book.js';
import { findInjection } from '@tollgate/core';
import { secretReason } from '@tollgate/core';
import { argumentShape, proposeSavedQuery, valueDigest } from './shape.js';
import type { ArgumentShape, ShapeUse } from './shape.js';
import { claimTransition, contentionPause } from '../store/claims.js';
import { isDuplicateKey } from '@tollgate/kit';
import { ownedId } from '../store/collections.js';
import type { MemoryStore, StoredDocument } from '../store/collections.js';
import type { JsonObject, JsonValue, Owner } from '../types.js';

/** A completed call as the learner needs it (from a `call.completed` event). */
export interface CompletedCall {
  eventId: string;
  callId: string;
  sessionId: string;
  owner: Owner;
  /** The environment the call ran in. */
  environment: string;
  tool: string;
  resource: string;
  arguments: JsonObject;
  ok: boolean;
  /** When the call completed, ms since epoch. */
  at: number;
  /**
   * The call ran through one of the owner's saved queries: its shape and fields are the saved
   * query's, not a new habit, so only the resource's frequency is learnt from it.
   */
  viaSavedQuery: boolean;
}

export interface LearnerSettings {
  autoKinds: string[];
  halfLifeMs: number;
  preferenceThreshold: number;
  candidateMinUses: number;
  candidateWindowMs: number;
}

export interface LearnerDeps {
  store: MemoryStore;
  preferences: PreferenceBook;
  candidates: CandidateBook;
  settings: LearnerSettings;
}

/** What one call taught (for logs and tests). */
export interface Lesson {
  preferences: string[];
  candidates: string[];
}

/** Uses of one shape kept per signal. */
const MAX_USES = 50;
/** Redaction markers the executor writes in place of values. */
const REDACTED = /^(?:\*\*\*|\[redacted\]|sha256:[0-9a-f]{16})/;

export class Learner {
  readonly #deps: LearnerDeps;

  constructor(deps: LearnerDeps) {
    this.#deps = deps;
  }

  async learn(call: CompletedCall): Promise<Lesson> {
    const lesson: Lesson = { preferences: [], candidates: [] };
    if (!call.ok) return lesson;
    await this.#frequency(call, `resource:${call.resource}`, lesson, (score) => ({
      owner: call.owner,
      environment: call.environment,
      key: `frequent_resource:${call.resource}`,
      kind: 'frequent_resource',
      value: call.resource,
      text: `Usually queries ${call.resource}.`,
      score,
    }));
    if (call.viaSavedQuery) return lesson;
    const fields = requestedFields(call.arguments);
    if (fields.length > 0) {
      await this.#frequency(call, `fields:${call.tool}:${fields.join(',')}`, lesson, (score) => ({
        owner: call.owner,
        environment: call.environment,
        key: `preferred_fields:${call.tool}`,
        kind: 'preferred_fields',
        value: fields,
        text: `Prefers fields ${fields.join(', ')} for ${call.tool}.`,
        score,
      }));
    }
    if (!call.tool.endsWith('_write')) await this.#shape(call, lesson);
    return lesson;
  }

  async #frequency(
    call: CompletedCall,
    key: string,
    lesson: Lesson,
    fact: (score: number) => DerivedFact,
  ): Promise<void> {
    const { settings } = this.#deps;
    const signal = await this.#updateSignal(call.owner, key, (current) => {
      const use = countUse(current && usageOf(current), call.eventId, call.at, settings.halfLifeMs);
      return use.counted
        ? { score: use.signal.score, at: use.signal.at, seen: use.signal.seen }
        : undefined;
    });
    // Also on a redelivered event: writing and proposing are idempotent, so an effect lost
    // to a crash after counting is made up for.
    const score = typeof signal['score'] === 'number' ? signal['score'] : 0;
    if (score < settings.preferenceThreshold) return;
    const derived = fact(score);
    if (settings.autoKinds.includes(derived.kind)) {
      if (await this.#deps.preferences.writeDerived(derived)) lesson.preferences.push(derived.key);
      return;
    }
    const candidate = await this.#deps.candidates.propose({
      owner: call.owner,
      kind: 'preference',
      signal: `preference:${derived.key}:${JSON.stringify(derived.value)}`,
      proposal: { key: derived.key, kind: derived.kind, value: derived.value, text: derived.text },
      summary: derived.text,
      confidence: Math.min(1, score / (2 * settings.preferenceThreshold)),
      evidenceCallIds: [call.callId],
      proposedBy: { agent: call.owner.agent, user: '' },
    });
    if (candidate !== undefined) lesson.candidates.push(candidate.id);
  }

  async #shape(call: CompletedCall, lesson: Lesson): Promise<void> {
    const { settings } = this.#deps;
    const shape = argumentShape(call.arguments);
    const key = `shape:${call.tool}:${shape.key}`;
    const digests = slotDigests(shape, call.callId);
    let uses: ShapeUse[] = [];
    await this.#updateSignal(call.owner, key, (current) => {
      const previous = current === undefined ? [] : storedUses(current);
      uses = previous;
      if (previous.some((use) => use.callId === call.callId)) return undefined;
      uses = [...previous, { callId: call.callId, at: call.at, digests }]
        .filter((use) => use.at > call.at - settings.candidateWindowMs)
        .slice(-MAX_USES);
      return {
        uses: uses.map((use) => ({
          callId: use.callId,
          at: use.at,
          digests: Object.entries(use.digests).map(([path, digest]) => ({ path, digest })),
        })),
      };
    });
    if (uses.length < settings.candidateMinUses) return;
    const unsafe = new Set(
      shape.slots.filter((slot) => digests[slot.path]?.startsWith('unsafe:')).map((s) => s.path),
    );
    const proposal = proposeSavedQuery(call.tool, shape, uses, unsafe);
    const candidate = await this.#deps.candidates.propose({
      owner: call.owner,
      kind: 'saved_query',
      signal: key,
      proposal: { ...proposal, parameters: proposal.parameters.map((p) => ({ ...p })) },
      summary: `Save "${proposal.name}": ${proposal.description}`,
      confidence: Math.min(1, uses.length / (2 * settings.candidateMinUses)),
      evidenceCallIds: uses.map((use) => use.callId),
      proposedBy: { agent: call.owner.agent, user: '' },
    });
    if (candidate !== undefined) lesson.candidates.push(candidate.id);
  }

  /**
   * Reads, changes and writes one signal document; returns what is stored. A new signal is
   * arbitrated by its `_id`, a change by a claim on its version (see `claimTransition`), so
   * concurrent deliveries of one event count it once.
   */
  async #updateSignal(
    owner: Owner,
    key: string,
    change: (current: StoredDocument | undefined) => Record<string, unknown> | undefined,
  ): Promise<StoredDocument> {
    const col = this.#deps.store.signals;
    const id = ownedId(owner, 'signal', key);
    for (let attempt = 0; attempt < 16; attempt++) {
      if (attempt > 0) await contentionPause(attempt);
      const current = (await col.findOne({ _id: id })) ?? undefined;
      const fields = change(current);
      if (fields === undefined) {
        if (current === undefined) throw new Error('nothing to write for a new signal');
        return current;
      }
      if (current === undefined) {
        const doc = { _id: id, ...owner, key, version: 1, ...fields };
        try {
          await col.insertOne(doc);
          return doc;
        } catch (err) {
          if (isDuplicateKey(err)) continue;
          throw err;
        }
      }
      const version = current['version'] as number;
      if (!(await claimTransition(this.#deps.store.claims, id, version, new Date()))) continue;
      const written = await col.findOneAndUpdate(
        { _id: id, version },
        { $set: { ...fields, version: version + 1 } },
        { returnDocument: 'after' },
      );
      if (written !== null) return written;
    }
    throw new TollgateError(
      'VERSION_CONFLICT',
      `usage signal ${key} is contended; the event will be redelivered`,
    );
  }
}

/** The fields a call asked for, sorted, when it named any. */
function requestedFields(args: JsonObject): string[] {
  const fields = args['fields'];
  if (!Array.isArray(fields)) return [];
  const names = fields.filter(
    (f): f is string => typeof f === 'string' && /^[A-Za-z0-9_.@-]{1,128}$/.test(f),
  );
  return [...new Set(names)].sort();
}

/**
 * A digest per slot; values that cannot be compared or must not be kept (redacted, secret-
 * looking, instruction-like) get a digest unique to the call, so they always count as varying.
 */
function slotDigests(shape: ArgumentShape, callId: string): Record<string, string> {
  const digests: Record<string, string> = {};
  for (const slot of shape.slots) {
    digests[slot.path] = isKeepable(slot.value) ? valueDigest(slot.value) : `unsafe:${callId}`;
  }
  return digests;
}

function isKeepable(value: JsonValue): boolean {
  const texts = Array.isArray(value) ? value : [value];
  return texts.every(
    (item) =>
      typeof item !== 'string' ||
      (!REDACTED.test(item) &&
        secretReason(item) === undefined &&
        findInjection(item) === undefined),
  );
}

function usageOf(doc: StoredDocument): UsageSignal | undefined {
  const { score, at, seen } = doc;
  if (typeof score !== 'number' || typeof at !== 'number' || !Array.isArray(seen)) return undefined;
  return { score, at, seen: seen.filter((s): s is string => typeof s === 'string') };
}

function storedUses(doc: StoredDocument): ShapeUse[] {
  const uses = Array.isArray(doc['uses']) ? (doc['uses'] as unknown[]) : [];
  return uses.flatMap((raw) => {
    const use = raw as { callId?: unknown; at?: unknown; digests?: unknown };
    if (typeof use.callId !== 'string' || typeof use.at !== 'number' || !Array.isArray(use.digests))
      return [];
    const digests: Record<string, string> = {};
    for (const entry of use.digests as Array<{ path?: unknown; digest?: unknown }>) {
      if (typeof entry?.path === 'string' && typeof entry.digest === 'string') {
        digests[entry.path] = entry.digest;
      }
    }
    return [{ callId: use.callId, at: use.at, digests }];
  });
}
