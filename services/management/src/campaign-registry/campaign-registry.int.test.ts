import { encodeCampaignHeader } from '@cm/contracts';
import { canonicalContentUrl } from '../content/content-url';
import {
  TEST_ADMIN_TOKEN,
  startManagementHarness,
  waitFor,
  type ManagementHarness,
} from '../../test/support/management-harness';

let h: ManagementHarness;
beforeAll(async () => {
  h = await startManagementHarness();
});
afterAll(async () => {
  await h.stop();
});

const SPRING = { name: 'Spring', start_date: '2026-03-01', end_date: '2026-05-31', category: 'Technology' };
let emails = 0;

/** An account owner with a time zone and target geography of its own. */
async function owner(settings: Record<string, unknown> = {}) {
  const res = await h.request('POST', '/admin/v1/accounts', {
    token: TEST_ADMIN_TOKEN,
    body: { email: `camp${++emails}-${Date.now()}@example.com`, password: 'correct horse battery', ...settings },
  });
  expect(res.status).toBe(201);
  return res.body as { unique_id: string; api_token: string };
}

async function campaign(token: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await h.request('POST', '/api/v3/campaign/', { token, body: { ...SPRING, ...body } });
  expect(res.status).toBe(200);
  return res.body.token;
}

/** The record's form of pasted URLs: canonical (as the composition root wires it), sorted. */
const pages = (...urls: string[]): string[] =>
  urls
    .map((url) => {
      const page = canonicalContentUrl(url);
      if (page === undefined) throw new Error(`test URL without a canonical form: ${url}`);
      return page;
    })
    .sort();

const pending = async (campaignToken: string) =>
  (await h.db()).collection('campaigns').countDocuments({ _id: campaignToken as never, registry_pending: true });

describe('campaign records', () => {
  test('when a campaign is created, then its record is in the bucket before the call returns: the owner default time zone, no geography, nothing pending', async () => {
    const o = await owner();
    const token = await campaign(o.api_token, { reach: 120_000, objective: 'Reach' });
    expect(await h.campaignRecord(token)).toEqual({
      token,
      owner_id: o.unique_id,
      revision: 1,
      name: 'Spring',
      urls: [],
      start_date: '2026-03-01',
      end_date: '2026-05-31',
      timezone: 'UTC',
      reach: 120_000,
      objective: 'Reach',
      target_countries: [],
      target_source: 'none',
    });
    expect(await pending(token)).toBe(0);
  });

  test("when the campaign has no geography, then it targets its owner's countries in alpha-2 and the owner's time zone; its own geography wins", async () => {
    const o = await owner({ timezone: 'Europe/Berlin', target_geography: ['Germany', 'austria', 'Switzerland'] });
    const inherits = await campaign(o.api_token);
    const own = await campaign(o.api_token, { target_geography: ['France', 'United States'] });
    expect(await h.campaignRecord(inherits)).toMatchObject({
      timezone: 'Europe/Berlin',
      target_countries: ['AT', 'CH', 'DE'],
      target_source: 'owner',
    });
    expect(await h.campaignRecord(own)).toMatchObject({ target_countries: ['FR', 'US'], target_source: 'campaign' });
  });

  test('when the dates, reach, objective and geography are edited, then each edit is a new revision saying so', async () => {
    const o = await owner();
    const token = await campaign(o.api_token);
    const edit = (body: object) => h.request('POST', `/api/v3/campaign/${token}/`, { token: o.api_token, body });
    expect((await edit({ start_date: '2026-04-01', end_date: '2026-06-30' })).status).toBe(200);
    expect(await h.campaignRecord(token)).toMatchObject({
      revision: 2,
      start_date: '2026-04-01',
      end_date: '2026-06-30',
    });
    await edit({ reach: 5000, objective: 'Uniques', target_geography: 'Japan' });
    expect(await h.campaignRecord(token)).toMatchObject({
      revision: 3,
      reach: 5000,
      objective: 'Uniques',
      target_countries: ['JP'],
      target_source: 'campaign',
    });
    await edit({ reach: null, objective: '', target_geography: null });
    expect(await h.campaignRecord(token)).toMatchObject({
      revision: 4,
      reach: null,
      objective: null,
      target_source: 'none',
    });
  });

  test('when content URLs are added and removed, then the record lists their canonical pages, sorted, at a new revision each', async () => {
    const o = await owner();
    const token = await campaign(o.api_token);
    const add = (url: string) =>
      h.request('POST', `/api/v3/campaign/${token}/content/`, { token: o.api_token, body: { url } });
    const story = 'https://News.Example/Story?utm_source=newsletter&id=7#comments';
    const books = 'https://bücher.example/katalog?gclid=Cj0KCQ&sort=price';
    const shop = 'https://shop.example:443/a/';
    const a = (await add(story)).body;
    await add(books);
    await add(shop);
    expect(await h.campaignRecord(token)).toMatchObject({ revision: 4, urls: pages(story, books, shop) });
    expect((await h.request('DELETE', `/api/v3/campaign/${token}/${a.token}/`, { token: o.api_token })).status).toBe(
      204,
    );
    expect(await h.campaignRecord(token)).toMatchObject({ revision: 5, urls: pages(books, shop) });
    // a refused add (the same page again, as pasted or with a click id and a fragment) changes nothing
    for (const again of [shop, 'https://shop.example/a?fbclid=IwAR0x#reviews'])
      expect((await add(again)).status).toBe(409);
    expect(await h.campaignRecord(token)).toMatchObject({ revision: 5, urls: pages(books, shop) });
  });

  test('when a campaign is deleted, then a tombstone one revision higher replaces its record and its document goes', async () => {
    const o = await owner();
    const token = await campaign(o.api_token);
    expect((await h.request('DELETE', `/api/v3/campaign/${token}/`, { token: o.api_token })).status).toBe(204);
    expect(await h.campaignRecord(token)).toEqual({ token, owner_id: o.unique_id, revision: 2, deleted: true });
    expect(await (await h.db()).collection('campaigns').countDocuments({ _id: token as never })).toBe(0);
    expect((await h.request('GET', `/api/v3/campaign/${token}/`, { token: o.api_token })).status).toBe(404);
  });

  test("when the owner's time zone and geography change, then every campaign of the owner is announced again with them", async () => {
    const o = await owner({ timezone: 'Asia/Tokyo' });
    const first = await campaign(o.api_token);
    const second = await campaign(o.api_token, { target_geography: ['Brazil'] });
    const res = await h.request('POST', `/api/v3/user/${o.unique_id}/`, {
      token: o.api_token,
      body: { timezone: 'America/Sao_Paulo', target_geography: ['Argentina', 'Chile'] },
    });
    expect(res.status).toBe(201);
    expect(await h.campaignRecord(first)).toMatchObject({
      revision: 2,
      timezone: 'America/Sao_Paulo',
      target_countries: ['AR', 'CL'],
      target_source: 'owner',
    });
    expect(await h.campaignRecord(second)).toMatchObject({
      revision: 2,
      timezone: 'America/Sao_Paulo',
      target_countries: ['BR'],
      target_source: 'campaign',
    });
  });

  test('when a user is deleted, then each of its campaigns becomes a tombstone and goes', async () => {
    const o = await owner();
    const sub = await h.createSubUser(o.api_token);
    const tokens = [await campaign(sub.api_token), await campaign(sub.api_token)];
    expect((await h.request('DELETE', `/api/v3/user/${sub.unique_id}/`, { token: o.api_token })).status).toBe(204);
    for (const token of tokens)
      expect(await h.campaignRecord(token)).toEqual({ token, owner_id: sub.unique_id, revision: 2, deleted: true });
    expect(await (await h.db()).collection('campaigns').countDocuments({ owner_id: sub.unique_id })).toBe(0);
  });

  test('when the bucket holds a newer revision than management writes, then the older write is skipped (no resurrection)', async () => {
    const o = await owner();
    const token = await campaign(o.api_token);
    const tombstone = { token, owner_id: o.unique_id, revision: 40, deleted: true as const };
    await (await h.campaignBucket()).put(token, encodeCampaignHeader(tombstone));
    await h.request('POST', `/api/v3/campaign/${token}/`, { token: o.api_token, body: { reach: 1 } });
    expect(await h.campaignRecord(token)).toEqual(tombstone);
  });

  test('when a campaign and its pending announcement were written but the process died before publishing, then the relay publishes it', async () => {
    const o = await owner();
    const token = `relay${Date.now()}`;
    const now = new Date();
    await (await h.db()).collection('campaigns').insertOne({
      _id: token as never,
      owner_id: o.unique_id,
      ...SPRING,
      brand: null,
      reach: null,
      target_geography: [],
      objective: null,
      created_at: now,
      last_modified: now,
      version: 0,
      content: [],
      revision: 1,
      registry_pending: true,
    });
    expect(
      await waitFor(
        () => h.campaignRecord(token),
        (r) => r !== undefined,
      ),
    ).toMatchObject({ revision: 1 });
    await waitFor(
      () => pending(token),
      (n) => n === 0,
    );
  });
});
