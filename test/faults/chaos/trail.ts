import type { Collection, Document, Filter } from 'mongodb';
import { ChainWalk, GENESIS } from '../../../services/audit/src/chain/chain.js';
import { parseAuditDocument } from '../../../services/audit/src/record.js';

/** How one call appears in the audit trail so far. */
export interface CallTrail {
  /** Records of its outcome (completed or denied); exactly one is right. */
  outcomes: number;
  /** Its write-ahead `call.started` is stored. */
  started: boolean;
  /** When a poll first found one of its records (ms since the epoch). */
  firstSeenAt: number;
}

/**
 * Follows the audit trail as it grows: each poll reads only the records after those already
 * read (per tenant, by sequence number), walks every tenant's hash chain on from where the
 * previous poll stopped, and counts each call's records. One query per poll: on the local
 * stack's FerretDB every query but an `_id` lookup scans the collection, so a checker that
 * re-read the trail for each trial (and four times a second while waiting) grew slower with
 * every trial and competed with the audit service it was waiting for.
 */
export class TrailWatch {
  readonly #records: Collection<Document>;
  /** Per tenant, its chain's walk and the last sequence number read. */
  readonly #chains = new Map<string, { walk: ChainWalk; last: number; gapBefore?: number }>();
  readonly #calls = new Map<string, CallTrail>();
  /** The first break of each chain, as a violation line. */
  readonly breaks: string[] = [];

  constructor(records: Collection<Document>) {
    this.#records = records;
  }

  /** The call's records so far (none: zero outcomes, not started). */
  call(callId: string): CallTrail {
    return this.#calls.get(callId) ?? { outcomes: 0, started: false, firstSeenAt: 0 };
  }

  /** Whether the call's outcome, or its start, is in the trail. */
  seen(callId: string): boolean {
    const c = this.call(callId);
    return c.outcomes > 0 || c.started;
  }

  /** Reads what was stored since the last poll. */
  async poll(): Promise<void> {
    const known = [...this.#chains];
    const filter: Filter<Document> = {
      $or: [
        ...known.map(([tenant, chain]) => ({ tenant, seq: { $gt: chain.last } })),
        { tenant: { $nin: known.map(([tenant]) => tenant) } },
      ],
    };
    const byTenant = new Map<string, Document[]>();
    for (const doc of await this.#records.find(filter).toArray()) {
      const tenant = String(doc['tenant']);
      byTenant.set(tenant, [...(byTenant.get(tenant) ?? []), doc]);
    }
    for (const [tenant, list] of byTenant) {
      let chain = this.#chains.get(tenant);
      if (!chain) this.#chains.set(tenant, (chain = { walk: new ChainWalk(GENESIS), last: 0 }));
      list.sort((a, b) => Number(a['seq']) - Number(b['seq']));
      delete chain.gapBefore;
      for (const raw of list) {
        // A record whose predecessor is not visible yet waits for the next poll.
        if (Number(raw['seq']) !== chain.last + 1) {
          chain.gapBefore = Number(raw['seq']);
          break;
        }
        if (!chain.walk.broken) {
          const broken = chain.walk.next(parseAuditDocument(raw));
          if (broken) this.breaks.push(`chain ${tenant} breaks: ${JSON.stringify(broken)}`);
        }
        chain.last++;
        this.#count(raw);
      }
    }
  }

  /** The chain breaks, and the gaps the last poll still saw (a record that never came). */
  problems(): string[] {
    const gaps = [...this.#chains].flatMap(([tenant, c]) =>
      c.gapBefore === undefined
        ? []
        : [`chain ${tenant}: record ${c.last + 1} is missing (next stored is ${c.gapBefore})`],
    );
    return [...this.breaks, ...gaps];
  }

  #count(raw: Document): void {
    const id = String(raw['call_id'] ?? '');
    const type = String(raw['type']);
    if (id === '' || !type.startsWith('call.')) return;
    const c = this.#calls.get(id) ?? { outcomes: 0, started: false, firstSeenAt: Date.now() };
    if (type === 'call.started') c.started = true;
    else c.outcomes++;
    this.#calls.set(id, c);
  }
}
