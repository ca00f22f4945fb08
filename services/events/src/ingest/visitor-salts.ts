import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { Logger, NatsConnection } from '@cm/platform';
import { longestPeriodMs, periodAt, type PeriodSpan, type SaltPeriod } from './salt-period';

const SALT_BYTES = 32;
/** Beyond one period the bucket's max age leaves this much for clocks that differ and a late purge. */
const GRACE_MS = 3_600_000;

export interface VisitorSaltsOptions {
  bucket: string;
  replicas: number;
  period: SaltPeriod;
  /** The clock that decides the period (tests move it across a period change). */
  now?: () => number;
}

/**
 * The salt of cookieless visitor hashes, one per period, shared by every ingest process through
 * a JetStream key-value bucket (key: the period's start date). The first process to need a
 * period's salt creates it (create-if-absent, so exactly one value wins) and purges every other
 * key: once a period is over its salt exists nowhere, and hashes made with it can no longer be
 * tied to an address. The bucket's max age (one period and a grace) is the backstop should that
 * purge not happen. Within a period the salt comes from memory: the bucket is asked only at a
 * period change, and hits arriving meanwhile wait for that one request.
 */
export class VisitorSalts {
  private cached?: { span: PeriodSpan; salt: KeyObject };
  private pending?: { key: string; salt: Promise<KeyObject> };
  private kv?: Promise<KV>;
  private readonly now: () => number;

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: VisitorSaltsOptions,
    private readonly logger: Logger,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** The salt of the current period: from memory, or the one fetch of it (rejects when the bucket cannot be reached). */
  current(): KeyObject | Promise<KeyObject> {
    const now = this.now();
    const cached = this.cached;
    if (cached !== undefined && now >= cached.span.start && now < cached.span.end) return cached.salt;
    const span = periodAt(this.options.period, now);
    if (this.pending?.key === span.key) return this.pending.salt;
    const salt = this.load(span).then(
      (value) => {
        if (this.pending?.key === span.key) this.pending = undefined;
        // a slow fetch of an older period must not replace a newer salt
        if (this.cached === undefined || this.cached.span.start <= span.start) this.cached = { span, salt: value };
        return value;
      },
      (err: unknown) => {
        if (this.pending?.key === span.key) this.pending = undefined;
        throw err;
      },
    );
    this.pending = { key: span.key, salt };
    return salt;
  }

  private async load(span: PeriodSpan): Promise<KeyObject> {
    const kv = await this.bucket();
    const mine = randomBytes(SALT_BYTES);
    try {
      await kv.create(span.key, mine);
    } catch (err) {
      // another process created it first: its value is the salt of this period
      const entry = await kv.get(span.key);
      if (entry === null || entry.operation !== 'PUT' || entry.value.length !== SALT_BYTES) throw err;
      return createSecretKey(Buffer.from(entry.value));
    }
    await this.purgeOthers(kv, span.key);
    return createSecretKey(mine);
  }

  /** Purge (not delete) so that no history keeps an old salt; a failure is left to the max age. */
  private async purgeOthers(kv: KV, keep: string): Promise<void> {
    try {
      const keys = await kv.keys();
      const old: string[] = [];
      for await (const key of keys) if (key !== keep) old.push(key);
      for (const key of old) await kv.purge(key);
    } catch (err) {
      this.logger.warn('old visitor salts not purged, the bucket max age will remove them', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  private bucket(): Promise<KV> {
    this.kv ??= this.openBucket().catch((err: unknown) => {
      this.kv = undefined;
      throw err;
    });
    return this.kv;
  }

  private async openBucket(): Promise<KV> {
    const { bucket, replicas, period } = this.options;
    const maxAgeMs = longestPeriodMs(period) + GRACE_MS;
    const kvm = new Kvm(this.nc);
    const kv = await kvm.open(bucket);
    let status;
    try {
      status = await kv.status();
    } catch (err) {
      if (!/not found/i.test(String(err))) throw err;
      return kvm.create(bucket, { history: 1, replicas, ttl: maxAgeMs, maxValueSize: 1024 });
    }
    if (status.ttl !== maxAgeMs) {
      // the period setting changed: a month's salt must not expire after a day
      const jsm = await jetstreamManager(this.nc);
      const info = await jsm.streams.info(status.streamInfo.config.name);
      await jsm.streams.update(info.config.name, { ...info.config, max_age: maxAgeMs * 1_000_000 });
    }
    return kv;
  }
}
