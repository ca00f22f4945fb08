import { canonicalPageUrl, type CampaignRecord } from '@cm/contracts';
import { uniqueName } from '@cm/testkit';
import { contentToken } from '../../../management/src/content/content-url';
import { startManagementHarness, type ManagementHarness } from '../../../management/test/support/management-harness';
import { startEventsHarness, waitUntil, type EventsHarness } from '../support/events-harness';

// management's campaigns -> campaign registry (NATS KV) -> the reporting role's CampaignLookup.
// The events service starts first here (it creates the bucket); management joins later.
const buckets = {
  CAMPAIGN_REGISTRY_BUCKET: uniqueName('campaigns_e2e'),
  OWNER_REGISTRY_BUCKET: uniqueName('owners_e2e'),
};
let events: EventsHarness;
let management: ManagementHarness;
let owner: { unique_id: string; api_token: string };

beforeAll(async () => {
  events = await startEventsHarness(buckets);
  management = await startManagementHarness({ ...buckets, QUOTA_CONTENT_PER_CAMPAIGN: '5000' });
  owner = await management.createAccount();
});
afterAll(async () => {
  await management.stop();
  await events.stop();
});

const SUMMER = { name: 'Summer', start_date: '2026-06-01', end_date: '2026-08-31', category: 'Travel & Tourism' };
const lookup = (token: string) => events.system.campaigns?.campaign(owner.unique_id, token);

/** Waits (bounded) until the events service's record of the campaign satisfies `ok`. */
async function seen(token: string, ok: (r: CampaignRecord | undefined) => boolean, what: string) {
  await waitUntil(() => ok(lookup(token)), 15_000, what);
  return lookup(token);
}

async function create(body: object = {}): Promise<string> {
  const res = await management.request('POST', '/api/v3/campaign/', {
    token: owner.api_token,
    body: { ...SUMMER, ...body },
  });
  expect(res.status).toBe(200);
  return res.body.token;
}

/** The page a URL names, in the form the registry carries (management's canonicaliser is canonicalPageUrl). */
function page(url: string): string {
  const canonical = canonicalPageUrl(url);
  if (!canonical.ok) throw new Error(`test URL without a canonical form: ${url}`);
  return canonical.url;
}

/** Content items written straight into the campaign as the content store's add writes them: the record changes and is pending. */
async function pushContent(token: string, urls: string[]): Promise<void> {
  const items = urls.map((url, i) => ({
    token: `bulk${String(i).padStart(18, '0')}`,
    url,
    page_key: contentToken(page(url)),
    host: new URL(url).hostname,
    content_type: null,
    added: new Date(),
    title: '',
    title_state: 'done',
  }));
  await (await management.db()).collection('campaigns').updateOne({ _id: token as never }, {
    $push: { content: { $each: items } },
    $set: { registry_pending: true },
    $inc: { revision: 1 },
  } as never);
}

const add = async (token: string, url: string) =>
  (await management.request('POST', `/api/v3/campaign/${token}/content/`, { token: owner.api_token, body: { url } }))
    .body as { token: string; url: string };

describe('the campaign registry from management to the events service', () => {
  test('when a campaign is created, its content added and removed, its dates edited and then it is deleted, then the events service follows each step', async () => {
    const token = await create({ reach: 10_000, target_geography: ['Spain', 'Portugal'] });
    expect(await seen(token, (r) => r !== undefined, 'the new campaign')).toEqual({
      token,
      owner_id: owner.unique_id,
      revision: 1,
      name: 'Summer',
      urls: [],
      start_date: '2026-06-01',
      end_date: '2026-08-31',
      timezone: 'UTC',
      reach: 10_000,
      objective: null,
      target_countries: ['ES', 'PT'],
      target_source: 'campaign',
    });
    expect(events.system.campaigns?.campaign('999999999999999', token)).toBeUndefined();

    const deals = 'https://Beach.Example/deals?utm_source=fb&fbclid=IwAR0x#book';
    const hotels = 'https://beach.example/hotels/';
    const a = await add(token, deals);
    await add(token, hotels);
    expect(await seen(token, (r) => r?.urls.length === 2, 'two URLs')).toMatchObject({
      urls: [page(deals), page(hotels)].sort(),
    });
    await management.request('DELETE', `/api/v3/campaign/${token}/${a.token}/`, { token: owner.api_token });
    expect(await seen(token, (r) => r?.urls.length === 1, 'one URL left')).toMatchObject({ urls: [page(hotels)] });

    await management.request('POST', `/api/v3/campaign/${token}/`, {
      token: owner.api_token,
      body: { start_date: '2026-05-15', end_date: '2026-09-15' },
    });
    expect(await seen(token, (r) => r?.end_date === '2026-09-15', 'the new dates')).toMatchObject({
      start_date: '2026-05-15',
    });

    await management.request('DELETE', `/api/v3/campaign/${token}/`, { token: owner.api_token });
    await seen(token, (r) => r === undefined, 'the campaign gone');
  });

  test("when the owner's time zone changes, then its campaigns carry the new zone", async () => {
    const token = await create();
    await seen(token, (r) => r?.timezone === 'UTC', 'the campaign in UTC');
    await management.request('POST', `/api/v3/user/${owner.unique_id}/`, {
      token: owner.api_token,
      body: { timezone: 'Australia/Sydney', target_geography: 'New Zealand' },
    });
    expect(await seen(token, (r) => r?.timezone === 'Australia/Sydney', 'the new zone')).toMatchObject({
      target_countries: ['NZ'],
      target_source: 'owner',
    });
  });

  test('when a campaign reaches 500 content pages, then the events service holds all 500', async () => {
    const token = await create();
    // distinct pages by their path; the tracking parameters only say how each was reached
    const url = (i: number) =>
      `https://news.example/section-${i % 7}/article-${i}?utm_source=newsletter&utm_medium=email&gclid=EAIaIQ${i}`;
    // 499 items as the content store writes them (the MongoDB stand-in makes 500 calls slow), the 500th through the API
    await pushContent(
      token,
      Array.from({ length: 499 }, (_, i) => url(i)),
    );
    expect((await add(token, url(499))).url).toBe(url(499));
    const record = await seen(token, (r) => r?.urls.length === 500, '500 URLs');
    expect(record?.urls).toEqual(Array.from({ length: 500 }, (_, i) => page(url(i))).sort());
  });

  test('when a campaign holds the largest content management allows (5000 URLs of 2048 characters), then the events service holds every URL, and then its tombstone', async () => {
    const other = await management.createAccount();
    const created = await management.request('POST', '/api/v3/campaign/', { token: other.api_token, body: SUMMER });
    const token = created.body.token as string;
    // the largest record: each URL 2048 characters once canonical too, so no tracking parameter
    // to shed (a pasted URL over 2048 characters is refused); the pages differ in their path
    const url = (i: number) => {
      const base = `https://www.shop.example/p/${i}?colour=navy&ref=`;
      return base + 'r'.repeat(2048 - base.length);
    };
    expect([page(url(0)), page(url(4999))]).toEqual([url(0), url(4999)]);
    expect(url(4999)).toHaveLength(2048);
    // written as the content store writes items, announced by the relay (an add through the API
    // would first have the owner registry count hosts over 10 MB, which the MongoDB stand-in takes a minute for)
    await pushContent(
      token,
      Array.from({ length: 5000 }, (_, i) => url(i)),
    );
    await waitUntil(
      () => events.system.campaigns?.campaign(other.unique_id, token)?.urls.length === 5000,
      60_000,
      '5000 URLs',
    );
    expect(events.system.campaigns?.campaign(other.unique_id, token)?.urls).toEqual(
      Array.from({ length: 5000 }, (_, i) => page(url(i))).sort(),
    );
    expect((await management.request('DELETE', `/api/v3/campaign/${token}/`, { token: other.api_token })).status).toBe(
      204,
    );
    await waitUntil(
      () => events.system.campaigns?.campaign(other.unique_id, token) === undefined,
      15_000,
      'the tombstone',
    );
  }, 120_000);

  test('when the events service restarts, then it replays the registry before it is ready and knows every live campaign at once', async () => {
    const kept = await create({ name: 'Kept' });
    const gone = await create({ name: 'Gone' });
    await seen(gone, (r) => r !== undefined, 'both campaigns');
    await management.request('DELETE', `/api/v3/campaign/${gone}/`, { token: owner.api_token });
    await events.restart();
    expect(events.system.campaigns?.isReady()).toBe(true);
    expect(lookup(kept)?.name).toBe('Kept');
    expect(lookup(gone)).toBeUndefined();
  });

  test('when management restarts, then the events service keeps its campaigns, and changes after the restart reach it', async () => {
    const token = await create({ name: 'Across a restart' });
    await seen(token, (r) => r !== undefined, 'the campaign');
    const config = management.config;
    await management.stop();
    expect(lookup(token)?.name).toBe('Across a restart');
    management = await startManagementHarness({
      ...buckets,
      MONGO_DB: config.MONGO_DB,
      QUOTA_CONTENT_PER_CAMPAIGN: '5000',
    });
    await management.request('POST', `/api/v3/campaign/${token}/`, { token: owner.api_token, body: { reach: 777 } });
    await seen(token, (r) => r?.reach === 777, 'the edit after the restart');
  });
});
