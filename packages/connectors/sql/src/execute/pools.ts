import { createHash } from 'node:crypto';

/** A pool as the SQL core sees it: something that can be closed. */
export interface Closable {
  end(): Promise<void>;
}

/**
 * Connection pools per resource version: one entry per resource name, remembered with a
 * fingerprint of its connection and credential. A call whose fingerprint differs (a new
 * version changed the connection, or the credential rotated) closes the old pool before
 * opening the new one, so no connection outlives the version it was made for.
 */
export class PoolCache<P extends Closable> {
  private readonly pools = new Map<string, { fingerprint: string; pool: P }>();

  /** The pool for `resource` built from `config`; `open` runs only when none matches. */
  get(resource: string, config: unknown, open: () => P): P {
    const fingerprint = createHash('sha256').update(JSON.stringify(config)).digest('hex');
    const current = this.pools.get(resource);
    if (current !== undefined && current.fingerprint === fingerprint) return current.pool;
    if (current !== undefined) void current.pool.end().catch(() => undefined);
    const pool = open();
    this.pools.set(resource, { fingerprint, pool });
    return pool;
  }

  /** Pools currently open. */
  get size(): number {
    return this.pools.size;
  }

  /** Closes the pool of one resource (deleted resource). */
  async drop(resource: string): Promise<void> {
    const current = this.pools.get(resource);
    this.pools.delete(resource);
    await current?.pool.end().catch(() => undefined);
  }

  /** Closes every pool (shutdown, tests). */
  async closeAll(): Promise<void> {
    const open = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(open.map((entry) => entry.pool.end().catch(() => undefined)));
  }
}
