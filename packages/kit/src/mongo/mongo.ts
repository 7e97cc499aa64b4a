import { MongoClient } from 'mongodb';
import type { Db, IndexDescription } from 'mongodb';

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
