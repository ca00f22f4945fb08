import type { Collection } from 'mongodb';
import { ensureIndexes } from '@cm/platform';
import type { AnnouncedFields } from './registry-fields';

type AnnouncedDocument = AnnouncedFields & { _id: string };

/**
 * A collection whose documents each make a registry record (users, campaigns): the revisions,
 * pending announcements and deletions the announcer and reconciliation work with. Every update
 * here is conditional on the revision read, so a newer change always wins.
 */
export class AnnouncedDocuments<T extends AnnouncedDocument> {
  /** The same collection seen through the fields every registry document has. */
  private readonly docs: Collection<AnnouncedDocument>;

  constructor(protected readonly collection: Collection<T>) {
    this.docs = collection as unknown as Collection<AnnouncedDocument>;
  }

  async init(): Promise<void> {
    // documents from before revisions: revision 0, so the conditional updates below can name it
    await this.docs.updateMany({ revision: { $exists: false } }, { $set: { revision: 0 } });
    await ensureIndexes(this.docs, [
      // the relay: documents whose current record is not yet announced; the pending gauge
      { key: { registry_pending: 1 }, options: { name: 'registry_pending' }, serves: 'pendingIds, pendingCount' },
    ]);
  }

  async pendingIds(limit: number): Promise<string[]> {
    const found = await this.docs
      .find({ registry_pending: true }, { projection: { _id: 1 } })
      .limit(limit)
      .toArray();
    return found.map((d) => d._id);
  }

  pendingCount(): Promise<number> {
    return this.docs.countDocuments({ registry_pending: true });
  }

  /** Which of these ids exist (deleted ones included: their tombstones are still being announced). */
  async existing(ids: string[]): Promise<Set<string>> {
    const found = await this.docs.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray();
    return new Set(found.map((d) => d._id));
  }

  /**
   * Reconciliation found the bucket saying something else at an equal or higher revision: move
   * this document past `atLeast`, unless it changed since it was read at `revision`.
   */
  async bumpPast(id: string, revision: number, atLeast: number): Promise<boolean> {
    const result = await this.docs.updateOne(
      { _id: id, revision },
      { $set: { revision: Math.max(revision, atLeast) + 1, registry_pending: true } },
    );
    return result.modifiedCount === 1;
  }

  /** The record at `revision` is in the bucket; a newer change (higher revision) stays pending. */
  async announced(id: string, revision: number): Promise<void> {
    await this.docs.updateOne({ _id: id, revision, registry_pending: true }, { $unset: { registry_pending: '' } });
  }

  /** A deleted document whose tombstone is in the bucket (and whose data is gone). */
  async remove(id: string, revision: number): Promise<void> {
    await this.docs.deleteOne({ _id: id, revision, deleted_at: { $exists: true } });
  }
}
