import { ConflictError, NotFoundError } from '@cm/platform';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { CampaignService } from '../campaigns/campaign-service';
import { InMemoryCampaignStore } from '../campaigns/in-memory-campaign-store';
import { PageCursors } from '../pagination/page-cursors';
import type { HostPlacement } from '../redirect-hosts/redirect-host-service';
import type { PendingTitle } from './content-store';
import { ContentService } from './content-service';
import { contentToken } from './content-url';
import { InMemoryContentStore } from './in-memory-content-store';

const alice: AuthenticatedUser = { unique_id: '1001', account_id: '1001', role: 'owner' };
const bob: AuthenticatedUser = { unique_id: '2002', account_id: '2002', role: 'owner' };
const march = { name: 'Spring sale', start_date: '2024-03-01', end_date: '2024-03-31', category: 'Food / Drink' };

function setup({ maxItems = 3, placement = { place: 'free', revision: 1 } as HostPlacement, revision = 1 } = {}) {
  const campaignStore = new InMemoryCampaignStore();
  const now = () => new Date('2024-03-10T12:00:00Z');
  const campaigns = new CampaignService({
    store: campaignStore,
    timezoneOf: async () => 'UTC',
    hostsChanged: async () => {},
    campaignChanged: async () => {},
    maxCampaigns: 10,
    cursors: new PageCursors(Buffer.alloc(32, 3)),
    now,
  });
  const titles: PendingTitle[] = [];
  const hostsChanged: string[] = [];
  const campaignsChanged: string[] = [];
  const store = new InMemoryContentStore(campaignStore, maxItems);
  const service = new ContentService({
    store,
    titles: { request: (job) => void titles.push(job) },
    hostsChanged: async (ownerId) => void hostsChanged.push(ownerId),
    campaignChanged: async (token) => void campaignsChanged.push(token),
    placeForHost: async () => placement,
    recordRevision: async () => revision,
    timezoneOf: async () => 'UTC',
    maxItemsPerCampaign: maxItems,
    now,
  });
  return { campaigns, campaignStore, store, service, titles, hostsChanged, campaignsChanged };
}

describe('ContentService over in-memory stores', () => {
  test('when content is added to a running campaign, then it is active, its title is requested and a new host is announced', async () => {
    const { campaigns, service, titles, hostsChanged } = setup();
    const { token: campaign } = await campaigns.create(alice, march);
    const view = await service.add(alice, campaign, { url: 'https://shop.example/a', content_type: 'Article' });
    expect(view).toEqual({
      url: 'https://shop.example/a',
      content_type: 'Article',
      added: '2024-03-10 12:00:00',
      token: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      state: 'active',
      title: '',
    });
    expect(titles).toEqual([
      { owner_id: alice.unique_id, campaign_token: campaign, token: view.token, url: 'https://shop.example/a' },
    ]);
    expect(hostsChanged).toEqual([alice.unique_id]);
  });

  test('when content is added to a campaign that has not started, then it is inactive', async () => {
    const { campaigns, service } = setup();
    const { token } = await campaigns.create(alice, { ...march, start_date: '2024-04-01', end_date: '2024-04-30' });
    expect((await service.add(alice, token, { url: 'https://shop.example/a' })).state).toBe('inactive');
  });

  test('when the same URL is added twice, then a conflict naming url and the campaign holds it once', async () => {
    const { campaigns, campaignStore, service } = setup();
    const { token } = await campaigns.create(alice, march);
    await service.add(alice, token, { url: 'https://shop.example/a' });
    await expect(service.add(alice, token, { url: 'https://shop.example/a' })).rejects.toMatchObject({
      details: [{ field: 'url' }],
    });
    await expect(service.add(alice, token, { url: 'https://shop.example/a' })).rejects.toBeInstanceOf(ConflictError);
    expect(campaignStore.docs.get(token)!.content).toHaveLength(1);
  });

  test.each([
    'https://shop.example/guide/?utm_source=facebook&utm_medium=social&fbclid=IwAR0x1',
    'https://SHOP.example/guide#pricing',
    'https://shop.example/guide?gclid=Cj0KCQiA&_ga=2.1.3',
  ])(
    'when the same page is added again as %s, then a conflict naming the first item and the campaign holds it once',
    async (again) => {
      const { campaigns, campaignStore, service } = setup();
      const { token } = await campaigns.create(alice, march);
      const first = await service.add(alice, token, { url: 'https://shop.example/guide' });
      await expect(service.add(alice, token, { url: again })).rejects.toMatchObject({
        status: 409,
        details: [{ field: 'url', message: `is already in the campaign as content ${first.token}` }],
      });
      expect(campaignStore.docs.get(token)!.content).toHaveLength(1);
    },
  );

  test('when a URL with tracking parameters is added, then the answer keeps it as pasted, and the token and the stored page key derive from its canonical URL', async () => {
    const { campaigns, campaignStore, service } = setup();
    const [{ token: a }, { token: b }] = [await campaigns.create(alice, march), await campaigns.create(alice, march)];
    const pasted = 'https://shop.example/guide/?p=2&utm_campaign=spring#top';
    const view = await service.add(alice, a, { url: pasted });
    expect(view.url).toBe(pasted);
    expect(campaignStore.docs.get(a)!.content[0]).toMatchObject({
      token: contentToken('https://shop.example/guide?p=2'),
      url: pasted,
      page_key: contentToken('https://shop.example/guide?p=2'),
    });
    // the same page pasted differently elsewhere: the same token
    expect((await service.add(alice, b, { url: 'https://shop.example/guide?p=2' })).token).toBe(view.token);
  });

  test('when pages differ by a parameter that identifies content, then both are kept', async () => {
    const { campaigns, campaignStore, service } = setup();
    const { token } = await campaigns.create(alice, march);
    await service.add(alice, token, { url: 'https://blog.example/?p=41' });
    await service.add(alice, token, { url: 'https://blog.example/?p=42' });
    expect(campaignStore.docs.get(token)!.content).toHaveLength(2);
  });

  test('when an item stored before page keys (its token from the URL as pasted, no page key) is the same page, then the conflict names it', async () => {
    const { campaigns, campaignStore, service } = setup();
    const { token } = await campaigns.create(alice, march);
    const legacy = await service.add(alice, token, { url: 'https://shop.example/guide/?utm_source=mail' });
    const stored = campaignStore.docs.get(token)!.content[0]!;
    delete stored.page_key;
    stored.token = 'legacyTokenFromPastedU';
    await expect(service.add(alice, token, { url: 'https://shop.example/guide' })).rejects.toMatchObject({
      details: [{ field: 'url', message: 'is already in the campaign as content legacyTokenFromPastedU' }],
    });
    expect(legacy.token).not.toBe('legacyTokenFromPastedU');
  });

  test('when the campaign is full, then a quota conflict and nothing is requested', async () => {
    const { campaigns, service, titles } = setup({ maxItems: 1 });
    const { token } = await campaigns.create(alice, march);
    await service.add(alice, token, { url: 'https://shop.example/a' });
    await expect(service.add(alice, token, { url: 'https://shop.example/b' })).rejects.toThrow(
      /quota exceeded: content items per campaign/,
    );
    expect(titles).toHaveLength(1);
  });

  test("when the owner's record has no room for the host, then a quota conflict before anything is stored", async () => {
    const { campaigns, campaignStore, service } = setup({ placement: { place: 'full', revision: 1 } });
    const { token } = await campaigns.create(alice, march);
    await expect(service.add(alice, token, { url: 'https://shop.example/a' })).rejects.toThrow(
      /quota exceeded: redirect hosts/,
    );
    expect(campaignStore.docs.get(token)!.content).toEqual([]);
  });

  test('when the host is already listed and the record did not change meanwhile, then nothing is announced; when it changed, then it is', async () => {
    const unchanged = setup({ placement: { place: 'listed', revision: 4 }, revision: 4 });
    const first = await unchanged.campaigns.create(alice, march);
    await unchanged.service.add(alice, first.token, { url: 'https://shop.example/a' });
    expect(unchanged.hostsChanged).toEqual([]);

    const changed = setup({ placement: { place: 'listed', revision: 4 }, revision: 5 });
    const second = await changed.campaigns.create(alice, march);
    await changed.service.add(alice, second.token, { url: 'https://shop.example/a' });
    expect(changed.hostsChanged).toEqual([alice.unique_id]);
  });

  test("when another owner's campaign or content is touched, then not found and it is unchanged", async () => {
    const { campaigns, campaignStore, service } = setup();
    const { token } = await campaigns.create(alice, march);
    const item = await service.add(alice, token, { url: 'https://shop.example/a' });
    await expect(service.add(bob, token, { url: 'https://shop.example/b' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.setContentType(bob, token, item.token, 'Video')).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.remove(bob, token, item.token)).rejects.toBeInstanceOf(NotFoundError);
    expect(campaignStore.docs.get(token)!.content).toEqual([
      expect.objectContaining({ token: item.token, content_type: null }),
    ]);
  });

  test('when the content type is set, then it is answered; when the item is removed, then hosts are announced and it is gone', async () => {
    const { campaigns, service, hostsChanged } = setup();
    const { token } = await campaigns.create(alice, march);
    const item = await service.add(alice, token, { url: 'https://shop.example/a' });
    expect(await service.setContentType(alice, token, item.token, 'Video')).toEqual({ ...item, content_type: 'Video' });
    await service.remove(alice, token, item.token);
    expect(hostsChanged).toEqual([alice.unique_id, alice.unique_id]);
    await expect(service.remove(alice, token, item.token)).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.setContentType(alice, token, item.token, 'Video')).rejects.toBeInstanceOf(NotFoundError);
  });

  test("when content is added or removed, then the campaign's record revision rises in the same write and the campaign is announced; a content type changes neither", async () => {
    const { campaigns, campaignStore, service, campaignsChanged } = setup();
    const { token } = await campaigns.create(alice, march);
    const item = await service.add(alice, token, { url: 'https://shop.example/a?utm_source=news#top' });
    expect(campaignStore.docs.get(token)).toMatchObject({ revision: 2, registry_pending: true });
    await service.setContentType(alice, token, item.token, 'Video');
    expect(campaignStore.docs.get(token)!.revision).toBe(2);
    await service.remove(alice, token, item.token);
    expect(campaignStore.docs.get(token)!.revision).toBe(3);
    expect(campaignsChanged).toEqual([token, token]);
    // a refused add changes nothing
    await service.add(alice, token, { url: 'https://shop.example/b' });
    await expect(service.add(alice, token, { url: 'https://shop.example/b' })).rejects.toBeInstanceOf(ConflictError);
    expect(campaignStore.docs.get(token)!.revision).toBe(4);
  });
});
