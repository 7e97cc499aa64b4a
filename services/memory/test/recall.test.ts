import { describe, expect, it } from 'vitest';
import { rankMemory } from '../src/recall.js';
import type { RecallItem } from '../src/recall.js';

const items: RecallItem[] = [
  {
    id: 'p1',
    kind: 'preference',
    name: 'frequent_resource:es_orders',
    text: 'Usually queries es_orders.',
    terms: ['es_orders'],
    freshness: 1,
  },
  {
    id: 'p2',
    kind: 'preference',
    name: 'answer_language',
    text: 'Answers in Chinese.',
    terms: ['zh'],
    freshness: 3,
  },
  {
    id: 'q1',
    kind: 'saved_query',
    name: 'order_details_by_id',
    text: 'Order details by id.',
    terms: ['es_orders_get', 'id'],
    freshness: 2,
  },
  {
    id: 's1',
    kind: 'skill',
    name: 'refund_check',
    text: 'Checks whether an order was refunded.',
    terms: ['es_refunds_search'],
    freshness: 2,
  },
  {
    id: 's2',
    kind: 'skill',
    name: '退款核对',
    text: '核对订单是否已退款',
    terms: [],
    freshness: 2,
  },
];

describe('recall - ranking', () => {
  it('recall - matching items come first; unmatched preferences follow; unmatched capabilities are left out', () => {
    const ranked = rankMemory('was order 123 refunded?', items, 10);
    expect(ranked[0]?.item.id).toBe('s1');
    expect(
      ranked
        .slice(1, 3)
        .map((r) => r.item.id)
        .sort(),
    ).toEqual(['p1', 'q1']);
    expect(ranked[3]?.item.id).toBe('p2');
    expect(ranked.slice(0, 3).every((r) => r.score > 0)).toBe(true);
    expect(ranked[3]?.score).toBe(0);
  });

  it('recall - Chinese tasks match Chinese items', () => {
    expect(rankMemory('这个订单退款了吗', items, 1).map((r) => r.item.id)).toEqual(['s2']);
  });

  it('recall - no task lists the freshest items; top-k caps the answer', () => {
    expect(rankMemory('', items, 3).map((r) => r.item.id)).toEqual(['p2', 'q1', 's1']);
    expect(rankMemory('order', items, 2)).toHaveLength(2);
  });
});
