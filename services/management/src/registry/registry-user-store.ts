import type { Collection } from 'mongodb';
import { ensureIndexes } from '@cm/platform';
import type { UserDocument } from '../users/user-store';
import type { RegistryUser } from './owner-record';
import { LIVE, announcing, type RegistryFields } from './registry-fields';

type RegistryDocument = RegistryUser & RegistryFields;

const RECORD_FIELDS = {
  projection: { account_id: 1, created_at: 1, revision: 1, redirect_hosts: 1, deleted_at: 1, registry_pending: 1 },
} as const;

/** The registry's view of the users collection: revisions, pending announcements, deletions. */
export class RegistryUserStore {
  constructor(private readonly users: Collection<UserDocument>) {}

  async init(): Promise<void> {
    // documents from before revisions: revision 0, so the conditional updates below can name it
    await this.users.updateMany({ revision: { $exists: false } }, { $set: { revision: 0 } });
    await ensureIndexes(this.users, [
      // the relay: users whose current record is not yet announced; the pending gauge
      { key: { registry_pending: 1 }, options: { name: 'registry_pending' }, serves: 'pending, pendingCount' },
    ]);
  }

  findForRecord(userId: string): Promise<RegistryDocument | null> {
    return this.users.findOne({ _id: userId }, RECORD_FIELDS);
  }

  /** Users in `_id` order after `afterId`, for reconciliation. */
  page(afterId: string | undefined, limit: number): Promise<RegistryDocument[]> {
    return this.users
      .find(afterId === undefined ? {} : { _id: { $gt: afterId } }, RECORD_FIELDS)
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
  }

  /** Which of these ids are users (deleted ones included: their tombstones are still being announced). */
  async existing(ids: string[]): Promise<Set<string>> {
    const found = await this.users.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray();
    return new Set(found.map((u) => u._id));
  }

  pending(limit: number): Promise<RegistryDocument[]> {
    return this.users.find({ registry_pending: true }, RECORD_FIELDS).limit(limit).toArray();
  }

  pendingCount(): Promise<number> {
    return this.users.countDocuments({ registry_pending: true });
  }

  /** A change outside the users collection altered the record (content URLs): a new revision to announce. */
  async bump(userId: string): Promise<boolean> {
    return (await this.users.updateOne({ _id: userId, ...LIVE }, announcing({}))).modifiedCount === 1;
  }

  /**
   * Reconciliation found the bucket saying something else at an equal or higher revision: move
   * this user past `atLeast`, unless the user changed since it was read at `revision`.
   */
  async bumpPast(userId: string, revision: number, atLeast: number): Promise<boolean> {
    const result = await this.users.updateOne(
      { _id: userId, revision },
      { $set: { revision: Math.max(revision, atLeast) + 1, registry_pending: true } },
    );
    return result.modifiedCount === 1;
  }

  /** The record at `revision` is in the bucket; a newer change (higher revision) stays pending. */
  async announced(userId: string, revision: number): Promise<void> {
    await this.users.updateOne({ _id: userId, revision, registry_pending: true }, { $unset: { registry_pending: '' } });
  }

  /** A deleted user whose tombstone is in the bucket and whose data is gone. */
  async remove(userId: string, revision: number): Promise<void> {
    await this.users.deleteOne({ _id: userId, revision, deleted_at: { $exists: true } });
  }
}
