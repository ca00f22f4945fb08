import type { Collection, Db } from 'mongodb';
import { CAMPAIGNS_COLLECTION, type CampaignDocument, type CampaignSummary } from '../campaigns/campaign-store';
import { redirectHostOf } from '../registry/owner-record';
import { LIVE, announcing } from '../registry/registry-fields';
import { backfillContentField } from './content-backfill';
import type { ContentDocument, TitleState } from './content-document';
import { pageKeyOf, samePage } from './content-url';

/** `duplicate`: the campaign has this page already, as the item `token`. */
export type AddOutcome =
  | { kind: 'added'; campaign: CampaignSummary }
  | { kind: 'not_found' }
  | { kind: 'duplicate'; token: string }
  | { kind: 'full' };

/** A content item whose title is still to be fetched, with the ids that scope the later update. */
export interface PendingTitle {
  owner_id: string;
  campaign_token: string;
  token: string;
  url: string;
}

const DATES_ONLY = { projection: { start_date: 1, end_date: 1 } } as const;

/** What the content service and the title fetcher need from storage; calls that come from a request name the owner. */
export interface ContentStore {
  add(ownerId: string, campaignToken: string, item: ContentDocument): Promise<AddOutcome>;
  setContentType(
    ownerId: string,
    campaignToken: string,
    token: string,
    contentType: string,
  ): Promise<{ campaign: CampaignSummary; item: ContentDocument } | null>;
  remove(ownerId: string, campaignToken: string, token: string): Promise<boolean>;
  setTitle(job: PendingTitle, title: string, state: TitleState): Promise<void>;
  pendingTitles(limit: number): Promise<PendingTitle[]>;
}

/** Content items live inside their campaign document (campaign-store.ts); every query names the owner. */
export class MongoContentStore implements ContentStore {
  private readonly campaigns: Collection<CampaignDocument>;

  constructor(
    db: Db,
    /** Most items a campaign may hold. */
    private readonly maxItems: number,
  ) {
    this.campaigns = db.collection<CampaignDocument>(CAMPAIGNS_COLLECTION);
  }

  /**
   * One atomic push guarded by "page not there yet" (page key and token) and "below the limit",
   * announcing the campaign's changed record in the same write; the reason is looked up only on
   * refusal. Items without a stored page key (from before it existed, or written by an older
   * release during a rolling upgrade) cannot be matched by the guard, so they are compared first:
   * they only ever become fewer, and one that gets its page key meanwhile is matched by the guard
   * instead.
   */
  async add(ownerId: string, campaignToken: string, item: ContentDocument): Promise<AddOutcome> {
    const legacy = await this.campaigns.findOne(
      {
        _id: campaignToken,
        owner_id: ownerId,
        ...LIVE,
        content: { $elemMatch: { page_key: { $exists: false } } },
      },
      { projection: { 'content.token': 1, 'content.url': 1, 'content.page_key': 1 } },
    );
    const earlier = legacy ? samePage(legacy.content, item) : undefined;
    if (earlier !== undefined) return { kind: 'duplicate', token: earlier };
    const campaign = await this.campaigns.findOneAndUpdate(
      {
        _id: campaignToken,
        owner_id: ownerId,
        ...LIVE,
        'content.token': { $ne: item.token },
        'content.page_key': { $ne: item.page_key },
        [`content.${this.maxItems - 1}`]: { $exists: false },
      },
      { $push: { content: item }, ...announcing({}) },
      { ...DATES_ONLY, returnDocument: 'after' },
    );
    if (campaign) return { kind: 'added', campaign: campaign as CampaignSummary };
    const current = await this.campaigns.findOne(
      { _id: campaignToken, owner_id: ownerId, ...LIVE },
      { projection: { 'content.token': 1, 'content.url': 1, 'content.page_key': 1 } },
    );
    if (!current) return { kind: 'not_found' };
    const same = samePage(current.content, item);
    if (same !== undefined) return { kind: 'duplicate', token: same };
    return { kind: 'full' };
  }

  /** The campaign's dates and the updated item, or null when the campaign or item is unknown. */
  async setContentType(
    ownerId: string,
    campaignToken: string,
    token: string,
    contentType: string,
  ): Promise<{ campaign: CampaignSummary; item: ContentDocument } | null> {
    const campaign = await this.campaigns.findOneAndUpdate(
      { _id: campaignToken, owner_id: ownerId, ...LIVE, 'content.token': token },
      { $set: { 'content.$.content_type': contentType } },
      { projection: { start_date: 1, end_date: 1, content: 1 }, returnDocument: 'after' },
    );
    const item = campaign?.content.find((c) => c.token === token);
    return campaign && item ? { campaign, item } : null;
  }

  /** Pulls the item and announces the campaign's changed record, in one write. */
  async remove(ownerId: string, campaignToken: string, token: string): Promise<boolean> {
    const result = await this.campaigns.updateOne(
      { _id: campaignToken, owner_id: ownerId, ...LIVE, 'content.token': token },
      { $pull: { content: { token } }, ...announcing({}) },
    );
    return result.modifiedCount === 1;
  }

  /** The distinct redirect hosts of an owner's content URLs (for its registry record). */
  async distinctHosts(ownerId: string): Promise<string[]> {
    return (await this.distinctHostsByOwner([ownerId])).get(ownerId) ?? [];
  }

  /**
   * The same for many owners in one aggregation (reconciliation reads a page of users at a time),
   * grouped in the database so only the hosts travel. An aggregation rather than `distinct`, which
   * the MongoDB stand-in cannot run over items that lack the field.
   */
  async distinctHostsByOwner(ownerIds: string[]): Promise<Map<string, string[]>> {
    const groups = await this.campaigns
      .aggregate<{ _id: { owner: string; host: unknown } }>([
        { $match: { owner_id: { $in: ownerIds }, ...LIVE } },
        { $unwind: '$content' },
        { $group: { _id: { owner: '$owner_id', host: '$content.host' } } },
      ])
      .toArray();
    const hosts = new Map<string, string[]>();
    for (const { _id: group } of groups) {
      if (typeof group.host !== 'string' || group.host === '') continue;
      hosts.set(group.owner, [...(hosts.get(group.owner) ?? []), group.host]);
    }
    return hosts;
  }

  /**
   * Items stored before redirect hosts existed get theirs (once). Returns how many items got their
   * host (reconciliation then announces the owners' records).
   */
  backfillHosts(): Promise<number> {
    return backfillContentField(this.campaigns, 'host', (item) => redirectHostOf(item.url));
  }

  /**
   * Items stored before page keys existed get theirs (pageKeyOf; once, at start). Their tokens stay
   * as they are: a token is the item's identity in the API. Returns how many items got one.
   */
  backfillPageKeys(): Promise<number> {
    return backfillContentField(this.campaigns, 'page_key', pageKeyOf);
  }

  /** Records a fetch result; a no-op when the item was deleted meanwhile. */
  async setTitle(job: PendingTitle, title: string, state: TitleState): Promise<void> {
    await this.campaigns.updateOne(
      { _id: job.campaign_token, owner_id: job.owner_id, ...LIVE, 'content.token': job.token },
      { $set: { 'content.$.title': title, 'content.$.title_state': state } },
    );
  }

  /** Items left pending by a stop or a full queue, oldest campaigns first; bounded by `limit`. */
  async pendingTitles(limit: number): Promise<PendingTitle[]> {
    const docs = await this.campaigns
      .find({ 'content.title_state': 'pending', ...LIVE }, { projection: { owner_id: 1, content: 1 } })
      .sort({ created_at: 1 })
      .limit(limit)
      .toArray();
    return docs
      .flatMap((doc) =>
        doc.content
          .filter((c) => c.title_state === 'pending')
          .map((c) => ({ owner_id: doc.owner_id, campaign_token: doc._id, token: c.token, url: c.url })),
      )
      .slice(0, limit);
  }
}
