import type { Collection } from 'mongodb';
import type { UserDocument } from '../users/user-store';
import { AnnouncedDocuments } from './announced-documents';
import type { RegistryUser } from './owner-record';
import { LIVE, announcing, type RegistryFields } from './registry-fields';

type RegistryDocument = RegistryUser & RegistryFields;

const RECORD_FIELDS = {
  projection: { account_id: 1, created_at: 1, revision: 1, redirect_hosts: 1, deleted_at: 1, registry_pending: 1 },
} as const;

/** The registry's view of the users collection: revisions, pending announcements, deletions. */
export class RegistryUserStore extends AnnouncedDocuments<UserDocument> {
  constructor(users: Collection<UserDocument>) {
    super(users);
  }

  findForRecord(userId: string): Promise<RegistryDocument | null> {
    return this.collection.findOne({ _id: userId }, RECORD_FIELDS);
  }

  /** Users in `_id` order after `afterId`, for reconciliation. */
  page(afterId: string | undefined, limit: number): Promise<RegistryDocument[]> {
    return this.collection
      .find(afterId === undefined ? {} : { _id: { $gt: afterId } }, RECORD_FIELDS)
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
  }

  /** A change outside the users collection altered the record (content URLs): a new revision to announce. */
  async bump(userId: string): Promise<boolean> {
    return (await this.collection.updateOne({ _id: userId, ...LIVE }, announcing({}))).modifiedCount === 1;
  }
}
