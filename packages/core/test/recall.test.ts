import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecallIndex, recallDocumentFromResource, tokenize } from '../src/index.js';
import type { RecallDocument } from '../src/index.js';
import { ENVIRONMENTS, TENANTS, corpusWords, syntheticResources } from './recall-fixtures.js';
import { orders } from './synthesis-fixtures.js';

function indexOf(docs: RecallDocument[]): RecallIndex {
  const index = new RecallIndex();
  for (const doc of docs) index.upsert(doc);
  return index;
}

const scopes = TENANTS.flatMap((tenant) =>
  ENVIRONMENTS.map((environment) => ({ tenant, environment })),
);

describe('recall tokenizer', () => {
  it('recall tokenizer - splits names and camelCase, lower-cases, stems plurals, keeps digits', () => {
    expect(tokenize('es_orders userId Order12345 Categories, STATUS')).toEqual([
      'es',
      'order',
      'user',
      'id',
      'order',
      '12345',
      'category',
      'status',
    ]);
    expect(tokenize('the list of invoices for a customer')).toEqual([
      'list',
      'invoice',
      'customer',
    ]);
  });

  it('recall tokenizer - CJK text becomes unigrams and bigrams, broken at particles', () => {
    expect(tokenize('网店订单')).toEqual(['网', '网店', '店', '店订', '订', '订单', '单']);
    expect(tokenize('搜索 id 为 12345 的订单')).toEqual([
      '搜',
      '搜索',
      '索',
      'id',
      '12345',
      '订',
      '订单',
      '单',
    ]);
    expect(tokenize('ＯＲＤＥＲ１２')).toEqual(['order', '12']);
  });
});

describe('recall index', () => {
  const index = indexOf(syntheticResources());

  it('recall index - holds 300 resources across 3 tenants and 2 environments', () => {
    expect(index.size).toBe(300);
  });

  it('recall index - "find order 12345" ranks the orders resource first in every scope', () => {
    for (const scope of scopes) {
      const hits = index.search('find order 12345', { scope, topK: 5 });
      expect(hits[0]?.name, JSON.stringify(scope)).toBe('es_orders');
      expect(hits[0]?.id).toBe(`${scope.tenant}/${scope.environment}/es_orders`);
      expect(hits.length).toBe(5);
    }
  });

  it('recall index - "搜索 id 为 12345 的订单" ranks the orders resource first where resources are described in Chinese', () => {
    for (const scope of scopes.filter((s) => s.tenant !== 'team-a')) {
      const hits = index.search('搜索 id 为 12345 的订单', { scope, topK: 3 });
      expect(hits[0]?.name, JSON.stringify(scope)).toBe('es_orders');
    }
  });

  it('recall index - related resources follow, ranked by score then name', () => {
    const hits = index.search('shipment tracking number', {
      scope: { tenant: 'team-a', environment: 'prod' },
    });
    expect(
      hits
        .map((h) => h.name)
        .slice(0, 2)
        .sort(),
    ).toEqual(['es_shipment_events', 'es_shipments']);
    for (let i = 1; i < hits.length; i++) {
      const [a, b] = [hits[i - 1]!, hits[i]!];
      expect(a.score > b.score || (a.score === b.score && a.name < b.name)).toBe(true);
    }
  });

  it('recall index - never returns a resource of another tenant or environment', () => {
    const words = corpusWords();
    const query = fc
      .array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 })
      .map((w) => w.join(' '));
    const scope = fc.oneof(
      fc.constantFrom(...scopes),
      fc.record({
        tenant: fc.constantFrom(...TENANTS, 'team-z'),
        environment: fc.constantFrom('prod', 'dev'),
      }),
    );
    const boosts = fc.dictionary(
      fc.constantFrom('es_orders', 'es_invoices', 'es_app_logs'),
      fc.double({ min: 0, max: 10, noNaN: true }),
    );
    fc.assert(
      fc.property(query, scope, fc.integer({ min: 1, max: 100 }), boosts, (q, s, topK, b) => {
        for (const hit of index.search(q, { scope: s, topK, boosts: b })) {
          expect(
            hit.id.startsWith(`${s.tenant}/${s.environment}/`),
            `${q} in ${JSON.stringify(s)}`,
          ).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('recall index - isolation holds while documents are added, moved and removed', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('upsert' as const),
        n: fc.nat(20),
        tenant: fc.constantFrom('t1', 't2'),
        env: fc.constantFrom('prod', 'dev'),
      }),
      fc.record({ kind: fc.constant('remove' as const), n: fc.nat(20) }),
    );
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 40 }),
        fc.constantFrom('orders', 'invoice 12', 'log'),
        (ops, q) => {
          const live = new RecallIndex();
          const where = new Map<string, string>();
          for (const o of ops) {
            const id = `doc-${o.n}`;
            if (o.kind === 'upsert') {
              live.upsert({
                id,
                tenant: o.tenant,
                environment: o.env,
                name: `es_${['orders', 'invoices', 'logs'][o.n % 3]}_${o.n}`,
                description: 'orders invoice 12 log',
              });
              where.set(id, `${o.tenant}/${o.env}`);
            } else {
              expect(live.remove(id)).toBe(where.delete(id));
            }
          }
          expect(live.size).toBe(where.size);
          for (const tenant of ['t1', 't2']) {
            for (const environment of ['prod', 'dev']) {
              const hits = live.search(q, { scope: { tenant, environment }, topK: 50 });
              for (const hit of hits) expect(where.get(hit.id)).toBe(`${tenant}/${environment}`);
              expect(hits.length).toBe(
                [...where.values()].filter((s) => s === `${tenant}/${environment}`).length,
              );
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('recall index - a filter narrows within the scope and can never widen it', () => {
    const scope = { tenant: 'team-a', environment: 'prod' };
    const hits = index.search('order', {
      scope,
      filter: (doc) => doc.name !== 'es_orders',
      topK: 3,
    });
    expect(hits.map((h) => h.name)).not.toContain('es_orders');
    const everything = index.search('order', { scope, filter: () => true, topK: 1000 });
    expect(everything.every((h) => h.id.startsWith('team-a/prod/'))).toBe(true);
  });

  it('recall index - preference boosts reorder results; a zero boost excludes', () => {
    const scope = { tenant: 'team-a', environment: 'prod' };
    const plain = index.search('order', { scope, topK: 3 }).map((h) => h.name);
    expect(plain[0]).toBe('es_orders');
    const boosted = index
      .search('order', { scope, topK: 3, boosts: { es_order_returns: 5 } })
      .map((h) => h.name);
    expect(boosted[0]).toBe('es_order_returns');
    const excluded = index
      .search('order', { scope, topK: 50, boosts: { es_orders: 0 } })
      .map((h) => h.name);
    expect(excluded).not.toContain('es_orders');
  });

  it('recall index - equal scores tie-break by name, deterministically', () => {
    const twins = indexOf(
      ['es_zeta', 'es_alpha', 'es_mid'].map((name) => ({
        id: name,
        tenant: 't',
        environment: 'e',
        name,
        description: 'Refund ledger',
      })),
    );
    const hits = twins.search('refund', { scope: { tenant: 't', environment: 'e' } });
    expect(hits.map((h) => h.name)).toEqual(['es_alpha', 'es_mid', 'es_zeta']);
    expect(new Set(hits.map((h) => h.score)).size).toBe(1);
  });

  it('recall index - upsert replaces a document, moving it across scopes; remove forgets it', () => {
    const live = new RecallIndex();
    const doc: RecallDocument = {
      id: 'x',
      tenant: 't1',
      environment: 'prod',
      name: 'es_tickets',
      description: 'Support tickets',
    };
    live.upsert(doc);
    expect(live.search('ticket', { scope: { tenant: 't1', environment: 'prod' } })).toHaveLength(1);
    live.upsert({ ...doc, description: 'Refunds' });
    expect(live.search('support', { scope: { tenant: 't1', environment: 'prod' } })).toHaveLength(
      0,
    );
    expect(live.search('refund', { scope: { tenant: 't1', environment: 'prod' } })).toHaveLength(1);
    live.upsert({ ...doc, tenant: 't2' });
    expect(live.search('ticket', { scope: { tenant: 't1', environment: 'prod' } })).toHaveLength(0);
    expect(live.search('ticket', { scope: { tenant: 't2', environment: 'prod' } })).toHaveLength(1);
    expect(live.size).toBe(1);
    expect(live.remove('x')).toBe(true);
    expect(live.remove('x')).toBe(false);
    expect(live.search('ticket', { scope: { tenant: 't2', environment: 'prod' } })).toEqual([]);
  });

  it('recall index - search insists on a scope and sane options', () => {
    const search = (options: unknown): unknown =>
      index.search('order', options as Parameters<RecallIndex['search']>[1]);
    expect(() => search({})).toThrow(
      'recall search needs a scope with a tenant and an environment',
    );
    expect(() => search({ scope: { tenant: 'team-a' } })).toThrow(
      'recall search needs a scope with a tenant and an environment',
    );
    expect(() => search({ scope: { tenant: 'team-a', environment: 'prod' }, topK: 0 })).toThrow(
      'topK must be an integer from 1 to 1000; found 0',
    );
    expect(() =>
      search({ scope: { tenant: 'team-a', environment: 'prod' }, boosts: { es_orders: -1 } }),
    ).toThrow('boost for es_orders must be a finite number >= 0; found -1');
    expect(() => index.upsert({ id: '', tenant: 't', environment: 'e', name: 'n' })).toThrow(
      'recall document id must be a non-empty string',
    );
    expect(index.search('   ', { scope: { tenant: 'team-a', environment: 'prod' } })).toEqual([]);
  });

  it('recall index - a resource descriptor becomes a document with its fields', () => {
    const doc = recallDocumentFromResource(orders());
    expect(doc).toMatchObject({
      id: 'team-a/prod/es_orders',
      tenant: 'team-a',
      environment: 'prod',
      name: 'es_orders',
    });
    expect(doc.fields).toContainEqual({
      name: 'amount',
      description: 'Order total in EUR, tax included',
    });
    const live = indexOf([doc]);
    expect(
      live.search('loyalty tier', { scope: { tenant: 'team-a', environment: 'prod' } })[0]?.name,
    ).toBe('es_orders');
  });
});
