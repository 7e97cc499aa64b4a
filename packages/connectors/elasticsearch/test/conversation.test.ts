import { describe, expect, it } from 'vitest';
import { readElasticsearchMention } from '../src/kind/conversation.js';

describe('conversation reading', () => {
  it('conversation reading - a Chinese description with full-width punctuation reads like the English one', () => {
    const zh = readElasticsearchMention(
      '我有一个 Elasticsearch，地址 http://127.0.0.1:9200，索引 orders，id 是 keyword，amount 是 double，凭据 env://TOLLGATE_TEAM_A__PROD__ES_ORDERS，角色 support、order_ops',
    );
    const en = readElasticsearchMention(
      'I have an ES at http://127.0.0.1:9200, index orders, id is keyword, amount is a double, credential env://TOLLGATE_TEAM_A__PROD__ES_ORDERS, roles support and order_ops',
    );
    expect(zh).toEqual(en);
    expect(zh).toMatchObject({
      metadata: { name: 'es_orders' },
      spec: {
        connection: {
          endpoint: 'http://127.0.0.1:9200',
          credentialRef: 'env://TOLLGATE_TEAM_A__PROD__ES_ORDERS',
        },
        target: { index: 'orders' },
        schema: { fields: { id: { type: 'keyword' }, amount: { type: 'double' } } },
        access: { allowedRoles: ['support', 'order_ops'] },
      },
    });
  });

  it('conversation reading - a sentence about something else is not a resource', () => {
    expect(readElasticsearchMention('find order 12345')).toBeUndefined();
  });
});
