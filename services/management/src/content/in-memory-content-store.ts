import type { CampaignDocument, CampaignSummary } from '../campaigns/campaign-store';
import type { InMemoryCampaignStore } from '../campaigns/in-memory-campaign-store';
import type { ContentDocument, TitleState } from './content-document';
import type { AddOutcome, ContentStore, PendingTitle } from './content-store';
import { samePage } from './content-url';

function datesOf(doc: CampaignDocument): CampaignSummary {
  return { start_date: doc.start_date, end_date: doc.end_date } as CampaignSummary;
}

/** A change of the campaign's record, as the MongoDB store's write makes it. */
function announced(campaign: CampaignDocument): void {
  Object.assign(campaign, { revision: campaign.revision + 1, registry_pending: true });
}

/** The content store over an in-memory campaign store's documents, for unit tests: same owner scoping, duplicate and limit rules as the MongoDB store. */
export class InMemoryContentStore implements ContentStore {
  constructor(
    private readonly campaigns: InMemoryCampaignStore,
    /** Most items a campaign may hold. */
    private readonly maxItems: number,
  ) {}

  async add(ownerId: string, campaignToken: string, item: ContentDocument): Promise<AddOutcome> {
    const campaign = this.find(ownerId, campaignToken);
    if (!campaign) return { kind: 'not_found' };
    const same = samePage(campaign.content, item);
    if (same !== undefined) return { kind: 'duplicate', token: same };
    if (campaign.content.length >= this.maxItems) return { kind: 'full' };
    campaign.content.push(structuredClone(item));
    announced(campaign);
    return { kind: 'added', campaign: datesOf(campaign) };
  }

  async setContentType(
    ownerId: string,
    campaignToken: string,
    token: string,
    contentType: string,
  ): Promise<{ campaign: CampaignSummary; item: ContentDocument } | null> {
    const campaign = this.find(ownerId, campaignToken);
    const item = campaign?.content.find((c) => c.token === token);
    if (!campaign || !item) return null;
    item.content_type = contentType;
    return { campaign: datesOf(campaign), item: structuredClone(item) };
  }

  async remove(ownerId: string, campaignToken: string, token: string): Promise<boolean> {
    const campaign = this.find(ownerId, campaignToken);
    const at = campaign?.content.findIndex((c) => c.token === token) ?? -1;
    if (!campaign || at < 0) return false;
    campaign.content.splice(at, 1);
    announced(campaign);
    return true;
  }

  async setTitle(job: PendingTitle, title: string, state: TitleState): Promise<void> {
    const item = this.find(job.owner_id, job.campaign_token)?.content.find((c) => c.token === job.token);
    if (item) Object.assign(item, { title, title_state: state });
  }

  async pendingTitles(limit: number): Promise<PendingTitle[]> {
    return [...this.campaigns.docs.values()]
      .sort((a, b) => a.created_at.getTime() - b.created_at.getTime())
      .flatMap((doc) =>
        doc.content
          .filter((c) => c.title_state === 'pending')
          .map((c) => ({ owner_id: doc.owner_id, campaign_token: doc._id, token: c.token, url: c.url })),
      )
      .slice(0, limit);
  }

  private find(ownerId: string, campaignToken: string): CampaignDocument | undefined {
    return this.campaigns.find(ownerId, campaignToken);
  }
}
