import { LRUCache } from 'lru-cache';

export interface RateLimiterOptions {
  /** Sustained rate and burst size: a full bucket holds one minute's worth. */
  perMinute: number;
  /** Buckets kept; an evicted (long idle) key simply starts full again. */
  maxKeys?: number;
  now?: () => number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token bucket per key (an API key, or a client address for failed key lookups), in this process only: with N reporting processes behind a load
 * balancer a key gets up to N times the configured rate.
 */
export class KeyRateLimiter {
  private readonly buckets: LRUCache<string, Bucket>;
  private readonly perMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: RateLimiterOptions) {
    this.buckets = new LRUCache<string, Bucket>({ max: opts.maxKeys ?? 10_000 });
    this.perMs = opts.perMinute / 60_000;
    this.now = opts.now ?? Date.now;
  }

  take(key: string): RateDecision {
    const bucket = this.refill(key);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: this.waitSeconds(bucket) };
  }

  /** Seconds until the key has a token again, or undefined when it has one now (nothing is spent). */
  retryAfter(key: string): number | undefined {
    const bucket = this.refill(key);
    return bucket.tokens >= 1 ? undefined : this.waitSeconds(bucket);
  }

  private refill(key: string): Bucket {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.opts.perMinute, at: now };
    bucket.tokens = Math.min(this.opts.perMinute, bucket.tokens + (now - bucket.at) * this.perMs);
    bucket.at = now;
    this.buckets.set(key, bucket);
    return bucket;
  }

  private waitSeconds(bucket: Bucket): number {
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000));
  }
}
