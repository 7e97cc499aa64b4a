/**
 * Periodic removal of drafts that expired long ago: the store has no TTL indexes, so without
 * it `resource_drafts` grows forever. A draft is deleted only once its expiry is more than the
 * retention period past, so a draft that can still be confirmed is never touched; Confirm of a
 * removed draft answers like an unknown one (see `Drafts`).
 */
import type { Logger } from '@tollgate/kit';
import type { DraftStore } from './draft-store.js';

export interface DraftSweeperOptions {
  store: Pick<DraftStore, 'purgeExpired'>;
  logger: Logger;
  /** How long past its expiry a draft is kept (still answering "expired"), ms; at least 0. */
  retentionMs: number;
  /** Pause between passes, ms (0 = only when `sweep` is called). */
  intervalMs: number;
  /** Drafts deleted per round trip (default 500). */
  batchSize?: number;
  clock?: () => Date;
}

export interface DraftSweeper {
  /** One pass now (also what the timer runs); returns how many drafts were deleted. */
  sweep(): Promise<number>;
  /** Stops the timer and waits for a pass under way. */
  stop(): Promise<void>;
}

export function startDraftSweeper(options: DraftSweeperOptions): DraftSweeper {
  if (!Number.isSafeInteger(options.retentionMs) || options.retentionMs < 0) {
    throw new Error(
      `draft retention must be a whole number of ms >= 0, not ${options.retentionMs}`,
    );
  }
  const clock = options.clock ?? (() => new Date());
  const batchSize = options.batchSize ?? 500;
  let running: Promise<number> | undefined;
  const sweep = (): Promise<number> => {
    running ??= options.store
      .purgeExpired(new Date(clock().getTime() - options.retentionMs), batchSize)
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const tick = (): void => {
    void sweep().then(
      (deleted) => {
        if (deleted > 0) options.logger.info({ deleted }, 'expired drafts removed');
      },
      (err: unknown) =>
        options.logger.warn({ err: { message: (err as Error).message } }, 'draft sweep failed'),
    );
  };
  const timer = options.intervalMs > 0 ? setInterval(tick, options.intervalMs) : undefined;
  timer?.unref();
  return {
    sweep,
    async stop() {
      clearInterval(timer);
      await running?.catch(() => 0);
    },
  };
}
