/**
 * Coalesces bundle rebuilds per tenant: a request starts a rebuild at once when none ran in the
 * last `windowMs`; otherwise it joins the one next rebuild, which starts when the window has
 * passed and the running one has finished. Bursts (an `apply -f` of a directory, the registry
 * changing many resources) cost one rebuild per window, and a lone change is not delayed.
 * Every request resolves with the outcome of a rebuild that started after it was made.
 */
export class RebuildScheduler<C, O> {
  readonly #run: (tenant: string, changes: C[]) => Promise<O>;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #slots = new Map<string, Slot<C, O>>();
  #stopped = false;

  constructor(options: {
    /** Rebuilds one tenant for the changes collected since the last rebuild. */
    run: (tenant: string, changes: C[]) => Promise<O>;
    windowMs: number;
    now?: () => number;
  }) {
    this.#run = options.run;
    this.#windowMs = options.windowMs;
    this.#now = options.now ?? Date.now;
  }

  /** Asks for a rebuild of `tenant` that includes `change`. */
  request(tenant: string, change?: C): Promise<O> {
    if (this.#stopped) return Promise.reject(new Error('rebuild scheduler stopped'));
    const slot = this.#slot(tenant);
    const waiting = (slot.waiting ??= { changes: [], waiters: [] });
    if (change !== undefined) waiting.changes.push(change);
    const outcome = new Promise<O>((resolve, reject) => waiting.waiters.push({ resolve, reject }));
    this.#kick(tenant, slot);
    return outcome;
  }

  /** Stops starting rebuilds; waits for running ones. Waiting requests are rejected. */
  async stop(): Promise<void> {
    this.#stopped = true;
    const running: Promise<unknown>[] = [];
    for (const slot of this.#slots.values()) {
      if (slot.timer !== undefined) clearTimeout(slot.timer);
      slot.timer = undefined;
      for (const w of slot.waiting?.waiters ?? []) w.reject(new Error('rebuild scheduler stopped'));
      slot.waiting = undefined;
      if (slot.running) running.push(slot.running);
    }
    await Promise.allSettled(running);
  }

  #slot(tenant: string): Slot<C, O> {
    let slot = this.#slots.get(tenant);
    if (slot === undefined) {
      slot = { lastStart: Number.NEGATIVE_INFINITY };
      this.#slots.set(tenant, slot);
    }
    return slot;
  }

  #kick(tenant: string, slot: Slot<C, O>): void {
    if (this.#stopped || slot.running || slot.timer !== undefined || !slot.waiting) return;
    const delay = slot.lastStart + this.#windowMs - this.#now();
    if (delay > 0) {
      slot.timer = setTimeout(() => {
        slot.timer = undefined;
        this.#kick(tenant, slot);
      }, delay);
      return;
    }
    const batch = slot.waiting;
    slot.waiting = undefined;
    slot.lastStart = this.#now();
    const running = (async () => {
      try {
        const outcome = await this.#run(tenant, batch.changes);
        for (const w of batch.waiters) w.resolve(outcome);
      } catch (err) {
        for (const w of batch.waiters) w.reject(err);
      }
    })();
    slot.running = running;
    void running.finally(() => {
      slot.running = undefined;
      this.#kick(tenant, slot);
    });
  }
}

interface Waiter<O> {
  resolve(outcome: O): void;
  reject(err: unknown): void;
}

interface Slot<C, O> {
  lastStart: number;
  running?: Promise<void> | undefined;
  timer?: NodeJS.Timeout | undefined;
  waiting?: { changes: C[]; waiters: Waiter<O>[] } | undefined;
}
