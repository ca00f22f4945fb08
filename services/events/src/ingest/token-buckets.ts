export interface BucketRate {
  /** Sustained hits per second; 0 turns the limit off. */
  perSecond: number;
  /** Hits allowed at once after a quiet spell (the bucket's size). */
  burst: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket per key, for the pixel's hot path: one Map lookup and a little arithmetic per
 * hit. Memory is bounded without LRU bookkeeping: keys live in two generations; when the current
 * one holds maxKeys, it becomes the old one and the one before is dropped. A key that was idle for
 * two generations starts with a full bucket again, which only ever errs towards allowing.
 */
export class TokenBuckets {
  private current = new Map<string, Bucket>();
  private previous = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(private readonly rate: BucketRate, private readonly maxKeys = 100_000) {
    this.perMs = rate.perSecond / 1000;
  }

  get enabled(): boolean {
    return this.rate.perSecond > 0;
  }

  /** Takes one token for `key`; false when its bucket is empty. */
  take(key: string, now: number): boolean {
    let bucket = this.current.get(key);
    if (bucket === undefined) {
      bucket = this.previous.get(key) ?? { tokens: this.rate.burst, at: now };
      if (this.current.size >= this.maxKeys) {
        this.previous = this.current;
        this.current = new Map();
      }
      this.current.set(key, bucket);
    }
    const tokens = Math.min(this.rate.burst, bucket.tokens + (now - bucket.at) * this.perMs);
    bucket.at = now;
    if (tokens < 1) {
      bucket.tokens = tokens;
      return false;
    }
    bucket.tokens = tokens - 1;
    return true;
  }
}
