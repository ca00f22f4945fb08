import type { Db, WriteConcernSettings } from 'mongodb';
import { ensureIndexes, type Logger } from '@cm/platform';
import { BUCKET_INDEXES } from '../storage/bucket-indexes';
import type { EventDocument } from '../storage/event-document';
import { insertResults, type InsertResult } from './insert-results';

/**
 * Writes documents into one day bucket. Indexes are created the first time this process
 * writes a bucket (createIndex is idempotent, so several writers may race harmlessly); the
 * set of ready buckets is remembered so later batches go straight to insertMany. The write
 * concern is explicit (EVENTS_WRITE_CONCERN_W/_J, majority + journal by default): a message is
 * acked to JetStream only after this write, so "written" must mean durable, whatever the URL says.
 */
export class BucketWriter {
  private readonly indexed = new Set<string>();

  constructor(private readonly db: Db, private readonly logger: Logger, private readonly writeConcern: WriteConcernSettings) {}

  async write(bucket: string, docs: EventDocument[]): Promise<InsertResult[]> {
    const collection = this.db.collection<EventDocument>(bucket);
    try {
      if (!this.indexed.has(bucket)) {
        await ensureIndexes(collection, BUCKET_INDEXES);
        this.indexed.add(bucket);
        this.logger.info('bucket ready', { bucket });
      }
      await collection.insertMany(docs, { ordered: false, writeConcern: this.writeConcern });
      return docs.map(() => ({ status: 'written' }));
    } catch (err) {
      return insertResults(docs.length, err);
    }
  }

  /** Retention dropped a bucket: its indexes must be created again if it is ever written. */
  forget(bucket: string): void {
    this.indexed.delete(bucket);
  }
}
