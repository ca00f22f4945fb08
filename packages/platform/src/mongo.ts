import { ConfigError } from './config';
import {
  MongoClient,
  type Collection,
  type CreateIndexesOptions,
  type Db,
  type IndexSpecification,
  type Document,
} from 'mongodb';

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
      ...withoutUrlOptions(url, { serverSelectionTimeoutMS: 5000, connectTimeoutMS: 5000, maxPoolSize: 50 }),
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

/**
 * Our defaults, minus those MONGO_URL sets itself (`?serverSelectionTimeoutMS=...`): the
 * driver prefers the options object over the URL, so a default passed would hide the URL's.
 */
export function withoutUrlOptions<T extends Record<string, unknown>>(url: string, defaults: T): Partial<T> {
  const query = url.includes('?') ? new URLSearchParams(url.slice(url.indexOf('?') + 1)) : new URLSearchParams();
  const given = new Set([...query.keys()].map((k) => k.toLowerCase()));
  return Object.fromEntries(Object.entries(defaults).filter(([k]) => !given.has(k.toLowerCase()))) as Partial<T>;
}

export interface IndexDefinition {
  key: IndexSpecification;
  options?: CreateIndexesOptions;
  /** The query this index serves (kept next to the definition, so an unused index shows). */
  serves: string;
}

/** Idempotent: createIndex is a no-op when an identical index already exists. */
export async function ensureIndexes<T extends Document>(
  collection: Collection<T>,
  indexes: IndexDefinition[],
): Promise<void> {
  for (const index of indexes) {
    await collection.createIndex(index.key, index.options ?? {});
  }
}

/** The driver's duplicate-key error code, shared by single and bulk writes. */
export const DUPLICATE_KEY = 11000;

export function isDuplicateKeyError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === DUPLICATE_KEY;
}

/**
 * MongoDB's "OutOfDiskSpace": real MongoDB when its disk is full, and the MongoDB stand-in
 * (deploy/mongo-stand-in) when its heap or its H2 file's disk is full. The stand-in's message
 * starts with "the MongoDB stand-in store is full:" and says how to make room.
 */
export const OUT_OF_DISK_SPACE = 14031;

/** Is this a write refused because the store is full (not a bad document, not a connection failure)? */
export function isStoreFullError(err: unknown): boolean {
  const e = err as {
    code?: unknown;
    codeName?: unknown;
    writeErrors?: { code?: unknown }[];
    errorResponse?: { code?: unknown };
  } | null;
  if (!e || typeof e !== 'object') return false;
  if (e.code === OUT_OF_DISK_SPACE || e.codeName === 'OutOfDiskSpace' || e.errorResponse?.code === OUT_OF_DISK_SPACE)
    return true;
  return Array.isArray(e.writeErrors) && e.writeErrors.some((w) => w?.code === OUT_OF_DISK_SPACE);
}
