import { startManagementHarness, type ManagementHarness } from '../../test/support/management-harness';
import { contentToken } from './content-url';

// Content URLs are matched by their canonical form (through its page key) over the real MongoDB
// store, and items stored before page keys existed get theirs at start. URLs use the documentation range
// 192.0.2.0/24, which the title fetcher refuses without any network traffic.
let h: ManagementHarness;

beforeAll(async () => {
  h = await startManagementHarness();
});
afterAll(async () => {
  await h.stop();
});

async function ownerWithCampaign(harness: ManagementHarness): Promise<{ token: string; campaign: string }> {
  const owner = await harness.createAccount();
  const res = await harness.request('POST', '/api/v3/campaign/', {
    token: owner.api_token,
    body: { name: 'Spring', start_date: '2026-01-01', end_date: '2026-12-31', category: 'Other' },
  });
  expect(res.status).toBe(200);
  return { token: owner.api_token, campaign: res.body.token as string };
}

const add = (harness: ManagementHarness, token: string, campaign: string, url: string) =>
  harness.request('POST', `/api/v3/campaign/${campaign}/content/`, { token, body: { url } });

interface StoredItem {
  token: string;
  url: string;
  page_key?: string;
}
async function items(harness: ManagementHarness, campaign: string): Promise<StoredItem[]> {
  const doc = await (await harness.db()).collection('campaigns').findOne({ _id: campaign } as never);
  return (doc?.content ?? []) as StoredItem[];
}

describe('content URLs in canonical form', () => {
  test('when the same page is added with a click id, a fragment or a trailing slash, then 409 naming the first item; the answer keeps the URL as pasted', async () => {
    const { token, campaign } = await ownerWithCampaign(h);
    const pasted = 'https://192.0.2.7/guide/?utm_source=newsletter&p=2';
    const first = await add(h, token, campaign, pasted);
    expect(first.status).toBe(200);
    expect(first.body.url).toBe(pasted);
    for (const again of [
      'https://192.0.2.7/guide?p=2&fbclid=IwAR0abc',
      'https://192.0.2.7/guide?p=2#pricing',
      'HTTPS://192.0.2.7:443/guide/?gclid=Cj0&p=2',
    ]) {
      const res = await add(h, token, campaign, again);
      expect(res.status).toBe(409);
      expect(res.body.error.details).toEqual([
        { field: 'url', message: `is already in the campaign as content ${first.body.token}` },
      ]);
    }
    expect(await items(h, campaign)).toEqual([
      expect.objectContaining({
        token: first.body.token,
        url: pasted,
        page_key: contentToken('https://192.0.2.7/guide?p=2'),
      }),
    ]);
  });

  test('when an item from before page keys is the same page, then 409 names it, and a restart gives it the key of its canonical URL (its token kept)', async () => {
    const { token, campaign } = await ownerWithCampaign(h);
    expect((await add(h, token, campaign, 'https://192.0.2.8/offer/?utm_campaign=spring')).status).toBe(200);
    // as the previous release stored it: a token from the URL as pasted, no page key
    const campaigns = (await h.db()).collection('campaigns');
    await campaigns.updateOne({ _id: campaign } as never, {
      $set: { 'content.0.token': 'legacyTokenFromPastedU' },
      $unset: { 'content.0.page_key': '' },
    });
    const dupe = await add(h, token, campaign, 'https://192.0.2.8/offer');
    expect(dupe.status).toBe(409);
    expect(dupe.body.error.details[0].message).toBe('is already in the campaign as content legacyTokenFromPastedU');

    const restarted = await startManagementHarness({
      MONGO_DB: h.config.MONGO_DB,
      OWNER_REGISTRY_BUCKET: h.config.OWNER_REGISTRY_BUCKET,
    });
    try {
      expect(await items(restarted, campaign)).toEqual([
        expect.objectContaining({ token: 'legacyTokenFromPastedU', page_key: contentToken('https://192.0.2.8/offer') }),
      ]);
      expect((await add(restarted, token, campaign, 'https://192.0.2.8/offer#faq')).status).toBe(409);
    } finally {
      await restarted.stop();
    }
  });

  test('when a URL is over the limit once canonical, then 400 naming url', async () => {
    const { token, campaign } = await ownerWithCampaign(h);
    const res = await add(h, token, campaign, `https://192.0.2.9/?q=${"'".repeat(700)}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(['url']);
  });
});
