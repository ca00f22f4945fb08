import type { Collection, Db, Filter } from 'mongodb';
import { afterPosition } from '../pagination/page-query';
import type { PagePosition } from '../pagination/page-cursors';
import { ensureIndexes } from '@cm/platform';
import type { ContentDocument } from '../content/content-document';
import { LIVE, announcing, type AnnouncedFields } from '../registry/registry-fields';
import type { CampaignFields } from './campaign-schemas';

/**
 * One document per campaign; its content items are embedded so a campaign and its content live
 * and die together. Its campaign record's revision and pending announcement live in the same
 * document (AnnouncedFields): every change of the record is announced by the write that makes it.
 * A deleted campaign is marked (`deleted_at`) until its tombstone is announced, then removed;
 * every query of the API leaves marked campaigns out.
 */
export interface CampaignDocument extends CampaignFields, AnnouncedFields {
  /** The campaign token. */
  _id: string;
  /** unique_id of the user owning the campaign; part of every query. */
  owner_id: string;
  created_at: Date;
  last_modified: Date;
  /** Bumped on every edit, so an edit that read stale dates cannot overwrite a newer one. */
  version: number;
  content: ContentDocument[];
}

export type CampaignSummary = Omit<CampaignDocument, 'content'>;

const WITHOUT_CONTENT = { projection: { content: 0 } } as const;

export const CAMPAIGNS_COLLECTION = 'campaigns';

/** What the campaign service needs from storage; every call is scoped by the owner id. */
export interface CampaignStore {
  insert(doc: CampaignDocument): Promise<void>;
  list(ownerId: string): Promise<CampaignSummary[]>;
  listPage(ownerId: string, after: PagePosition | undefined, limit: number): Promise<CampaignSummary[]>;
  count(ownerId: string, atMost: number): Promise<number>;
  findSummary(ownerId: string, token: string): Promise<CampaignSummary | null>;
  findWithContent(ownerId: string, token: string): Promise<CampaignDocument | null>;
  update(
    ownerId: string,
    token: string,
    version: number,
    patch: Partial<CampaignFields>,
    now: Date,
  ): Promise<CampaignSummary | null>;
  /** Marks the campaign deleted and announces its tombstone, in one write. */
  delete(ownerId: string, token: string, now: Date): Promise<boolean>;
}

export class MongoCampaignStore implements CampaignStore {
  private readonly campaigns: Collection<CampaignDocument>;

  constructor(db: Db) {
    this.campaigns = db.collection<CampaignDocument>(CAMPAIGNS_COLLECTION);
  }

  async init(): Promise<void> {
    await ensureIndexes(this.campaigns, [
      // GET /campaign/: an owner's campaigns in creation order (and its pages); count (quota); MongoContentStore.distinctHosts; the campaign registry's owner-wide changes
      {
        key: { owner_id: 1, created_at: 1 },
        options: { name: 'owner_created' },
        serves: 'list, listPage, count, distinctHosts, CampaignRegistryStore (owner changes)',
      },
      // title fetch recovery after a restart: items whose title was never fetched
      {
        key: { 'content.title_state': 1 },
        options: { name: 'content_title_state' },
        serves: 'MongoContentStore.pendingTitles',
      },
    ]);
  }

  async insert(doc: CampaignDocument): Promise<void> {
    await this.campaigns.insertOne(doc);
  }

  list(ownerId: string): Promise<CampaignSummary[]> {
    return this.campaigns
      .find({ owner_id: ownerId, ...LIVE }, WITHOUT_CONTENT)
      .sort({ created_at: 1, _id: 1 })
      .toArray();
  }

  /** One page in list order, fetching one more than `limit` to know whether another page follows. */
  listPage(ownerId: string, after: PagePosition | undefined, limit: number): Promise<CampaignSummary[]> {
    const filter = { owner_id: ownerId, ...LIVE, ...afterPosition(after) } as Filter<CampaignDocument>;
    return this.campaigns
      .find(filter, WITHOUT_CONTENT)
      .sort({ created_at: 1, _id: 1 })
      .limit(limit + 1)
      .toArray();
  }

  /** The owner's campaigns, counted up to `atMost` (a quota check need not count further). */
  count(ownerId: string, atMost: number): Promise<number> {
    return this.campaigns.countDocuments({ owner_id: ownerId, ...LIVE }, { limit: atMost });
  }

  findSummary(ownerId: string, token: string): Promise<CampaignSummary | null> {
    return this.campaigns.findOne({ _id: token, owner_id: ownerId, ...LIVE }, WITHOUT_CONTENT);
  }

  findWithContent(ownerId: string, token: string): Promise<CampaignDocument | null> {
    return this.campaigns.findOne({ _id: token, owner_id: ownerId, ...LIVE });
  }

  /** Applies the patch (and announces the record) only if nobody edited the campaign since `version` was read; null otherwise (or when gone). */
  update(
    ownerId: string,
    token: string,
    version: number,
    patch: Partial<CampaignFields>,
    now: Date,
  ): Promise<CampaignSummary | null> {
    return this.campaigns.findOneAndUpdate(
      { _id: token, owner_id: ownerId, version, ...LIVE },
      { $set: { ...patch, last_modified: now, registry_pending: true }, $inc: { version: 1, revision: 1 } },
      { ...WITHOUT_CONTENT, returnDocument: 'after' },
    );
  }

  async delete(ownerId: string, token: string, now: Date): Promise<boolean> {
    const change = announcing({ deleted_at: now, last_modified: now });
    return (await this.campaigns.updateOne({ _id: token, owner_id: ownerId, ...LIVE }, change)).modifiedCount === 1;
  }
}
