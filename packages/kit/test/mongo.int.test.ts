import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMongo, ensureIndexes, insertNew, isDuplicateKey } from '../src/index.js';
import type { MongoHandle } from '../src/index.js';
import { infra, uniqueName } from '../../../test/support/infra.js';

interface Row {
  _id: string;
  email: string;
}

describe('mongo helpers (real FerretDB)', () => {
  let mongo: MongoHandle;

  beforeAll(async () => {
    mongo = await connectMongo(`${infra.mongoUrl}/${uniqueName('kit_mongo')}`);
    await ensureIndexes(mongo.db, { rows: [{ key: { email: 1 }, name: 'email', unique: true }] });
  });

  afterAll(async () => {
    await mongo.db.dropDatabase();
    await mongo.close();
  });

  it('insertNew - true once, false for a taken _id or unique key, and the first document stays', async () => {
    const rows = mongo.db.collection<Row>('rows');
    expect(await insertNew(rows, { _id: 'a', email: 'a@example.com' })).toBe(true);
    expect(await insertNew(rows, { _id: 'a', email: 'other@example.com' })).toBe(false);
    expect(await insertNew(rows, { _id: 'b', email: 'a@example.com' })).toBe(false);
    expect(await rows.find({}).toArray()).toEqual([{ _id: 'a', email: 'a@example.com' }]);
  });

  it('isDuplicateKey - only a unique-index refusal counts; other failures are thrown by insertNew', async () => {
    const rows = mongo.db.collection<Row>('rows');
    const duplicate = await rows.insertOne({ _id: 'a', email: 'x@example.com' }).catch((e) => e);
    expect(isDuplicateKey(duplicate)).toBe(true);
    expect(isDuplicateKey(new Error('E11000 duplicate key'))).toBe(false);
    expect(isDuplicateKey({ code: 11000 })).toBe(false);
    const bad = { _id: 'c', email: 'c@example.com', $bad: 1 } as unknown as Row;
    const failure: unknown = await insertNew(rows, bad).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(isDuplicateKey(failure)).toBe(false);
  });
});
