export interface TokenBucketsOptions {
  /** Sustained rate; a full bucket holds one minute's worth (the burst). */
  perMinute: number;
  /** Buckets kept; an evicted (long idle) key simply starts full again. */
  maxKeys?: number;
  now?: () => number;
}

export type TakeResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token buckets by key (a rate limit per API key, token or client address), in this process only:
 * N replicas behind a balancer allow up to N times the rate. `take` spends one token; `check` only
 * looks, for guards that must refuse before doing any work. The buckets are kept in least recently
 * used order, and the oldest is forgotten beyond `maxKeys` (it starts full again).
 */
export class TokenBuckets {
  /** Map iteration order is insertion order: re-inserting on every use keeps the oldest first. */
  private readonly buckets = new Map<string, Bucket>();
  private readonly maxKeys: number;
  private readonly perMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: TokenBucketsOptions) {
    this.maxKeys = opts.maxKeys ?? 100_000;
    this.perMs = opts.perMinute / 60_000;
    this.now = opts.now ?? Date.now;
  }

  take(key: string): TakeResult {
    const bucket = this.refilled(key);
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
    if (bucket.tokens < 1) return this.refusal(bucket);
    bucket.tokens -= 1;
    return { allowed: true };
  }

  check(key: string): TakeResult {
    if (!this.buckets.has(key)) return { allowed: true };
    const current = this.refilled(key);
    return current.tokens < 1 ? this.refusal(current) : { allowed: true };
  }

  private refilled(key: string): Bucket {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.opts.perMinute, at: now };
    return { tokens: Math.min(this.opts.perMinute, bucket.tokens + (now - bucket.at) * this.perMs), at: now };
  }

  private refusal(bucket: Bucket): TakeResult {
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000)) };
  }
}
