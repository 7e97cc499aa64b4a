import type { Logger } from '../log/logger.js';

/** Something to stop on shutdown, in reverse order of start. */
export interface Stoppable {
  name: string;
  stop(): Promise<void>;
}

/**
 * Collects resources as a service starts and stops them in reverse order. Used by every
 * service's composition root so SIGTERM drains NATS, stops gRPC and closes Mongo cleanly.
 */
export class Lifecycle {
  readonly #stack: Stoppable[] = [];
  #stopping: Promise<void> | undefined;

  constructor(private readonly logger: Logger) {}

  add(name: string, stop: () => Promise<void>): void {
    this.#stack.push({ name, stop });
  }

  stop(timeoutMs: number): Promise<void> {
    this.#stopping ??= this.#stopAll(timeoutMs);
    return this.#stopping;
  }

  async #stopAll(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const item of [...this.#stack].reverse()) {
      const left = Math.max(100, deadline - Date.now());
      try {
        await withTimeout(item.stop(), left, item.name);
        this.logger.info({ component: item.name }, 'stopped');
      } catch (err) {
        this.logger.error(
          { component: item.name, err: { message: (err as Error).message } },
          'stop failed',
        );
      }
    }
  }
}

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<T>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not stop within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs a service's `start` and wires SIGTERM/SIGINT to an orderly stop. Start-up failures
 * (bad config, unreachable dependency, port in use) are logged as one clear line and exit 1.
 */
export async function runService(options: {
  name: string;
  logger: Logger;
  shutdownTimeoutMs: number;
  start: (lifecycle: Lifecycle) => Promise<void>;
}): Promise<void> {
  const lifecycle = new Lifecycle(options.logger);
  const shutdown = (signal: string) => {
    options.logger.info({ signal }, 'shutting down');
    void lifecycle.stop(options.shutdownTimeoutMs).then(() => {
      options.logger.info('bye');
      options.logger.flush();
      process.exit(0);
    });
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  try {
    await options.start(lifecycle);
  } catch (err) {
    options.logger.fatal(
      { err: { name: (err as Error).name, message: (err as Error).message } },
      `${options.name} failed to start: ${(err as Error).message}`,
    );
    await lifecycle.stop(Math.min(options.shutdownTimeoutMs, 5_000));
    options.logger.flush();
    process.exit(1);
  }
}
