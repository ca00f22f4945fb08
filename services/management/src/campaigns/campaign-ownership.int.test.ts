import { MongoClient } from 'mongodb';
import { startManagementHarness, type ManagementHarness } from '../../test/support/management-harness';

let h: ManagementHarness;

beforeAll(async () => {
  h = await startManagementHarness();
});
afterAll(async () => {
  await h.stop();
});

const valid = { name: 'Spring sale', start_date: '2024-03-01', end_date: '2024-03-31', category: 'Food / Drink' };

async function createCampaign(token: string, body: object = valid) {
  const res = await h.request('POST', '/api/v3/campaign/', { token, body });
  if (res.status !== 200) throw new Error(`create campaign: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

describe('campaign ownership', () => {
  async function expectInvisible(token: string, campaignToken: string) {
    expect((await h.request('GET', `/api/v3/campaign/${campaignToken}/`, { token })).status).toBe(404);
    expect(
      (await h.request('POST', `/api/v3/campaign/${campaignToken}/`, { token, body: { name: 'hijack' } })).status,
    ).toBe(404);
    expect(
      (
        await h.request('POST', `/api/v3/campaign/${campaignToken}/content/`, {
          token,
          body: { url: 'https://192.0.2.1/' },
        })
      ).status,
    ).toBe(404);
    expect((await h.request('DELETE', `/api/v3/campaign/${campaignToken}/`, { token })).status).toBe(404);
    expect((await h.request('GET', '/api/v3/campaign/', { token })).body).toEqual([]);
  }

  test('when another account touches a campaign, then 404 and the campaign is untouched', async () => {
    const a = await h.createAccount();
    const b = await h.createAccount();
    const created = await createCampaign(a.api_token);
    await expectInvisible(b.api_token, created.token);
    expect((await h.request('GET', `/api/v3/campaign/${created.token}/`, { token: a.api_token })).body.name).toBe(
      valid.name,
    );
  });

  test("when an owner and its sub-user each have campaigns, then neither sees the other's", async () => {
    const owner = await h.createAccount();
    const sub = (
      await h.request('POST', '/api/v3/user/', {
        token: owner.api_token,
        body: { email: `sub-${Date.now()}@example.com`, password: 'long enough pw' },
      })
    ).body;
    const ownersCampaign = await createCampaign(owner.api_token);
    await expectInvisible(sub.api_token, ownersCampaign.token);
    const subsCampaign = await createCampaign(sub.api_token, { ...valid, name: 'sub campaign' });
    expect((await h.request('GET', `/api/v3/campaign/${subsCampaign.token}/`, { token: owner.api_token })).status).toBe(
      404,
    );
    expect((await h.request('GET', '/api/v3/campaign/', { token: owner.api_token })).body).toEqual([ownersCampaign]);
  });

  test('when a sub-user is deleted, then its campaigns and their content are deleted too', async () => {
    const owner = await h.createAccount();
    const sub = (
      await h.request('POST', '/api/v3/user/', {
        token: owner.api_token,
        body: { email: `gone-${Date.now()}@example.com`, password: 'long enough pw' },
      })
    ).body;
    const c = await createCampaign(sub.api_token);
    await h.request('POST', `/api/v3/campaign/${c.token}/content/`, {
      token: sub.api_token,
      body: { url: 'https://192.0.2.1/x' },
    });
    const ownersCampaign = await createCampaign(owner.api_token);
    expect((await h.request('DELETE', `/api/v3/user/${sub.unique_id}/`, { token: owner.api_token })).status).toBe(204);
    const client = await MongoClient.connect(process.env.MONGO_URL!);
    try {
      const campaigns = client.db(h.config.MONGO_DB).collection('campaigns');
      expect(await campaigns.countDocuments({ owner_id: sub.unique_id })).toBe(0);
      expect(await campaigns.countDocuments({ _id: ownersCampaign.token } as never)).toBe(1);
    } finally {
      await client.close();
    }
  });
});
