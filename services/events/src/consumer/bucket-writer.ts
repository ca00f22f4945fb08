import type { Db, WriteConcernSettings } from 'mongodb';
import { ensureIndexes, type Logger } from '@cm/platform';
import { BUCKET_INDEXES } from '../storage/bucket-indexes';
import type { EventDocument } from '../storage/event-document';
import { insertResults, type InsertResult } from './insert-results';

/** Rollup write marks (rollups/rollup-marks.ts, held-marks.ts): started before an insert, finished once its outcome is known. */
export interface WriteMarks<Handle = unknown> {
  begin(instants: readonly Date[]): Promise<Handle>;
  end(handle: Handle): Promise<void>;
  /** The insert's outcome is unknown: never finished, and no longer kept alive as a write in flight. */
  lost(handle: Handle): void;
}

/** Server-side bound of one bucket insert when none is given (rollups derive it from ROLLUP_ABANDON_MS). */
const DEFAULT_INSERT_TIMEOUT_MS = 5000;

/**
 * Writes documents into one day bucket. Indexes are created the first time this process
 * writes a bucket (createIndex is idempotent, so several writers may race harmlessly); the
 * set of ready buckets is remembered so later batches go straight to insertMany. The write
 * concern is explicit (EVENTS_WRITE_CONCERN_W/_J, majority + journal by default): a message is
 * acked to JetStream only after this write, so "written" must mean durable, whatever the URL says.
 * Each insert is bounded on the server (maxTimeMS, and wtimeoutMS for the replication wait) well
 * inside ROLLUP_ABANDON_MS: an insert whose outcome is unknown has stopped on the server long
 * before the rollup builder may take its write for dead. Running out of time is a failed write,
 * retried like any other (already stored events come back as duplicates of their `_id`).
 */
export class BucketWriter {
  private readonly indexed = new Set<string>();
  private fullLoggedAt = -Infinity;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly writeConcern: WriteConcernSettings,
    private readonly marks?: WriteMarks,
    private readonly insertTimeoutMs = DEFAULT_INSERT_TIMEOUT_MS,
  ) {}

  async write(bucket: string, docs: EventDocument[]): Promise<InsertResult[]> {
    const collection = this.db.collection<EventDocument>(bucket);
    try {
      if (!this.indexed.has(bucket)) {
        await ensureIndexes(collection, BUCKET_INDEXES);
        this.indexed.add(bucket);
        this.logger.info('bucket ready', { bucket });
      }
    } catch (err) {
      return insertResults(docs.length, err);
    }
    // rollups: no insert without its started mark (a failure here fails the batch, which is retried)
    let marked: unknown;
    try {
      marked = await this.marks?.begin(docs.map((d) => d.created));
    } catch (err) {
      return this.warnIfFull(bucket, insertResults(docs.length, err));
    }
    let results: InsertResult[];
    try {
      await collection.insertMany(docs, {
        ordered: false,
        maxTimeMS: this.insertTimeoutMs,
        writeConcern: { ...this.writeConcern, wtimeoutMS: this.insertTimeoutMs },
      });
      results = docs.map(() => ({ status: 'written' }));
    } catch (err) {
      results = insertResults(docs.length, err);
      this.warnIfFull(bucket, results);
    }
    // an unknown outcome ('failed') may still land later: leave it started, so those hours stay on raw events.
    // Not awaited: until it is stored the units just stay on raw events (RollupMarks.drain on stop).
    if (marked !== undefined && results.every((r) => r.status !== 'failed')) {
      this.marks
        ?.end(marked)
        .catch((err: unknown) => this.logger.warn('rollup finished mark failed', { error: String(err) }));
    } else if (marked !== undefined) {
      this.marks?.lost(marked);
    }
    return results;
  }

  /** A full database is an operator's problem, said plainly (at most once a minute): events wait in the stream meanwhile. */
  private warnIfFull(bucket: string, results: InsertResult[]): InsertResult[] {
    const full = results.find((r) => r.status === 'failed' && r.storeFull);
    const now = Date.now();
    if (full && full.status === 'failed' && now - this.fullLoggedAt >= 60_000) {
      this.fullLoggedAt = now;
      this.logger.error('the database is full: events wait in the stream (retried with backoff) until space is freed', {
        bucket,
        error: full.message,
      });
    }
    return results;
  }

  /** Retention dropped a bucket: its indexes must be created again if it is ever written. */
  forget(bucket: string): void {
    this.indexed.delete(bucket);
  }
}
