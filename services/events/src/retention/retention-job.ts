import type { Db } from 'mongodb';
import type { Logger } from '@cm/platform';
import { expiredBuckets, firstKeptDay } from './expired-buckets';

export interface RetentionOptions {
  prefix: string;
  retentionDays: number;
  intervalMs: number;
  /** Told about each dropped bucket (the writer forgets that its indexes exist). */
  onDropped?: (bucket: string) => void;
  /** Told after each successful scheduled pass, with the buckets it dropped (metrics). */
  onPass?: (dropped: string[]) => void;
  /** Rollups kept `retentionDays` (at least the raw retention): dropped before the raw buckets of the same days. */
  rollups?: { retentionDays: number; dropBefore(cutoff: number): Promise<number> };
}

/**
 * Drops whole day buckets past retention, every intervalMs. Collections are listed without a
 * filter (the portable subset) and matched by name in code. Several consumer instances may run
 * it at once: dropping an already dropped collection is harmless.
 */
export class RetentionJob {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    private readonly db: Db,
    private readonly opts: RetentionOptions,
    private readonly logger: Logger,
  ) {}

  /** One pass; returns the dropped bucket names. */
  async runOnce(now = new Date()): Promise<string[]> {
    // rollups first: once their marks are gone reports read those days from raw, which still exist
    const rollups = this.opts.rollups;
    const droppedUnits = rollups
      ? await rollups.dropBefore(firstKeptDay(now, Math.max(rollups.retentionDays, this.opts.retentionDays)))
      : 0;
    if (droppedUnits > 0) this.logger.info('retention dropped rollup units', { units: droppedUnits });
    const collections = await this.db.listCollections({}, { nameOnly: true }).toArray();
    const names = collections.map((c) => c.name);
    const expired = expiredBuckets(names, this.opts.prefix, now, this.opts.retentionDays);
    const dropped: string[] = [];
    for (const name of expired) {
      try {
        await this.db.dropCollection(name);
        dropped.push(name);
        this.opts.onDropped?.(name);
      } catch (err) {
        if ((err as { codeName?: string }).codeName !== 'NamespaceNotFound') throw err;
      }
    }
    if (dropped.length > 0) this.logger.info('retention dropped day buckets', { buckets: dropped });
    return dropped;
  }

  start(): void {
    const tick = () => {
      this.running = this.runOnce()
        .then((dropped) => this.opts.onPass?.(dropped))
        .catch((err: unknown) => this.logger.warn('retention pass failed', { error: String(err) }))
        .finally(() => {
          this.running = undefined;
          if (this.timer) this.timer = setTimeout(tick, this.opts.intervalMs).unref();
        });
    };
    this.timer = setTimeout(tick, 0).unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
