import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { ResourceCatalog, createLogger, openBucket } from '../src/index.js';
import { descriptor, published } from './support/resources.js';
import { connectTestBus, eventually, infra, uniqueName } from '../../../test/support/infra.js';

const logger = createLogger({ service: 'test', level: 'silent' });

describe('resource catalog - following a bucket (real NATS)', () => {
  let nc: NatsConnection;

  beforeAll(async () => {
    nc = await connectTestBus({ url: infra.natsUrl, name: 'kit-catalog-test' });
  });

  afterAll(async () => {
    await nc.drain();
  });

  it('resource catalog - loads the bucket, then reports each later change with its tenant', async () => {
    const kv = await openBucket(nc, uniqueName('kit_res'));
    try {
      await kv.put(
        'team-a.prod.es_orders',
        JSON.stringify(published(descriptor('team-a', 'prod', 'es_orders'))),
      );
      const changes: string[] = [];
      const catalog = await ResourceCatalog.follow(kv, logger, {
        onChange: (tenant, change) => changes.push(`${tenant}:${change.kind}`),
      });
      try {
        expect(catalog.get({ tenant: 'team-a', environment: 'prod' }, 'es_orders')?.version).toBe(
          1,
        );
        expect(changes).toEqual([]);
        await kv.put(
          'team-b.prod.es_orders',
          JSON.stringify(published(descriptor('team-b', 'prod', 'es_orders'))),
        );
        await kv.put('team-a.prod.es_orders', 'not json');
        await kv.put('team-c.prod.es_orders', 'not json');
        await kv.delete('team-b.prod.es_orders');
        await eventually(() => (changes.length === 3 ? true : undefined));
        expect(changes).toEqual(['team-b:added', 'team-a:rejected', 'team-b:removed']);
        expect(catalog.size).toBe(0);
      } finally {
        catalog.stop();
      }
    } finally {
      await kv.destroy();
    }
  });
});
