/**
 * Periodic housekeeping: deletes expired session snapshots (the local server has no TTL
 * indexes) and retries `memory.written` events left in the outbox.
 */
import type { Logger } from '@tollgate/kit';
import type { BusAnnouncer } from './announce.js';
import type { SessionBook } from './sessions.js';

export interface Sweeper {
  /** One pass now (also what the timer runs). */
  sweep(): Promise<void>;
  stop(): Promise<void>;
}

export function startSweeper(deps: {
  sessions: SessionBook;
  announcer: BusAnnouncer;
  logger: Logger;
  intervalMs: number;
}): Sweeper {
  let running: Promise<void> | undefined;
  const sweep = async (): Promise<void> => {
    try {
      const expired = await deps.sessions.sweep();
      const relayed = await deps.announcer.relayOutbox();
      if (expired + relayed > 0) deps.logger.info({ expired, relayed }, 'memory swept');
    } catch (err) {
      deps.logger.warn({ err: { message: (err as Error).message } }, 'memory sweep failed');
    }
  };
  const timer = setInterval(() => {
    running ??= sweep().finally(() => {
      running = undefined;
    });
  }, deps.intervalMs);
  timer.unref();
  return {
    sweep,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
