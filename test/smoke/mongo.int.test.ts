import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMongo, ensureIndexes } from '@tollgate/kit';
import type { IndexPlan, MongoHandle } from '@tollgate/kit';
import { infra, uniqueName } from '../support/infra.js';

let mongo: MongoHandle;
const dbName = uniqueName('smoke');

beforeAll(async () => {
  mongo = await connectMongo(`${infra.mongoUrl}/${dbName}`);
});
afterAll(async () => {
  await mongo?.db.dropDatabase();
  await mongo?.close();
});

describe('smoke - MongoDB wire protocol (FerretDB)', () => {
  it('mongo - insert, find and a unique index through the official driver', async () => {
    await ensureIndexes(mongo.db, {
      versions: [
        { key: { tenant: 1, name: 1, version: 1 }, unique: true, name: 'tenant_name_version' },
      ],
    });
    const versions = mongo.db.collection('versions');
    await versions.insertOne({ tenant: 'team-a', name: 'es_orders', version: 1 });
    await expect(
      versions.insertOne({ tenant: 'team-a', name: 'es_orders', version: 1 }),
    ).rejects.toMatchObject({
      code: 11000,
    });
    const found = await versions.find({ tenant: 'team-a' }, { projection: { _id: 0 } }).toArray();
    expect(found).toEqual([{ tenant: 'team-a', name: 'es_orders', version: 1 }]);
    const indexes = await versions.listIndexes().toArray();
    expect(indexes.map((i) => i.name)).toContain('tenant_name_version');
  });

  it('mongo - ensuring the same indexes again (a restart) changes nothing and keeps the connection', async () => {
    const plan: IndexPlan = {
      approvals: [
        { key: { tenant: 1, status: 1, requestedAt: 1 }, name: 'pending_by_tenant' },
        { key: { status: 1, expiresAt: 1 }, name: 'expiry' },
      ],
    };
    await ensureIndexes(mongo.db, plan);
    await ensureIndexes(mongo.db, plan);
    const names = (await mongo.db.collection('approvals').listIndexes().toArray()).map(
      (i) => i.name,
    );
    expect(names.sort()).toEqual(['_id_', 'expiry', 'pending_by_tenant']);
  });

  it('mongo - an unreachable server fails fast with a clear error', async () => {
    const started = Date.now();
    await expect(connectMongo('mongodb://127.0.0.1:1/x', { timeoutMs: 500 })).rejects.toThrow(
      /cannot reach MongoDB at mongodb:\/\/127\.0\.0\.1:1\/x/,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
