import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Operator } from './operator.js';

/** A signed-in browser. The id travels only in an HTTP-only cookie; `csrf` only in the page. */
export interface Session {
  id: string;
  /** Sent back by the page on every mutation (`x-tollgate-csrf`). */
  csrf: string;
  operator: Operator;
  /** The tenant the session acts in now (one of `operator.tenants`). */
  tenant: string;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
}

/** A sign-in under way: what the callback must see again (state, nonce, PKCE verifier). */
export interface PendingLogin {
  state: string;
  nonce: string;
  codeVerifier: string;
  returnTo: string;
  createdAt: number;
}

/** How long a sign-in may take between the redirect and the callback. */
const LOGIN_TTL_MS = 10 * 60_000;
const MAX_PENDING = 10_000;

/** A random token of `bytes` bytes, base64url. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Constant-time comparison of two strings. */
export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Sessions and sign-ins in this process's memory: a restart signs everybody out, and several
 * console instances need sticky routing (documented in the README).
 */
export class SessionStore {
  readonly #sessions = new Map<string, Session>();
  readonly #pending = new Map<string, PendingLogin>();
  readonly #ttlMs: number;
  readonly #idleMs: number;
  readonly #now: () => number;

  constructor(options: { ttlSeconds: number; idleSeconds: number; now?: () => number }) {
    this.#ttlMs = options.ttlSeconds * 1000;
    this.#idleMs = options.idleSeconds * 1000;
    this.#now = options.now ?? Date.now;
  }

  /** Starts a session for `operator` in its first tenant. */
  create(operator: Operator): Session {
    this.#sweep();
    const now = this.#now();
    const session: Session = {
      id: randomToken(),
      csrf: randomToken(),
      operator,
      tenant: operator.tenants[0] ?? '',
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + this.#ttlMs,
    };
    this.#sessions.set(session.id, session);
    return session;
  }

  /** The live session with this id (touching it), or undefined when unknown or expired. */
  get(id: string | undefined): Session | undefined {
    if (id === undefined) return undefined;
    const session = this.#sessions.get(id);
    if (session === undefined) return undefined;
    const now = this.#now();
    if (now >= session.expiresAt || now - session.lastSeenAt >= this.#idleMs) {
      this.#sessions.delete(id);
      return undefined;
    }
    session.lastSeenAt = now;
    return session;
  }

  end(id: string): void {
    this.#sessions.delete(id);
  }

  /** Remembers a sign-in started now; the oldest are dropped past a bound. */
  begin(login: Omit<PendingLogin, 'createdAt'>): void {
    this.#sweep();
    if (this.#pending.size >= MAX_PENDING) {
      const oldest = this.#pending.keys().next().value;
      if (oldest !== undefined) this.#pending.delete(oldest);
    }
    this.#pending.set(login.state, { ...login, createdAt: this.#now() });
  }

  /** Takes the sign-in for `state` (once), or undefined when unknown or too old. */
  finish(state: string): PendingLogin | undefined {
    const login = this.#pending.get(state);
    if (login === undefined) return undefined;
    this.#pending.delete(state);
    return this.#now() - login.createdAt < LOGIN_TTL_MS ? login : undefined;
  }

  #sweep(): void {
    const now = this.#now();
    for (const [id, s] of this.#sessions) {
      if (now >= s.expiresAt || now - s.lastSeenAt >= this.#idleMs) this.#sessions.delete(id);
    }
    for (const [state, p] of this.#pending) {
      if (now - p.createdAt >= LOGIN_TTL_MS) this.#pending.delete(state);
    }
  }
}
