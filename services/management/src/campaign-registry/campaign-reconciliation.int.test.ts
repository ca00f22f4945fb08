import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import {
  campaignPartKey,
  encodeCampaignHeader,
  encodeCampaignPart,
  toCampaignValues,
  type CampaignRecord,
} from '@cm/contracts';
import {
  TEST_ADMIN_TOKEN,
  startManagementHarness,
  type ManagementHarness,
} from '../../test/support/management-harness';

let h: ManagementHarness;
let owner: { unique_id: string; api_token: string };
beforeAll(async () => {
  h = await startManagementHarness();
  owner = await h.createAccount();
});
afterAll(async () => {
  await h.stop();
});

const reconcile = async (): Promise<number> => {
  const res = await h.request('POST', '/admin/v1/registry/reconcile', { token: TEST_ADMIN_TOKEN });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ corrections: expect.any(Number), campaign_corrections: expect.any(Number) });
  return res.body.campaign_corrections;
};
const corrections = (kind: string) => h.metric('management_campaign_registry_corrections_total', ['kind', kind]);

async function campaign(urls: string[] = []): Promise<string> {
  const token = (
    await h.request('POST', '/api/v3/campaign/', {
      token: owner.api_token,
      body: { name: 'Reconciled', start_date: '2026-01-01', end_date: '2026-12-31', category: 'Travel & Tourism' },
    })
  ).body.token as string;
  for (const url of urls)
    await h.request('POST', `/api/v3/campaign/${token}/content/`, { token: owner.api_token, body: { url } });
  return token;
}

let tokens = 0;
const noSuchCampaign = () => `ghost${Date.now()}x${++tokens}`;
const ghostRecord = (token: string, revision: number): CampaignRecord => ({
  token,
  owner_id: owner.unique_id,
  revision,
  urls: ['https://ghost.example/'],
  start_date: '2026-01-01',
  end_date: '2026-01-31',
  timezone: 'UTC',
  reach: null,
  objective: null,
  target_countries: [],
  target_source: 'none',
});

describe('campaign registry reconciliation', () => {
  test("when a campaign's key is missing, then a pass writes its record back at its revision", async () => {
    const token = await campaign(['https://travel.example/offers?utm_medium=cpc']);
    const record = await h.campaignRecord(token);
    await (await h.campaignBucket()).purge(token);
    const before = await corrections('missing');
    await reconcile();
    expect(await h.campaignRecord(token)).toEqual(record);
    expect(await corrections('missing')).toBe(before + 1);
  });

  test('when the bucket holds an older revision, then a pass writes the current one', async () => {
    const token = await campaign(['https://travel.example/a']);
    const current = await h.campaignRecord(token);
    const old = { ...(current as CampaignRecord), revision: 1, urls: [] };
    await (await h.campaignBucket()).put(token, encodeCampaignHeader(toCampaignValues(old).header));
    await reconcile();
    expect(await h.campaignRecord(token)).toEqual(current);
  });

  test('when content was written without its revision (a crash in between), then the campaign moves past the bucket and the current URLs are published', async () => {
    const token = await campaign(['https://travel.example/a']);
    const { revision } = (await h.campaignRecord(token))!;
    await (await h.db()).collection('campaigns').updateOne({ _id: token as never }, {
      $push: {
        content: {
          token: 'crashAdd0000000000000',
          url: 'https://travel.example/b',
          host: 'travel.example',
          content_type: null,
          added: new Date(),
          title: '',
          title_state: 'done',
        },
      },
    } as never);
    const before = await corrections('diverged');
    await reconcile();
    expect(await h.campaignRecord(token)).toMatchObject({
      revision: revision + 1,
      urls: ['https://travel.example/a', 'https://travel.example/b'],
    });
    expect(await corrections('diverged')).toBe(before + 1);
  });

  test("when the owner's time zone was written but its campaigns were not bumped (a crash in between), then a pass publishes them with it", async () => {
    const other = await h.createAccount();
    const token = (
      await h.request('POST', '/api/v3/campaign/', {
        token: other.api_token,
        body: { name: 'Zoned', start_date: '2026-01-01', end_date: '2026-12-31', category: 'Other' },
      })
    ).body.token as string;
    await (
      await h.db()
    )
      .collection('users')
      .updateOne({ _id: other.unique_id as never }, { $set: { timezone: 'Pacific/Auckland' } });
    await reconcile();
    expect(await h.campaignRecord(token)).toMatchObject({ revision: 2, timezone: 'Pacific/Auckland' });
  });

  test('when a campaign outlived its owner (the user document gone), then a pass turns it into a tombstone and removes it', async () => {
    const other = await h.createAccount();
    const token = (
      await h.request('POST', '/api/v3/campaign/', {
        token: other.api_token,
        body: { name: 'Orphan', start_date: '2026-01-01', end_date: '2026-12-31', category: 'Other' },
      })
    ).body.token as string;
    const db = await h.db();
    await db.collection('users').deleteOne({ _id: other.unique_id as never });
    await reconcile();
    expect(await h.campaignRecord(token)).toEqual({ token, owner_id: other.unique_id, revision: 3, deleted: true });
    expect(await db.collection('campaigns').countDocuments({ _id: token as never })).toBe(0);
  });

  test('when the bucket has a live record of a campaign that does not exist, then a pass replaces it by a tombstone one revision higher', async () => {
    const token = noSuchCampaign();
    await (await h.campaignBucket()).put(token, encodeCampaignHeader(toCampaignValues(ghostRecord(token, 3)).header));
    await reconcile();
    expect(await h.campaignRecord(token)).toEqual({ token, owner_id: owner.unique_id, revision: 4, deleted: true });
  });

  test('when a key holds a value that is no record and there is no such campaign, then a pass purges it', async () => {
    const token = noSuchCampaign();
    const kv = await h.campaignBucket();
    await kv.put(token, '{"token":{"$ne":null},"owner_id":1}');
    await reconcile();
    const entry = await kv.get(token);
    expect(entry === null || entry.operation !== 'PUT').toBe(true);
  });

  test('when parts belong to no current record (an older revision, a campaign that is gone), then a pass removes them and keeps the current parts', async () => {
    const token = await campaign();
    const kv = await h.campaignBucket();
    const ghost = noSuchCampaign();
    const stale = toCampaignValues({
      ...ghostRecord(token, 0),
      urls: Array.from({ length: 200 }, (_, i) => `https://travel.example/${i}?q=${'x'.repeat(2000)}`),
    });
    expect(stale.parts.length).toBeGreaterThan(1);
    for (const part of stale.parts) {
      await kv.put(campaignPartKey(token, 0, part.index), encodeCampaignPart(part));
      await kv.put(campaignPartKey(ghost, 9, part.index), encodeCampaignPart({ ...part, token: ghost, revision: 9 }));
    }
    const before = await corrections('orphan_parts');
    await reconcile();
    const left: string[] = [];
    for await (const key of await kv.keys(`${token}.*.*`)) left.push(key);
    for await (const key of await kv.keys(`${ghost}.*.*`)) left.push(key);
    expect(left).toEqual([]);
    expect(await corrections('orphan_parts')).toBe(before + 2);
    expect((await h.campaignRecord(token))?.revision).toBe(1);
  });

  test('when the whole bucket is lost, then one pass builds it again from the campaigns collection', async () => {
    const live = await campaign(['https://travel.example/lost?ref=a', 'https://travel.example/lost?ref=b']);
    const record = await h.campaignRecord(live);
    const nc = await connect({ servers: h.config.NATS_URL });
    await (await jetstreamManager(nc)).streams.delete(`KV_${h.config.CAMPAIGN_REGISTRY_BUCKET}`);
    await nc.close();
    expect(await reconcile()).toBeGreaterThanOrEqual(1);
    expect(await h.campaignRecord(live)).toEqual(record);
  });
});
