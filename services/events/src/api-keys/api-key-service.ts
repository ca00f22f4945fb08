import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { NotFoundError, formatUtcDateTime } from '@cm/platform';
import { generateApiKey, hashApiKey, looksLikeApiKey } from './api-key-secret';
import type { ApiKeyDocument, ApiKeyStore } from './api-key-store';

/** Who a valid key speaks for. */
export interface ApiKeyPrincipal {
  id: string;
  ownerIds: ReadonlySet<string>;
}

/** The create response: the only time the key itself is shown. */
export interface CreatedApiKey {
  id: string;
  api_key: string;
  owner_ids: string[];
}

export interface ApiKeyView {
  id: string;
  owner_ids: string[];
  created: string;
}

export interface ApiKeyServiceOptions {
  /** How long a lookup (hit or miss) is remembered; bounds how long another process honours a revoked key. */
  cacheTtlMs: number;
  cacheMaxEntries?: number;
  now?: () => Date;
}

/** lru-cache stores objects only; a miss is remembered as `{}` so unknown keys cost one lookup per TTL. */
type CacheEntry = { principal?: ApiKeyPrincipal };

export class ApiKeyService {
  private readonly cache: LRUCache<string, CacheEntry>;
  private readonly now: () => Date;
  /** Bumped by every revocation: a lookup that raced one must not cache what it read. */
  private revocations = 0;

  constructor(
    private readonly store: ApiKeyStore,
    opts: ApiKeyServiceOptions,
  ) {
    const now = opts.now;
    // an injected clock also drives the cache's TTL, so tests can pass it without waiting
    const clock = now ? { perf: { now: () => now().getTime() }, ttlResolution: 0 } : {};
    this.cache = new LRUCache<string, CacheEntry>({
      max: opts.cacheMaxEntries ?? 10_000,
      ttl: opts.cacheTtlMs,
      ...clock,
    });
    this.now = now ?? (() => new Date());
  }

  async create(ownerIds: string[]): Promise<CreatedApiKey> {
    const apiKey = generateApiKey();
    const doc: ApiKeyDocument = {
      _id: randomUUID(),
      key_hash: hashApiKey(apiKey),
      owner_ids: ownerIds,
      created_at: this.now(),
    };
    await this.store.insert(doc);
    this.cache.delete(doc.key_hash);
    return { id: doc._id, api_key: apiKey, owner_ids: doc.owner_ids };
  }

  async list(): Promise<ApiKeyView[]> {
    return (await this.store.list()).map((doc) => ({
      id: doc._id,
      owner_ids: doc.owner_ids,
      created: formatUtcDateTime(doc.created_at),
    }));
  }

  /** Takes effect at once in this process; other processes stop honouring the key within cacheTtlMs. */
  async revoke(id: string): Promise<void> {
    const deleted = await this.store.delete(id);
    if (!deleted) throw new NotFoundError('no such API key');
    // after the delete is acknowledged: a lookup that started earlier may have read the key
    this.revocations++;
    this.cache.delete(deleted.key_hash);
  }

  /** The principal of a key this process knows to be live (cached), without a lookup. */
  cached(apiKey: unknown): ApiKeyPrincipal | undefined {
    return looksLikeApiKey(apiKey) ? this.cache.get(hashApiKey(apiKey))?.principal : undefined;
  }

  /** The key's principal, or undefined for anything that is not a live key. */
  async authenticate(apiKey: unknown): Promise<ApiKeyPrincipal | undefined> {
    if (!looksLikeApiKey(apiKey)) return undefined;
    const hash = hashApiKey(apiKey);
    const cached = this.cache.get(hash);
    if (cached) return cached.principal;
    const before = this.revocations;
    const doc = await this.store.findByHash(hash);
    const entry: CacheEntry = doc ? { principal: { id: doc._id, ownerIds: new Set(doc.owner_ids) } } : {};
    if (before === this.revocations) this.cache.set(hash, entry);
    return entry.principal;
  }
}
