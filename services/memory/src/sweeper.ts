/**
 * Periodic housekeeping: deletes expired session snapshots (the local server has no TTL
 * indexes), retries `memory.written` events left in the outbox, and reconciles the memory
 * bucket with the store (also once right at start-up).
 */
import type { Logger } from '@tollgate/kit';
import type { BusAnnouncer } from './announce.js';
import type { MemoryProjector } from './projection/projector.js';
import type { SessionBook } from './sessions/session-book.js';

export interface Sweeper {
  /** One pass now (also what the timer runs). */
  sweep(): Promise<void>;
  stop(): Promise<void>;
}

export function startSweeper(deps: {
  sessions: SessionBook;
  announcer: BusAnnouncer;
  projection?: Pick<MemoryProjector, 'reconcile'>;
  logger: Logger;
  intervalMs: number;
}): Sweeper {
  let running: Promise<void> | undefined;
  const reconcile = async (): Promise<void> => {
    try {
      await deps.projection?.reconcile();
    } catch (err) {
      deps.logger.warn(
        { err: { message: (err as Error).message } },
        'memory projection reconcile failed',
      );
    }
  };
  const sweep = async (): Promise<void> => {
    try {
      const expired = await deps.sessions.sweep();
      const relayed = await deps.announcer.relayOutbox();
      if (expired + relayed > 0) deps.logger.info({ expired, relayed }, 'memory swept');
    } catch (err) {
      deps.logger.warn({ err: { message: (err as Error).message } }, 'memory sweep failed');
    }
    await reconcile();
  };
  const runExclusive = (pass: () => Promise<void>): void => {
    running ??= pass().finally(() => {
      running = undefined;
    });
  };
  if (deps.projection) runExclusive(reconcile);
  const timer = setInterval(() => runExclusive(sweep), deps.intervalMs);
  timer.unref();
  return {
    sweep,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
