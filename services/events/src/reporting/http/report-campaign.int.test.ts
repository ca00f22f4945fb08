import type { CampaignRecord } from '@cm/contracts';
import { startCampaignRegistry, type CampaignRegistryFixture } from '../../../test/support/campaign-registry-fixture';
import { newOwnerId, startReportingHarness, type ReportingHarness } from '../../../test/support/reporting-harness';

// A report restricted to a campaign: its content URLs (canonical, as management publishes them
// over the campaign registry bucket) within its flight, read in the owner's zone.
const GUIDE = 'https://news.example/guide';
const OFFER = 'https://news.example/offer?id=7';
const OTHER = 'https://news.example/other';

let registry: CampaignRegistryFixture;
let h: ReportingHarness;
let key: string;
let bothKey: string;
const owner = newOwnerId();
const otherOwner = newOwnerId();

// New York is at -04:00 in October: the flight runs from 2026-10-05T04:00Z to 2026-10-08T03:59:59.999Z
const SPRING: CampaignRecord = {
  token: 'Spring_2026-ny',
  owner_id: owner,
  revision: 1,
  name: 'Spring',
  urls: [GUIDE, OFFER],
  start_date: '2026-10-05',
  end_date: '2026-10-07',
  timezone: 'America/New_York',
  reach: 1000,
  objective: 'Reach',
  target_countries: ['US'],
  target_source: 'campaign',
};
const THEIRS: CampaignRecord = { ...SPRING, token: 'theirs', owner_id: otherOwner };
const GONE: CampaignRecord = { ...SPRING, token: 'gone-campaign' };

beforeAll(async () => {
  registry = await startCampaignRegistry();
  h = await startReportingHarness({}, { campaigns: registry.lookup });
  key = (await h.createKey([owner])).api_key;
  bothKey = (await h.createKey([owner, otherOwner])).api_key;
  for (const record of [SPRING, THEIRS, GONE]) await registry.publish(record);
  await registry.remove(GONE);
  const at = (iso: string) => new Date(iso);
  await h.insertEvents([
    // the evening before the flight in New York (already 2026-10-05 in UTC)
    { owner_id: owner, url: GUIDE, created: at('2026-10-05T03:59:59.999Z'), visitor: 1 },
    { owner_id: owner, url: GUIDE, created: at('2026-10-05T04:00:00.000Z'), visitor: 1 },
    { owner_id: owner, url: OFFER, created: at('2026-10-06T12:00:00.000Z'), visitor: 2 },
    { owner_id: owner, url: OTHER, created: at('2026-10-06T12:00:00.000Z'), visitor: 3 },
    { owner_id: owner, name: 'click', url: GUIDE, created: at('2026-10-06T13:00:00.000Z'), visitor: 1 },
    { owner_id: owner, url: GUIDE, created: at('2026-10-08T03:59:59.999Z'), visitor: 2 },
    // the morning after, in New York
    { owner_id: owner, url: GUIDE, created: at('2026-10-08T04:00:00.000Z'), visitor: 4 },
    // the same URL and days for another owner
    { owner_id: otherOwner, url: GUIDE, created: at('2026-10-06T12:00:00.000Z'), visitor: 5 },
  ]);
});
afterAll(async () => {
  await h?.stop();
  await registry?.stop();
});

const report = async (body: Record<string, unknown>, apiKey = key) => {
  const res = await h.report(apiKey, { owner_id: owner, campaign: SPRING.token, ...body });
  expect(res.status).toBe(200);
  return res.body;
};

describe('a report restricted to a campaign', () => {
  test("when only the campaign is given, then its URLs count within its flight in the owner's zone, and nothing else", async () => {
    expect(await report({ metrics: 'count,uniques' })).toEqual([
      { name: 'click', value: 1, uniques: 1, uniques_exact: true },
      { name: 'impression', value: 3, uniques: 2, uniques_exact: true },
    ]);
  });

  test('when a url filter is given too, then only the campaign URLs it names count, in any spelling', async () => {
    expect(await report({ url: ['https://NEWS.example/guide/?fbclid=IwAR1#top', OTHER] })).toEqual([
      { name: 'click', value: 1 },
      { name: 'impression', value: 2 },
    ]);
    expect(await report({ url: OTHER })).toEqual([]);
  });

  test('when grouped by url, then there is a row per campaign URL with events', async () => {
    expect(await report({ group_by: 'url', name: 'impression' })).toEqual([
      { name: 'impression', url: GUIDE, value: 2 },
      { name: 'impression', url: OFFER, value: 1 },
    ]);
  });

  test("when a day series is asked without dates, then the flight's days in the owner's zone are the buckets", async () => {
    expect(await report({ interval: 'day', name: 'impression', fill_zeros: true })).toEqual([
      { time: '2026-10-05T00:00:00-04:00', name: 'impression', value: 1 },
      { time: '2026-10-06T00:00:00-04:00', name: 'impression', value: 1 },
      { time: '2026-10-07T00:00:00-04:00', name: 'impression', value: 1 },
    ]);
    // another zone asked: the flight stays the owner's days, the buckets are the zone's
    expect(await report({ interval: 'day', name: 'impression', timezone: 'UTC' })).toEqual([
      { time: '2026-10-05T00:00:00+00:00', name: 'impression', value: 1 },
      { time: '2026-10-06T00:00:00+00:00', name: 'impression', value: 1 },
      { time: '2026-10-08T00:00:00+00:00', name: 'impression', value: 1 },
    ]);
  });

  test("when dates are given, then the range is theirs within the flight, bare dates read in the campaign's zone", async () => {
    expect(await report({ name: 'impression', created__gte: '2026-10-06', created__lte: '2026-12-31' })).toEqual([
      { name: 'impression', value: 2 },
    ]);
    expect(await report({ created__gte: '2026-10-08', created__lte: '2026-10-20' })).toEqual([]);
  });

  test('when the url filter or the range misses the campaign, then the answer is empty, or the zero series with fill_zeros', async () => {
    expect(await report({ url: OTHER, interval: 'day', name: 'impression', fill_zeros: true })).toEqual([
      { time: '2026-10-05T00:00:00-04:00', name: 'impression', value: 0 },
      { time: '2026-10-06T00:00:00-04:00', name: 'impression', value: 0 },
      { time: '2026-10-07T00:00:00-04:00', name: 'impression', value: 0 },
    ]);
    expect(
      await report({ created__gte: '2026-01-01', created__lte: '2026-01-31', interval: 'day', fill_zeros: true }),
    ).toEqual([]);
  });

  test('when the campaign is combined with a metric, a limit and a conversion, then they apply to its events', async () => {
    expect(
      await report({
        metrics: 'count,conversion_rate,frequency',
        conversion: { from: 'impression', to: 'click' },
        group_by: 'url',
        limit: 1,
      }),
    ).toEqual([
      {
        name: 'click',
        url: GUIDE,
        value: 1,
        frequency_avg: 1,
        reach_1: 1,
        reach_2: 0,
        reach_3: 0,
        reach_5: 0,
        reach_10: 0,
        frequency_exact: true,
      },
      {
        name: 'impression',
        url: GUIDE,
        value: 2,
        frequency_avg: 1,
        reach_1: 2,
        reach_2: 0,
        reach_3: 0,
        reach_5: 0,
        reach_10: 0,
        frequency_exact: true,
        conversion_rate: 0.5,
      },
    ]);
  });
});

describe('campaign tokens a report cannot use', () => {
  const answer = async (token: unknown, apiKey = bothKey) => {
    const res = await fetch(`${h.baseUrl}/api/v1/events/?api_key=${apiKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ owner_id: owner, campaign: token }),
    });
    return { status: res.status, text: await res.text() };
  };

  test("when the token is unknown, deleted or another owner's, then the answers are byte for byte the same 400", async () => {
    const unknown = await answer('NoSuchCampaign');
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.text)).toEqual({
      error: {
        code: 'validation_error',
        message: 'invalid body',
        details: [{ field: 'campaign', message: 'is not a campaign of this owner_id' }],
      },
    });
    expect(await answer(GONE.token)).toEqual(unknown);
    expect(await answer(THEIRS.token)).toEqual(unknown);
  });

  test('when the key may not read the owner, then 403 comes first, whatever the token', async () => {
    const res = await h.report(key, { owner_id: otherOwner, campaign: THEIRS.token });
    expect(res.status).toBe(403);
    expect((await h.report(key, { owner_id: otherOwner, campaign: 'NoSuchCampaign' })).body).toEqual(res.body);
  });

  test.each([
    ['an operator object', { $gt: '' }],
    ['a number', 42],
    ['a list', [SPRING.token]],
    ['a dot (a part key)', `${SPRING.token}.1.0`],
    ['65 characters', 'c'.repeat(65)],
    ['empty', ''],
  ])('when campaign is %s, then 400 naming campaign', async (_what, token) => {
    const res = await answer(token);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error.details.map((d: { field: string }) => d.field)).toEqual(['campaign']);
  });
});

describe('a campaign of 500 URLs', () => {
  const many = (i: number) => `https://www.shop.example/p/${i}?color=blue&size=${i % 5}`;
  const BIG: CampaignRecord = {
    ...SPRING,
    token: 'big-campaign',
    urls: Array.from({ length: 500 }, (_, i) => many(i)).sort(),
  };

  test('when events fall on 300 of its URLs and on others, then the report counts exactly its own, grouped or not', async () => {
    await registry.publish(BIG);
    const day = new Date('2026-10-06T15:00:00Z');
    await h.insertEvents([
      ...Array.from({ length: 300 }, (_, i) => ({ owner_id: owner, url: many(i), created: day, visitor: 10_000 + i })),
      ...Array.from({ length: 20 }, (_, i) => ({ owner_id: owner, url: many(500 + i), created: day, visitor: 20_000 })),
    ]);
    const totals = await report({ campaign: BIG.token, metrics: 'count,uniques', name: 'impression' });
    // the 300 and the two SPRING impressions on no BIG URL are not there
    expect(totals).toEqual([{ name: 'impression', value: 300, uniques: 300, uniques_exact: true }]);
    const rows = (await report({ campaign: BIG.token, group_by: 'url' })) as Array<{ url: string; value: number }>;
    expect(rows).toHaveLength(300);
    expect(new Set(rows.map((r) => r.url))).toEqual(new Set(Array.from({ length: 300 }, (_, i) => many(i))));
  });
});

describe('a reporting process whose campaign registry is not replayed yet', () => {
  test('when a report names a campaign, then 503 with Retry-After; reports without one are answered', async () => {
    const waiting = await startCampaignRegistry({ start: false });
    const early = await startReportingHarness({}, { campaigns: waiting.lookup });
    try {
      const earlyKey = (await early.createKey([owner])).api_key;
      const res = await early.report(earlyKey, { owner_id: owner, campaign: SPRING.token });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('unavailable');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await early.report(earlyKey, { owner_id: otherOwner, campaign: SPRING.token })).status).toBe(403);
      expect((await early.report(earlyKey, { owner_id: owner })).status).toBe(200);
    } finally {
      await early.stop();
      await waiting.stop();
    }
  });
});
