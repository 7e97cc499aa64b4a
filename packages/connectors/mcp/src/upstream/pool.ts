/**
 * The sessions a process holds: one per resource version and tenant (never shared across
 * tenants), opened on first use, replaced when closed (a killed or crashed server is started
 * again on the next call), and closed after `idleMs` without calls.
 */
import { canonicalHash } from '@tollgate/core';
import type { CredentialResolver, ResourceDescriptor } from '@tollgate/core';
import { mcpSpec } from '../kind/spec.js';
import { UpstreamSession } from './session.js';
import type { Withdrawal } from './session.js';

/** Told when a session of a resource version withdraws one of its tools. */
export type PoolWithdrawalListener = (
  descriptor: ResourceDescriptor,
  withdrawal: Withdrawal,
) => void;

const IDLE_MS = 5 * 60_000;

interface Entry {
  session: Promise<UpstreamSession>;
  idle?: NodeJS.Timeout;
}

export class SessionPool {
  readonly #entries = new Map<string, Entry>();
  readonly #idleMs: number;
  onWithdraw: PoolWithdrawalListener | undefined;

  constructor(idleMs = IDLE_MS) {
    this.#idleMs = idleMs;
  }

  /** The key of a descriptor's session: tenant, environment, name and the spec's hash. */
  static keyOf(descriptor: ResourceDescriptor): string {
    const { tenant, environment, name } = descriptor.metadata;
    return `${tenant}/${environment}/${name}@${canonicalHash(descriptor.spec)}`;
  }

  /** The open session for `descriptor`, started when there is none (or it closed). */
  async session(
    descriptor: ResourceDescriptor,
    credentials: CredentialResolver,
  ): Promise<UpstreamSession> {
    const key = SessionPool.keyOf(descriptor);
    let entry = this.#entries.get(key);
    if (entry !== undefined) {
      const open = await entry.session.catch(() => undefined);
      if (open === undefined || open.closed) {
        this.#entries.delete(key);
        entry = undefined;
      }
    }
    if (entry === undefined) {
      const session = UpstreamSession.open(
        mcpSpec(descriptor),
        descriptor.metadata.name,
        credentials,
        (_resource, w) => this.onWithdraw?.(descriptor, w),
      );
      entry = { session };
      this.#entries.set(key, entry);
      session.catch(() => this.#entries.delete(key));
    }
    this.#touch(key, entry);
    return entry.session;
  }

  /** Ends the session of `descriptor` (after a hang); the next call starts a new one. */
  async discard(descriptor: ResourceDescriptor): Promise<void> {
    const key = SessionPool.keyOf(descriptor);
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    clearTimeout(entry.idle);
    const session = await entry.session.catch(() => undefined);
    await session?.close();
  }

  /** Whether a session of `descriptor` is held. */
  has(descriptor: ResourceDescriptor): boolean {
    return this.#entries.has(SessionPool.keyOf(descriptor));
  }

  /** Open sessions (for tests and metrics). */
  get size(): number {
    return this.#entries.size;
  }

  async close(): Promise<void> {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(
      entries.map(async (entry) => {
        clearTimeout(entry.idle);
        const session = await entry.session.catch(() => undefined);
        await session?.close();
      }),
    );
  }

  #touch(key: string, entry: Entry): void {
    clearTimeout(entry.idle);
    entry.idle = setTimeout(() => {
      if (this.#entries.get(key) !== entry) return;
      this.#entries.delete(key);
      void entry.session.then(
        (s) => s.close(),
        () => undefined,
      );
    }, this.#idleMs);
    entry.idle.unref();
  }
}
