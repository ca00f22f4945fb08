import { ConfigError } from './config';
import { MongoClient, type Collection, type CreateIndexesOptions, type Db, type IndexSpecification, type Document } from 'mongodb';

export interface MongoHandle {
  client: MongoClient;
  db: Db;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Connects with bounded timeouts so that start-up and readiness fail visibly instead of hanging. */
export async function connectMongo(url: string, dbName: string): Promise<MongoHandle> {
  let client: MongoClient;
  try {
    client = new MongoClient(url, {
      serverSelectionTimeoutMS: 5000,
      connectTimeoutMS: 5000,
      maxPoolSize: 50,
      appName: dbName,
    });
  } catch (err) {
    // the driver parses the URL here: no retry can fix what it refuses
    throw new ConfigError(`MONGO_URL cannot be used: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    await client.connect();
  } catch (err) {
    // a failed attempt must not leave its monitors running: start-up retries with a new client
    await client.close().catch(() => undefined);
    throw err;
  }
  const db = client.db(dbName);
  return {
    client,
    db,
    async ping() {
      await db.command({ ping: 1 });
    },
    async close() {
      await client.close();
    },
  };
}

export interface IndexDefinition {
  key: IndexSpecification;
  options?: CreateIndexesOptions;
  /** The query this index serves (kept next to the definition, STYLE rule 6). */
  serves: string;
}

/** Idempotent: createIndex is a no-op when an identical index already exists. */
export async function ensureIndexes<T extends Document>(collection: Collection<T>, indexes: IndexDefinition[]): Promise<void> {
  for (const index of indexes) {
    await collection.createIndex(index.key, index.options ?? {});
  }
}

/** The driver's duplicate-key error code, shared by single and bulk writes. */
export const DUPLICATE_KEY = 11000;

export function isDuplicateKeyError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === DUPLICATE_KEY;
}
