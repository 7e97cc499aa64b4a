import { JetStreamApiCodes } from '@nats-io/jetstream';
import { ResourceChange } from '@tollgate/contracts/events/v1';
import { EventTypes, derivedEventId, envelope, publishEnvelope, resourceKey } from '@tollgate/kit';
import type { EventPublisher, KV, Logger } from '@tollgate/kit';
import { projectionValue, stateOf } from './projection-value.js';
import type { VersionRecord } from './records.js';
import type { ChangeSink } from './registry.js';
import type { ResourceRef } from './scope.js';
import type { ResourceStore } from './store.js';

const MAX_ATTEMPTS = 10;

const CHANGE: Record<VersionRecord['change'], ResourceChange> = {
  applied: ResourceChange.APPLIED,
  rolled_back: ResourceChange.ROLLED_BACK,
  deleted: ResourceChange.DELETED,
};

/** What the KV entry of a resource holds: a live version, or nothing (absent or deleted). */
export type ProjectedState = { version: number; hash: string } | undefined;

/** The state the KV entry of `current` should be in. */
export function desiredState(current: VersionRecord | undefined): ProjectedState {
  return current === undefined || current.deleted
    ? undefined
    : { version: current.version, hash: current.hash };
}

export function sameState(a: ProjectedState, b: ProjectedState): boolean {
  return (
    a === b || (a !== undefined && b !== undefined && a.version === b.version && a.hash === b.hash)
  );
}

/**
 * Keeps the `tollgate_resources` KV bucket equal to the store's current versions and announces
 * changes on JetStream. Projections only move an entry forward (see `project`), so concurrent
 * ones (two applies, an apply and the reconciler, two registry instances) converge on the
 * current version and the bucket never goes backwards.
 */
export class Projector {
  readonly #kv: KV;
  readonly #events: EventPublisher;
  readonly #store: ResourceStore;

  constructor(deps: { kv: KV; events: EventPublisher; store: ResourceStore }) {
    this.#kv = deps.kv;
    this.#events = deps.events;
    this.#store = deps.store;
  }

  /**
   * Moves the KV entry of `ref` forward to its current version. Returns the version projected,
   * and whether the entry had to be written.
   *
   * `known` is a version known to be committed (the one a change just made). Versions only
   * grow, so an entry already at or past it needs nothing (unless it holds that version with
   * another hash), and an older live entry can be replaced by it without reading the store; an absent, deleted or unreadable entry (which
   * might be a newer deletion) is settled by reading the store. Without `known` the store's
   * current version is read after the entry, so whatever is written is at least as new as
   * what the entry held. Writes are compare-and-sets on the entry's revision, retried when
   * it moved.
   */
  async project(
    ref: ResourceRef,
    known?: VersionRecord,
  ): Promise<{ written: boolean; current: VersionRecord | undefined }> {
    const key = resourceKey(ref.tenant, ref.environment, ref.name);
    for (let attempt = 1; ; attempt++) {
      const entry = await this.#kv.get(key);
      const live = entry !== null && entry.operation === 'PUT';
      const held = live ? stateOf(entry.value) : undefined;
      if (known !== undefined && held !== undefined && isNewer(held, known)) {
        return { written: false, current: known };
      }
      const current =
        known !== undefined && held !== undefined ? known : await this.#store.current(ref, known);
      const wanted = desiredState(current);
      if (live && held !== undefined && sameState(held, wanted)) return { written: false, current };
      if (!live && wanted === undefined) return { written: false, current };
      try {
        if (current !== undefined && wanted !== undefined) {
          const value = JSON.stringify(projectionValue(current));
          await this.#kv.put(key, value, { previousSeq: entry?.revision ?? 0 });
        } else {
          await this.#kv.delete(key, { previousSeq: (entry as { revision: number }).revision });
        }
        return { written: true, current };
      } catch (err) {
        if (!isWrongLastSequence(err) || attempt >= MAX_ATTEMPTS) throw err;
      }
    }
  }

  /**
   * Publishes `resource.changed` for one version, then records in the store that it was
   * announced (the reconciler re-announces versions without that record, so a publish lost
   * after the KV write is not lost for good). The event id is derived from the version, so
   * announcing a version twice (a retry, the reconciler) is stored once by JetStream's
   * duplicate window and recognisable by consumers afterwards.
   */
  async announce(record: VersionRecord): Promise<void> {
    const event = envelope(
      EventTypes.resourceChanged,
      record.tenant,
      {
        case: 'resourceChanged',
        value: {
          tenant: record.tenant,
          environment: record.environment,
          name: record.name,
          version: record.version,
          previousVersion: record.previousVersion,
          change: CHANGE[record.change],
          contentHash: record.hash,
          changedBy: record.createdBy,
        },
      },
      changeEventId(record),
    );
    await publishEnvelope(this.#events, event);
    await this.#store.recordAnnounced(record);
  }
}

/** The event id of a version's `resource.changed`: derived, so a re-announcement is stored once. */
export function changeEventId(ref: ResourceRef & { version: number }): string {
  return derivedEventId(
    'resource.changed',
    ref.tenant,
    ref.environment,
    ref.name,
    String(ref.version),
  );
}

/** Whether an entry already holds `known` or a later version (same version, other hash: tampered). */
function isNewer(held: { version: number; hash: string }, known: VersionRecord): boolean {
  return (
    held.version > known.version || (held.version === known.version && held.hash === known.hash)
  );
}

/** JetStream refused a write because the entry moved since it was read. */
function isWrongLastSequence(err: unknown): boolean {
  const code = err instanceof Error ? (err as Error & { code?: unknown }).code : undefined;
  return (
    code === JetStreamApiCodes.StreamWrongLastSequence ||
    code === JetStreamApiCodes.StreamWrongLastSequenceUnknown
  );
}

/**
 * The registry's reaction to a committed version: project it, then announce it. A failure
 * (NATS unreachable) does not undo the change: it is logged and the reconciler converges.
 */
export function announceChanges(projector: Projector, logger: Logger): ChangeSink {
  return {
    async changed(record) {
      const resource = `${record.tenant}/${record.environment}/${record.name}`;
      try {
        await projector.project(record, record);
        await projector.announce(record);
        logger.info(
          { resource, version: record.version, change: record.change },
          'resource changed',
        );
      } catch (err) {
        logger.warn(
          { resource, version: record.version, err: { message: (err as Error).message } },
          'resource changed; projection deferred to the reconciler',
        );
      }
    },
  };
}
