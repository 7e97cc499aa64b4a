/**
 * A service that reacts to agents' completed calls (a ticket router acting when an outreach
 * agent's call completes) without being an agent: it connects with an event-subscriber token
 * (audience `tollgate-events`) and the bus lets it read its own tenant's `call.completed` events
 * and nothing else — no other tenant's events, no publishing, no streams or buckets.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { EventTypes, subjects } from '@tollgate/contracts/bus';
import { EVENTS_TOKEN_AUDIENCE } from '@tollgate/core';
import { CompletionFeed } from './completions.js';
import type { CompletionEvent, CompletionSubscription } from './completions.js';
import { connectWithToken } from './connection.js';
import type { BusConnectOptions } from './connection.js';
import { toolCallError } from './errors.js';
import { readTokenClaims } from './protocol.js';
import type { TokenClaims } from './protocol.js';

/** `CompletionSubscriber.connect` options. */
export interface SubscriberOptions extends BusConnectOptions {
  /** Told about failures of handlers (which never stop the subscription). */
  onError?: (err: unknown) => void;
}

export class CompletionSubscriber {
  readonly #nc: NatsConnection;
  readonly #feed: CompletionFeed;
  readonly #tenant: string;
  readonly #reportError: (err: unknown) => void;

  private constructor(nc: NatsConnection, claims: TokenClaims, onError: (err: unknown) => void) {
    this.#nc = nc;
    this.#tenant = claims.tenant;
    this.#reportError = onError;
    this.#feed = new CompletionFeed(
      nc,
      subjects.event(EventTypes.callCompleted, claims.tenant),
      onError,
    );
  }

  /** Connects with a subscriber token (`issuePrincipalToken(..., { audience: 'tollgate-events' })`). */
  static async connect(options: SubscriberOptions): Promise<CompletionSubscriber> {
    const claims = readTokenClaims(options.token);
    if (claims === undefined || !audiences(options.token).includes(EVENTS_TOKEN_AUDIENCE)) {
      throw toolCallError({
        code: 'UNAUTHENTICATED',
        message: `an event subscriber needs a Tollgate token for the "${EVENTS_TOKEN_AUDIENCE}" audience`,
      });
    }
    const nc = await connectWithToken(options, { name: `tollgate-subscriber-${claims.agent}` });
    return new CompletionSubscriber(nc, claims, options.onError ?? (() => undefined));
  }

  /** The tenant whose completions this subscriber receives. */
  get tenant(): string {
    return this.#tenant;
  }

  /**
   * Delivers every `call.completed` of the tenant from now until `close()` (a core NATS
   * subscription: events published while disconnected are not replayed; the audit service
   * keeps them all). Resolves once the server has registered the subscription.
   */
  async onCompletion(
    handler: (event: CompletionEvent) => void | Promise<void>,
  ): Promise<CompletionSubscription> {
    const subscription = this.#feed.listen((event) => {
      if (event.tenant !== this.#tenant) return;
      const done = handler(event);
      if (done instanceof Promise) done.catch((err: unknown) => this.#reportError(err));
    });
    await this.#nc.flush();
    return subscription;
  }

  async close(): Promise<void> {
    this.#feed.close();
    await this.#nc.drain();
  }
}

function audiences(token: string): string[] {
  try {
    const payload = JSON.parse(
      Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'),
    ) as {
      aud?: unknown;
    };
    if (typeof payload.aud === 'string') return [payload.aud];
    return Array.isArray(payload.aud)
      ? payload.aud.filter((a): a is string => typeof a === 'string')
      : [];
  } catch {
    return [];
  }
}
