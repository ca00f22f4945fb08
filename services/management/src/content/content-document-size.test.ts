import { BSON } from 'mongodb';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { CampaignService } from '../campaigns/campaign-service';
import { InMemoryCampaignStore } from '../campaigns/in-memory-campaign-store';
import { PageCursors } from '../pagination/page-cursors';
import { TITLE_MAX_LENGTH } from '../title/title-extractor';
import type { PendingTitle } from './content-store';
import { ContentService } from './content-service';
import { URL_MAX_LENGTH } from './content-url';
import { InMemoryContentStore } from './in-memory-content-store';

/** The most items QUOTA_CONTENT_PER_CAMPAIGN allows (config.ts). */
const MOST_ITEMS = 5000;
/** MongoDB refuses a document over 16 MiB: content lives inside its campaign document. */
const MONGODB_MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

const owner: AuthenticatedUser = { unique_id: '1001', account_id: '1001', role: 'owner' };

/** A pasted URL of the longest length, whose canonical form differs from it (a click id, a fragment). */
function longestUrl(i: number): string {
  const base = `https://www.shop.example/p/${i}?colour=navy&gclid=EAIaIQob${i}&ref=`;
  return base + 'r'.repeat(URL_MAX_LENGTH - base.length - 4) + '#top';
}

describe('the size of a campaign document', () => {
  test('when a campaign holds the most items the quota allows, each a 2048-character URL that is not canonical and a title of the longest length, then its document stays below MongoDB’s 16 MiB', async () => {
    const campaignStore = new InMemoryCampaignStore();
    const store = new InMemoryContentStore(campaignStore, MOST_ITEMS);
    const titles: PendingTitle[] = [];
    const campaigns = new CampaignService({
      store: campaignStore,
      timezoneOf: async () => 'UTC',
      hostsChanged: async () => {},
      campaignChanged: async () => {},
      maxCampaigns: 1,
      cursors: new PageCursors(Buffer.alloc(32, 3)),
    });
    const content = new ContentService({
      store,
      titles: { request: (job) => void titles.push(job) },
      hostsChanged: async () => {},
      campaignChanged: async () => {},
      placeForHost: async () => ({ place: 'listed', revision: 1 }),
      recordRevision: async () => 1,
      timezoneOf: async () => 'UTC',
      maxItemsPerCampaign: MOST_ITEMS,
    });
    const { token } = await campaigns.create(owner, {
      name: 'n'.repeat(200),
      start_date: '2026-01-01',
      end_date: '2026-12-31',
      category: 'Travel & Tourism',
    });
    for (let i = 0; i < MOST_ITEMS; i++)
      await content.add(owner, token, { url: longestUrl(i), content_type: 'Video & Article' });
    // titles in a two-byte script: 1,000 bytes each
    for (const job of titles) await store.setTitle(job, 'é'.repeat(TITLE_MAX_LENGTH), 'done');

    const document = campaignStore.docs.get(token)!;
    expect(document.content).toHaveLength(MOST_ITEMS);
    expect(document.content[0]!.url).toHaveLength(URL_MAX_LENGTH);
    expect(BSON.calculateObjectSize(document)).toBeLessThan(MONGODB_MAX_DOCUMENT_BYTES);
  });
});
