import type { Logger } from '@tollgate/kit';
import type { JsMsg } from '@tollgate/kit';
import type { RecordDraft } from '../record.js';
import type { AuditStore, DeadLetter } from '../store.js';
import type { IngestMetrics } from './metrics.js';
import type { Preparation } from './prepare.js';
import type { ChainWriter } from './writer.js';

/** Counts since start, for operators and tests. */
export interface IngestCounts {
  stored: number;
  duplicates: number;
  deadLettered: number;
}

/** A message and what becomes of it. */
export interface Prepared {
  msg: JsMsg;
  prep: Preparation;
}

/** Where a batch goes: chains, dead letters, metrics, logs. */
export interface BatchSinks {
  writer: ChainWriter;
  store: AuditStore;
  logger: Logger;
  metrics: IngestMetrics;
  counts: IngestCounts;
  now: () => Date;
}

/** What earlier tries at storing one batch already wrote, so a retry does not redo it. */
export class BatchProgress {
  readonly chains = new Set<string>();
  readonly letters = new Set<string>();
  /** Dead letters for records the store refused (found while writing a chain). */
  readonly refused: DeadLetter[] = [];
}

/**
 * Writes a prepared batch: each chain's records appended in order (chains in parallel), then
 * the dead letters. Throws when the store is unavailable; calling again with the same
 * `progress` finishes the job without writing anything twice.
 */
export async function storeBatch(
  prepared: readonly Prepared[],
  progress: BatchProgress,
  sinks: BatchSinks,
): Promise<void> {
  const byChain = new Map<string, { drafts: RecordDraft[]; suspects: Set<number> }>();
  const letters: DeadLetter[] = [];
  for (const { prep } of prepared) {
    if (prep.kind === 'dead') letters.push(prep.letter);
    else if (!progress.chains.has(prep.chain)) {
      let chain = byChain.get(prep.chain);
      if (!chain) byChain.set(prep.chain, (chain = { drafts: [], suspects: new Set() }));
      if (prep.redelivered) chain.suspects.add(chain.drafts.length);
      chain.drafts.push(prep.draft);
    }
  }
  await Promise.all(
    [...byChain].map(async ([chain, { drafts, suspects }]) => {
      const result = await sinks.writer.append(chain, drafts, suspects);
      progress.chains.add(chain);
      for (const doc of result.stored) sinks.metrics.recordStored(doc);
      sinks.metrics.duplicates(result.duplicates.length);
      sinks.counts.stored += result.stored.length;
      sinks.counts.duplicates += result.duplicates.length;
      for (const { index, reason } of result.refused) {
        progress.refused.push(refusedLetter(drafts[index]!, reason, prepared, sinks.now()));
      }
    }),
  );
  for (const letter of [...letters, ...progress.refused]) {
    if (progress.letters.has(letter._id)) continue;
    await sinks.store.putDeadLetter(letter);
    progress.letters.add(letter._id);
    sinks.counts.deadLettered++;
    sinks.metrics.deadLettered();
    sinks.logger.error(
      {
        alert: true,
        reason: letter.reason,
        subject: letter.subject,
        stream_sequence: letter.stream_sequence,
        deliveries: letter.deliveries,
        tenant: letter.tenant,
        event_id: letter.event_id,
        type: letter.type,
      },
      'audit event dead-lettered',
    );
  }
}

/** A dead letter for a record the store refused, built from the message it came from. */
function refusedLetter(
  draft: RecordDraft,
  reason: string,
  prepared: readonly Prepared[],
  now: Date,
): DeadLetter {
  const source = prepared.find(
    (p) => p.prep.kind === 'record' && p.prep.draft._id === draft._id,
  )!.msg;
  return {
    _id: `${source.info.stream}/${source.info.streamSequence}`,
    received_at: now,
    subject: source.subject,
    stream_sequence: source.info.streamSequence,
    deliveries: source.info.deliveryCount,
    reason: `the store refused the record: ${reason}`,
    tenant: draft.tenant,
    event_id: draft.event_id,
    type: draft.type,
    data: Buffer.from(source.data).toString('base64'),
  };
}

export function errInfo(err: unknown): { name: string; message: string } {
  return { name: (err as Error)?.name ?? 'Error', message: (err as Error)?.message ?? String(err) };
}
