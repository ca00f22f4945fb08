import type { Db, Document, FindCursor } from 'mongodb';
import { bucketName } from '../storage/bucket-naming';
import { HOUR_MS } from '../storage/time-units';
import { hourEventRead, readHourRow, type HourRow } from './hour-pipeline';
import type { UnitMark } from './unit-mark';

/**
 * One day's raw read for the hours being built, started ahead of its use: the builder opens the
 * next day's read before it builds this day, so the server scans and sorts the next day while
 * Node merges this one, and each batch is asked for as soon as the one before arrived (at most
 * two batches held). The snapshots were read before this read starts (rollup-builder.ts), which is
 * all a build's exactness needs: a write after them fails its publish whatever was read.
 */
export class HourRead {
  private readonly cursor: FindCursor<Document>;
  private readonly rowOf: (event: Document) => Document;
  private next: Promise<boolean>;

  constructor(db: Db, prefix: string, dayStart: number, snapshots: readonly UnitMark[]) {
    const starts = snapshots.map((m) => m.start);
    const read = hourEventRead(new Date(Math.min(...starts)), new Date(Math.max(...starts) + HOUR_MS));
    this.rowOf = read.rowOf;
    this.cursor = db.collection(bucketName(prefix, new Date(dayStart))).find(read.filter, read.options);
    this.next = this.ahead();
  }

  /** Every event's row, sorted by owner; a failed read throws here. */
  async *rows(): AsyncGenerator<HourRow> {
    while (await this.next) {
      const events = this.cursor.readBufferedDocuments();
      // the buffer is empty now: the next batch is fetched while these are merged
      this.next = this.ahead();
      for (const event of events) yield readHourRow(this.rowOf(event));
    }
  }

  async close(): Promise<void> {
    await this.next.catch(() => undefined);
    await this.cursor.close().catch(() => undefined);
  }

  private ahead(): Promise<boolean> {
    const next = this.cursor.hasNext();
    // awaited in rows(); until then a failure must not count as unhandled
    next.catch(() => undefined);
    return next;
  }
}
