import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import type { Logger, NatsConnection } from '@cm/platform';
import { isBucketMissing, SaltBucket, SALT_BYTES, type BucketEntry } from './salt-bucket';
import { longestPeriodMs, periodAt, periodOfKey, type PeriodSpan, type SaltPeriod } from './salt-period';

/** Beyond one period the bucket's max age leaves this much for clocks that differ and a late erase. */
const GRACE_MS = 3_600_000;
/** Reads and conditional writes of one settle before giving up (each lost race means another process wrote). */
const SETTLE_ATTEMPTS = 5;
/** How long a period whose key holds a marker is refused from memory before the bucket is read again. */
const REFUSED_RETRY_MS = 10_000;

export interface VisitorSaltsOptions {
  bucket: string;
  replicas: number;
  period: SaltPeriod;
  /** The clock that decides the period (tests move it across a period change). */
  now?: () => number;
}

/** The salt in use and the clock times it serves: from the period the fetch was made in to the end of the salt's period. */
interface CachedSalt {
  key: string;
  from: number;
  until: number;
  salt: KeyObject;
}

/** The one fetch of a period's salt that hits arriving meanwhile wait for (or, refused, fail with). */
interface PendingFetch {
  key: string;
  salt: Promise<KeyObject>;
  refusedUntil?: number;
}

/** The current period's key holds a marker: its salt was retired, and it is never created again. */
class RetiredSaltError extends Error {
  constructor(key: string) {
    super(
      `the visitor salt of period ${key} holds a delete or purge marker (left by an earlier version or by hand) and is not created over it; delete the salt bucket to start over`,
    );
    this.name = 'RetiredSaltError';
  }
}

/**
 * The salt of cookieless visitor hashes, one per period, shared by every ingest process through
 * a JetStream key-value bucket (SaltBucket; key: the period's start date). A process asks the
 * bucket only when its clock enters a period it has no salt for, and then uses the newest salt
 * in the bucket if that is of its period or later (a process whose clock is behind joins the
 * others instead of bringing back a retired salt); otherwise it creates its period's salt with a
 * write that fails if anything was written to the bucket since it looked, and looks again. Once
 * it has the salt it erases every older key, so a retired salt is overwritten wherever it was
 * stored. Within a period the salt comes from memory; hits arriving during the one fetch wait
 * for it.
 */
export class VisitorSalts {
  private cached?: CachedSalt;
  private pending?: PendingFetch;
  private opened?: Promise<void>;
  private readonly bucket: SaltBucket;
  private readonly now: () => number;

  constructor(
    nc: NatsConnection,
    private readonly options: VisitorSaltsOptions,
    private readonly logger: Logger,
  ) {
    this.now = options.now ?? Date.now;
    const maxAgeMs = longestPeriodMs(options.period) + GRACE_MS;
    this.bucket = new SaltBucket(nc, { bucket: options.bucket, replicas: options.replicas, maxAgeMs }, logger);
  }

  /** The salt of the current period: from memory, or the one fetch of it (rejects when the bucket cannot be reached). */
  current(): KeyObject | Promise<KeyObject> {
    const now = this.now();
    const cached = this.cached;
    if (cached !== undefined && now >= cached.from && now < cached.until) return cached.salt;
    const span = periodAt(this.options.period, now);
    const pending = this.pending;
    if (pending?.key === span.key && (pending.refusedUntil === undefined || now < pending.refusedUntil))
      return pending.salt;
    // its handlers tell by identity whether it is still the pending one
    const fetch = { key: span.key } as PendingFetch;
    fetch.salt = this.load(span).then(
      (fetched) => {
        if (this.pending === fetch) this.pending = undefined;
        // a slow fetch of an older period must not replace a newer salt
        if (this.cached === undefined || this.cached.key <= fetched.key) this.cached = fetched;
        return fetched.salt;
      },
      (err: unknown) => {
        if (this.pending !== fetch) throw err;
        // a retired key stays retired: hits fail at once for a while instead of each asking NATS again
        if (err instanceof RetiredSaltError) {
          fetch.refusedUntil = this.now() + REFUSED_RETRY_MS;
          this.logger.error('cookieless pixel hits refused', { error: err.message });
        } else this.pending = undefined;
        throw err;
      },
    );
    this.pending = fetch;
    return fetch.salt;
  }

  private async load(span: PeriodSpan): Promise<CachedSalt> {
    let entry: Required<BucketEntry>;
    try {
      await this.open();
      entry = await this.settle(span);
    } catch (err) {
      // the next fetch checks the bucket again; one deleted to start over is created again at once
      this.opened = undefined;
      if (!isBucketMissing(err)) throw err;
      await this.open();
      entry = await this.settle(span);
    }
    await this.bucket.retireOlder(entry.key).catch((err: unknown) =>
      this.logger.warn(
        'older visitor salts not erased yet: the next fetch of any process or the max age removes them',
        {
          error: err instanceof Error ? err.message : String(err),
        },
      ),
    );
    const until = Math.max(span.end, periodOfKey(this.options.period, entry.key).end);
    return { key: entry.key, from: span.start, until, salt: createSecretKey(entry.salt) };
  }

  /** The salt this process uses in `span`: the newest in the bucket if of this period or later, else one created now. */
  private async settle(span: PeriodSpan): Promise<Required<BucketEntry>> {
    for (let attempt = 0; attempt < SETTLE_ATTEMPTS; attempt++) {
      const view = await this.bucket.view();
      const newest = view.entries.find((e): e is Required<BucketEntry> => e.salt !== undefined);
      if (newest !== undefined && newest.key >= span.key) return newest;
      if (view.entries.some((e) => e.key === span.key)) throw new RetiredSaltError(span.key);
      // anything older than the newest salt is of no use to anyone: make room before adding one
      if (newest !== undefined && view.entries.some((e) => e.key < newest.key))
        await this.bucket.retireOlder(newest.key);
      const salt = randomBytes(SALT_BYTES);
      const outcome = await this.bucket.create(span.key, salt, view.last);
      if (outcome.created) return { key: span.key, seq: outcome.seq, salt };
      // another process wrote to the bucket since we read it: read again
    }
    throw new Error(`the visitor salt of period ${span.key} could not be settled: the bucket kept changing`);
  }

  private open(): Promise<void> {
    this.opened ??= this.bucket.open().catch((err: unknown) => {
      this.opened = undefined;
      throw err;
    });
    return this.opened;
  }
}
