import { OWNER_RECORD_LIMITS } from '@cm/contracts';
import { ConflictError, NotFoundError, ValidationError } from '@cm/platform';
import { quotaExceeded } from '../quotas/quota-exceeded';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { todayIn } from '../campaigns/calendar-date';
import type { CampaignChanged, TimezoneOf } from '../campaigns/campaign-service';
import { RECORD_QUOTA, type HostPlacement } from '../redirect-hosts/redirect-host-service';
import { redirectHostOf } from '../registry/owner-record';
import type { ContentDocument } from './content-document';
import type { AddContentInput } from './content-schemas';
import type { ContentStore, PendingTitle } from './content-store';
import { canonicalContentUrl, contentToken } from './content-url';
import { toContentView, type ContentView } from './content-view';

/** Takes a title fetch into the background; never waits for it. */
export interface TitleRequests {
  request(job: PendingTitle): void;
}

/** Announces that an owner's content URLs (and so its redirect hosts) changed. */
export type HostsChanged = (ownerId: string) => Promise<void>;

export interface ContentServiceDeps {
  store: ContentStore;
  titles: TitleRequests;
  hostsChanged: HostsChanged;
  /** The campaign's record changed (its URLs): publish it. */
  campaignChanged: CampaignChanged;
  /** Whether a URL with this host is already among the owner's redirect hosts, fits in, or not (at most 1000 hosts). */
  placeForHost(ownerId: string, host: string): Promise<HostPlacement>;
  /** The owner's current record revision. */
  recordRevision(ownerId: string): Promise<number | undefined>;
  timezoneOf: TimezoneOf;
  /** QUOTA_CONTENT_PER_CAMPAIGN. */
  maxItemsPerCampaign: number;
  now?: () => Date;
}

/** Content of a campaign. Content belongs to a campaign, and so to the caller: every call names the caller's unique_id. */
export class ContentService {
  private readonly now: () => Date;

  constructor(private readonly deps: ContentServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async add(caller: AuthenticatedUser, campaignToken: string, input: AddContentInput): Promise<ContentView> {
    const now = this.now();
    const canonical = canonicalContentUrl(input.url);
    // the schema let only URLs with a canonical form through
    if (canonical === undefined)
      throw new ValidationError('invalid content', [{ field: 'url', message: 'has no canonical form' }]);
    const key = contentToken(canonical);
    const item: ContentDocument = {
      token: key,
      url: input.url,
      page_key: key,
      host: redirectHostOf(input.url),
      content_type: input.content_type ?? null,
      added: now,
      title: '',
      title_state: 'pending',
    };
    const placement = await this.deps.placeForHost(caller.unique_id, item.host);
    if (placement.place === 'full') {
      throw quotaExceeded(RECORD_QUOTA, OWNER_RECORD_LIMITS.redirectHosts, 'url');
    }
    const [outcome, timezone] = await Promise.all([
      this.deps.store.add(caller.unique_id, campaignToken, item),
      this.deps.timezoneOf(caller.unique_id),
    ]);
    switch (outcome.kind) {
      case 'not_found':
        throw new NotFoundError('no such campaign');
      case 'duplicate':
        throw new ConflictError('this URL is already in the campaign', [
          { field: 'url', message: `is already in the campaign as content ${outcome.token}` },
        ]);
      case 'full':
        throw quotaExceeded('content items per campaign', this.deps.maxItemsPerCampaign, 'url');
    }
    this.deps.titles.request({
      owner_id: caller.unique_id,
      campaign_token: campaignToken,
      token: item.token,
      url: item.url,
    });
    const ownerRecord = async () => {
      if (await this.mustAnnounce(caller.unique_id, placement)) await this.deps.hostsChanged(caller.unique_id);
    };
    await Promise.all([this.deps.campaignChanged(campaignToken), ownerRecord()]);
    return toContentView(item, outcome.campaign, todayIn(timezone, now));
  }

  /**
   * A new host is announced. A host the owner already had leaves its record as it is, unless the
   * record changed since the host was found listed: a concurrent removal of the content that
   * carried it (or an explicit list without it) may then have published hosts read before this
   * item was stored. Every such change raises the revision before it publishes, so an unchanged
   * revision after the store means nothing can have dropped the host.
   */
  private async mustAnnounce(ownerId: string, placement: HostPlacement): Promise<boolean> {
    if (placement.place === 'free') return true;
    if (placement.revision === undefined) return false;
    return (await this.deps.recordRevision(ownerId)) !== placement.revision;
  }

  async setContentType(
    caller: AuthenticatedUser,
    campaignToken: string,
    token: string,
    contentType: string,
  ): Promise<ContentView> {
    const [updated, timezone] = await Promise.all([
      this.deps.store.setContentType(caller.unique_id, campaignToken, token, contentType),
      this.deps.timezoneOf(caller.unique_id),
    ]);
    if (!updated) throw new NotFoundError('no such content in this campaign');
    return toContentView(updated.item, updated.campaign, todayIn(timezone, this.now()));
  }

  async remove(caller: AuthenticatedUser, campaignToken: string, token: string): Promise<void> {
    if (!(await this.deps.store.remove(caller.unique_id, campaignToken, token)))
      throw new NotFoundError('no such content in this campaign');
    await Promise.all([this.deps.campaignChanged(campaignToken), this.deps.hostsChanged(caller.unique_id)]);
  }
}
