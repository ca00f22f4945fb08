import type { Collection, Db } from 'mongodb';
import { ensureIndexes } from '@cm/platform';

export interface ApiKeyDocument {
  _id: string;
  /** SHA-256 (hex) of the key; the key itself is never stored. */
  key_hash: string;
  owner_ids: string[];
  created_at: Date;
}

/** Reporting API keys (operator-managed, not tenant data: the admin lists them all). */
export class ApiKeyStore {
  private readonly keys: Collection<ApiKeyDocument>;

  constructor(db: Db) {
    this.keys = db.collection<ApiKeyDocument>('api_keys');
  }

  async init(): Promise<void> {
    await ensureIndexes(this.keys, [
      // authentication of every report request: findByHash
      { key: { key_hash: 1 }, options: { unique: true, name: 'key_hash_unique' }, serves: 'findByHash' },
      // admin listing, oldest first
      { key: { created_at: 1 }, options: { name: 'created_at' }, serves: 'list' },
    ]);
  }

  async insert(doc: ApiKeyDocument): Promise<void> {
    await this.keys.insertOne(doc);
  }

  findByHash(keyHash: string): Promise<ApiKeyDocument | null> {
    return this.keys.findOne({ key_hash: keyHash });
  }

  list(): Promise<ApiKeyDocument[]> {
    return this.keys.find({}).sort({ created_at: 1, _id: 1 }).toArray();
  }

  /** The deleted document (its hash lets the caller evict it from caches), or null when unknown. */
  async delete(id: string): Promise<ApiKeyDocument | null> {
    return this.keys.findOneAndDelete({ _id: id });
  }
}
