/**
 * Two memory services learning from the same events: both pull `call.completed` from one
 * durable consumer (each its own Mongo connection, store and audit reader, as two processes
 * would), every event is learnt by exactly one of them, and what is counted across both — three
 * same-shape uses propose a saved query — comes out as one instance alone would have it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallHandling } from '../src/learning/call-events.js';
import { completedCall, eventually, startMemory, uniqueName } from './harness.js';
import type { MemoryHarness } from './harness.js';

let h: MemoryHarness;
beforeAll(async () => {
  h = await startMemory({ auditWaitMs: 5_000 });
});
afterAll(async () => {
  await h?.close();
});

const byId = (id: string) => ({
  agent: 'bot',
  tool: 'es_orders_search',
  resource: 'es_orders',
  args: { filters: [{ field: 'id', op: 'eq', value: id }], fields: ['id', 'status'] },
});

describe('memory - two instances', () => {
  it('instances - two memory services on one durable consumer: each event learnt by exactly one, three same-shape uses across both propose one saved query per user', async () => {
    const durable = uniqueName('memory_shared');
    const seen: Array<{ by: 'a' | 'b'; handling: CallHandling }> = [];
    const other = await h.anotherInstance();
    const learnings = [
      await h.startLearning({ durable, onHandled: (handling) => seen.push({ by: 'a', handling }) }),
      await h.startLearning({
        durable,
        learner: other.learner,
        onHandled: (handling) => seen.push({ by: 'b', handling }),
      }),
    ];
    try {
      // Ten users, three same-shape lookups each, published interleaved and at once.
      const users = Array.from({ length: 10 }, (_, i) => `user-${i}`);
      const events = [0, 1, 2].flatMap((round) =>
        users.map((user) => completedCall(h.tenant, { ...byId(`${user}-${round}`), user })),
      );
      await Promise.all(events.map((event) => h.publishCall(event)));
      const callIds = events.map((e) =>
        e.payload.case === 'callCompleted' ? e.payload.value.callId : '',
      );
      const handled = await eventually(() => {
        const learnt = seen.filter((s) => s.handling.kind === 'learnt');
        return learnt.length >= events.length ? learnt : undefined;
      }, 60_000);
      const byCall = new Map<string, number>();
      for (const s of handled) {
        if (s.handling.kind !== 'learnt') continue;
        byCall.set(s.handling.call.callId, (byCall.get(s.handling.call.callId) ?? 0) + 1);
      }
      expect([...byCall.keys()].sort()).toEqual([...callIds].sort());
      expect([...byCall.values()].every((n) => n === 1)).toBe(true);
      // Waiting for audit to record a call is fine; dropping one is not.
      expect(seen.filter((s) => s.handling.kind === 'dropped')).toEqual([]);
      // Both did some of the work (one consumer, two pulling instances).
      expect(new Set(handled.map((s) => s.by))).toEqual(new Set(['a', 'b']));
      const candidates = await eventually(async () => {
        const found = await h.store.candidates
          .find({ tenant: h.tenant, agent: 'bot', kind: 'saved_query' })
          .toArray();
        return found.length >= users.length ? found : undefined;
      }, 30_000);
      // Give a duplicate proposal the time to appear, then count again.
      await new Promise((r) => setTimeout(r, 1_000));
      const final = await h.store.candidates
        .find({ tenant: h.tenant, agent: 'bot', kind: 'saved_query' })
        .toArray();
      expect(final).toHaveLength(candidates.length);
      expect(final.map((c) => c['user']).sort()).toEqual([...users].sort());
    } finally {
      for (const learning of learnings) await learning.stop();
    }
  }, 120_000);
});
