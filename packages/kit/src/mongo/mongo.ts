import { MongoClient, MongoServerError } from 'mongodb';
import type { Collection, Db, Document, IndexDescription, OptionalUnlessRequiredId } from 'mongodb';

export class StoreUnavailableError extends Error {
  constructor(url: string, cause: unknown) {
    super(`cannot reach MongoDB at ${redact(url)}: ${(cause as Error)?.message ?? String(cause)}`, {
      cause,
    });
    this.name = 'StoreUnavailableError';
  }
}

function redact(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}

export interface MongoHandle {
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
}

/** Connects and pings, failing within `timeoutMs` with a clear error when unreachable. */
export async function connectMongo(
  url: string,
  options: { timeoutMs?: number; appName?: string } = {},
): Promise<MongoHandle> {
  const timeout = options.timeoutMs ?? 5_000;
  const client = new MongoClient(url, {
    serverSelectionTimeoutMS: timeout,
    connectTimeoutMS: timeout,
    ...(options.appName ? { appName: options.appName } : {}),
  });
  try {
    await client.connect();
    const db = client.db();
    await db.command({ ping: 1 });
    return { client, db, close: () => client.close() };
  } catch (err) {
    await client.close().catch(() => {});
    throw new StoreUnavailableError(url, err);
  }
}

/** Index specs per collection, created at start-up (creation is idempotent). */
export type IndexPlan = Record<string, IndexDescription[]>;

/**
 * Creates the plan's indexes one at a time: FerretDB 1.24 drops the connection when a single
 * createIndexes names two or more indexes that already exist, i.e. on every restart.
 */
export async function ensureIndexes(db: Db, plan: IndexPlan): Promise<void> {
  for (const [collection, indexes] of Object.entries(plan)) {
    for (const index of indexes) await db.collection(collection).createIndexes([index]);
  }
}

/** Mongo's error code for a write that hits a unique index. */
export const DUPLICATE_KEY = 11000;

/** Whether `err` is Mongo refusing a write because it hits a unique index. */
export function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY;
}

/**
 * Inserts `doc` unless a document with the same unique key (its `_id`, or a unique index) is
 * stored already: true when it was inserted, false when the key was taken. Other failures throw.
 */
export async function insertNew<T extends Document>(
  collection: Collection<T>,
  doc: OptionalUnlessRequiredId<T>,
): Promise<boolean> {
  try {
    await collection.insertOne(doc);
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}
