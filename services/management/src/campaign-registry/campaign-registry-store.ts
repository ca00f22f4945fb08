import type { Collection } from 'mongodb';
import type { CampaignDocument } from '../campaigns/campaign-store';
import { AnnouncedDocuments } from '../registry/announced-documents';
import { LIVE, announcing } from '../registry/registry-fields';
import type { UserDocument } from '../users/user-store';
import type { CampaignOwner, RegistryCampaign } from './campaign-record';

const RECORD_FIELDS = {
  projection: {
    owner_id: 1,
    name: 1,
    start_date: 1,
    end_date: 1,
    reach: 1,
    objective: 1,
    target_geography: 1,
    revision: 1,
    registry_pending: 1,
    deleted_at: 1,
    'content.url': 1,
  },
} as const;

/**
 * The campaign registry's view of the campaigns collection (revisions, pending announcements,
 * deletions) and of the owners' settings a record carries. The campaigns API's own writes
 * (campaign-store.ts, content-store.ts) announce their changes in the same write.
 */
export class CampaignRegistryStore extends AnnouncedDocuments<CampaignDocument> {
  constructor(
    campaigns: Collection<CampaignDocument>,
    private readonly users: Collection<UserDocument>,
  ) {
    super(campaigns);
  }

  findForRecord(token: string): Promise<RegistryCampaign | null> {
    return this.collection.findOne({ _id: token }, RECORD_FIELDS);
  }

  /** Every campaign in `_id` order, as a stream (reconciliation never holds a large campaign with many others). */
  scan(): AsyncIterable<RegistryCampaign> {
    return this.collection.find({}, RECORD_FIELDS).sort({ _id: 1 });
  }

  /** The settings of these owners; a user that no longer exists is absent. */
  async owners(ownerIds: string[]): Promise<Map<string, CampaignOwner>> {
    const found = await this.users
      .find({ _id: { $in: ownerIds } }, { projection: { timezone: 1, target_geography: 1, deleted_at: 1 } })
      .toArray();
    return new Map(
      found.map((u) => [
        u._id,
        { timezone: u.timezone, target_geography: u.target_geography, deleted: u.deleted_at !== undefined },
      ]),
    );
  }

  /**
   * The record at `revision` is in the bucket. Cleared by setting false rather than removing the
   * field: the MongoDB stand-in the tests run on fails an aggregation over a document (the owner's
   * content hosts) from which another request removes a field that is not its last.
   */
  override async announced(token: string, revision: number): Promise<void> {
    await this.collection.updateOne(
      { _id: token, revision, registry_pending: true },
      { $set: { registry_pending: false } },
    );
  }

  /** Every campaign of an owner, deleted ones included. */
  async tokensOf(ownerId: string): Promise<string[]> {
    const found = await this.collection.find({ owner_id: ownerId }, { projection: { _id: 1 } }).toArray();
    return found.map((c) => c._id);
  }

  /** The current revision of each of these campaigns, and whether its announcement is pending. */
  async revisions(tokens: string[]): Promise<Map<string, { revision: number; pending: boolean }>> {
    const found = await this.collection
      .find({ _id: { $in: tokens } }, { projection: { revision: 1, registry_pending: 1 } })
      .toArray();
    return new Map(found.map((c) => [c._id, { revision: c.revision, pending: c.registry_pending === true }]));
  }

  /** The owner's time zone or geography changed (the users collection, already written): each live campaign gets a new revision to announce. */
  async ownerChanged(ownerId: string): Promise<void> {
    await this.collection.updateMany({ owner_id: ownerId, ...LIVE }, announcing({}));
  }

  /** The owner is deleted: each of its live campaigns is marked deleted, its tombstone to announce. */
  async markOwnerDeleted(ownerId: string, now: Date): Promise<void> {
    await this.collection.updateMany({ owner_id: ownerId, ...LIVE }, announcing({ deleted_at: now }));
  }

  /** A campaign whose owner is gone: marked deleted as the owner's deletion would have. */
  async markDeleted(token: string, now: Date): Promise<void> {
    await this.collection.updateOne({ _id: token, ...LIVE }, announcing({ deleted_at: now }));
  }
}
