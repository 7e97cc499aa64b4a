import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@elastic/elasticsearch';
import { infra, uniqueName } from '../support/infra.js';

const client = new Client({ node: infra.esUrl });
const index = uniqueName('tg_smoke');

beforeAll(async () => {
  await client.indices.create({
    index,
    mappings: {
      properties: {
        id: { type: 'keyword' },
        amount: { type: 'scaled_float', scaling_factor: 100 },
        note: { type: 'text', fields: { keyword: { type: 'keyword' } } },
      },
    },
  });
});
afterAll(async () => {
  await client.indices.delete({ index, ignore_unavailable: true });
  await client.close();
});

describe('smoke - Elasticsearch', () => {
  it('es - the official client accepts the server (product check)', async () => {
    const info = await client.info();
    expect(info.version.number).toMatch(/^8\./);
  });

  it('es - bulk index, term query and _mapping', async () => {
    const bulk = await client.bulk({
      refresh: true,
      operations: [
        { index: { _index: index, _id: '12345' } },
        { id: '12345', amount: 99.5, note: 'first order' },
        { index: { _index: index, _id: '12346' } },
        { id: '12346', amount: 10, note: 'second order' },
      ],
    });
    expect(bulk.errors).toBe(false);
    const res = await client.search<{ id: string; amount: number }>({
      index,
      query: { term: { id: '12345' } },
    });
    expect(res.hits.hits.map((h) => h._source)).toEqual([
      { id: '12345', amount: 99.5, note: 'first order' },
    ]);
    const mapping = await client.indices.getMapping({ index });
    expect(mapping[index]?.mappings.properties?.amount).toEqual({
      type: 'scaled_float',
      scaling_factor: 100,
    });
  });
});
