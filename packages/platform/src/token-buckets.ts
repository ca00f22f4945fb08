export interface TokenBucketsOptions {
  /** Sustained tokens per second; 0 turns the limit off (everything is allowed). */
  perSecond: number;
  /** The bucket's size: what a key may spend at once after a quiet spell. */
  burst: number;
  /** Keys remembered (in two generations of at most this many); a forgotten key starts full again. */
  maxKeys?: number;
  now?: () => number;
}

export type TakeResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

const ALLOWED: TakeResult = Object.freeze({ allowed: true });

/**
 * Token buckets by key (a client address, an owner id, an API key or token hash), in this process
 * only: N replicas behind a balancer allow up to N times the rate. Cheap enough for the pixel's
 * hot path: one Map lookup and a little arithmetic per hit (`tryTake`). Memory is bounded
 * without LRU bookkeeping: keys live in two generations; when the current one holds maxKeys it
 * becomes the old one and the one before is dropped, so a key idle for two generations starts
 * full again, which only ever errs towards allowing.
 */
export class TokenBuckets {
  private current = new Map<string, Bucket>();
  private previous = new Map<string, Bucket>();
  private readonly perMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(private readonly opts: TokenBucketsOptions) {
    this.perMs = opts.perSecond / 1000;
    this.maxKeys = opts.maxKeys ?? 100_000;
    this.now = opts.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.opts.perSecond > 0;
  }

  /** Spends one token of `key`; false when its bucket is empty (nothing is spent then). */
  tryTake(key: string, now = this.now()): boolean {
    if (!this.enabled) return true;
    const bucket = this.bucketOf(key, now);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  /** tryTake with the seconds until a token is back when refused (for Retry-After). */
  take(key: string): TakeResult {
    const now = this.now();
    return this.tryTake(key, now) ? ALLOWED : this.refusal(key, now);
  }

  /** Whether a token could be spent now, spending nothing: for guards that must refuse before any work. */
  check(key: string): TakeResult {
    if (!this.enabled) return ALLOWED;
    const now = this.now();
    return this.peek(key, now) >= 1 ? ALLOWED : this.refusal(key, now);
  }

  private refusal(key: string, now: number): TakeResult {
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - this.peek(key, now)) / this.perMs / 1000)) };
  }

  /** Tokens `key` has now, without keeping a bucket for it. */
  private peek(key: string, now: number): number {
    const bucket = this.current.get(key) ?? this.previous.get(key);
    return bucket ? Math.min(this.opts.burst, bucket.tokens + (now - bucket.at) * this.perMs) : this.opts.burst;
  }

  /** The refilled bucket of `key`, kept in the current generation. */
  private bucketOf(key: string, now: number): Bucket {
    let bucket = this.current.get(key);
    if (bucket === undefined) {
      bucket = this.previous.get(key) ?? { tokens: this.opts.burst, at: now };
      if (this.current.size >= this.maxKeys) {
        this.previous = this.current;
        this.current = new Map();
      }
      this.current.set(key, bucket);
    }
    bucket.tokens = Math.min(this.opts.burst, bucket.tokens + (now - bucket.at) * this.perMs);
    bucket.at = now;
    return bucket;
  }
}
