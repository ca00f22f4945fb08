import type { CampaignRecord } from '@cm/contracts';
import type { ApiKeyPrincipal } from '../../api-keys/api-key-service';
import type { CampaignLookup } from '../../registry/campaign-registry-watcher';
import {
  OWNERS,
  prng,
  randomEvents,
  startRollupFixture,
  type RollupFixture,
} from '../../../test/support/rollup-fixture';
import { ScorecardService } from './scorecard-service';

// A campaign's reports and scorecard planned over rollups (the pages family, whose cells keep the
// visitor samples) equal the raw-only answers: the campaign filter is a url filter of hundreds of
// values and a flight in a half-hour zone, so units, raw edges and late (dirty) hours all take part.
const SEED = Number(process.env.REPORT_DIFF_SEED ?? Date.now() % 1_000_000);
const FROM = Date.parse('2026-10-22T00:00:00Z');
const TO = Date.parse('2026-10-27T00:00:00Z');
const NOW = Date.parse('2026-11-02T00:00:00Z');
const random = prng(SEED);
const caller: ApiKeyPrincipal = { id: 'campaign-diff', ownerIds: new Set(OWNERS) };

// randomEvents' pages, and 496 the events never visit: a campaign of 500 URLs
const CAMPAIGN: CampaignRecord = {
  token: 'diff-campaign',
  owner_id: OWNERS[0]!,
  revision: 1,
  name: 'Differential',
  urls: [
    'https://a.example/1',
    'https://b.example/x?y=1',
    'https://b.example/€',
    ...Array.from({ length: 497 }, (_, i) => `https://c.example/${i}?ref=x`),
  ].sort(),
  start_date: '2026-10-23',
  end_date: '2026-10-25',
  timezone: 'Asia/Kolkata',
  reach: 5_000,
  objective: null,
  target_countries: ['DE', 'FR'],
  target_source: 'campaign',
};
const lookup: CampaignLookup = {
  isReady: () => true,
  campaign: (owner, token) => (owner === CAMPAIGN.owner_id && token === CAMPAIGN.token ? CAMPAIGN : undefined),
};
const COUNTRIES = ['DE', 'FR', 'US', 'IN', undefined];

let f: RollupFixture;

beforeAll(async () => {
  f = await startRollupFixture({ campaigns: lookup });
  // enough visitors that the campaign's samples pass K and are sampled (then merged the same either way)
  const visitors = Array.from({ length: 20_000 }, () => Math.floor(random() * 2 ** 52));
  // mostly the campaign owner's impressions on its pages, so that its samples pass K
  const PAGES = CAMPAIGN.urls.filter((u) => !u.startsWith('https://c.example/'));
  const tagged = () => {
    const country = COUNTRIES[Math.floor(random() * COUNTRIES.length)];
    return {
      visitor: visitors[Math.floor(random() * visitors.length)]!,
      ...(country ? { country } : {}),
      ...(random() < 0.9 ? { owner_id: CAMPAIGN.owner_id } : {}),
      ...(random() < 0.7 ? { name: 'impression' } : {}),
      ...(random() < 0.85 ? { url: PAGES[Math.floor(random() * PAGES.length)]! } : {}),
    };
  };
  await f.write(
    randomEvents(random, 20_000, FROM, TO).map((e) => ({ ...e, ...tagged() })),
    1000,
  );
  await f.builder().runOnce();
  // late events into built hours: their units are dirty and read raw beside the cells
  await f.write(
    randomEvents(random, 40, FROM, TO).map((e) => ({ ...e, ...tagged() })),
    10,
  );
}, 240_000);
afterAll(async () => {
  await f?.stop();
});

const BODIES: Array<Record<string, unknown>> = [
  { metrics: 'count,uniques,frequency' },
  { group_by: 'url', metrics: 'count,frequency,engaged_ms_p90' },
  { interval: 'day', fill_zeros: true, metrics: 'count,uniques' },
  { interval: 'hour', name: 'impression', metrics: 'frequency' },
  { url: ['https://b.example/x?y=1', 'https://elsewhere.example/'], group_by: 'content_id', metrics: 'count,uniques' },
  { created__gte: '2026-10-24 10:30:00', metrics: 'count,frequency,value_sum' },
  { device_type: 'mobile', metrics: 'count,uniques', group_by: 'url' },
  { limit: 2, group_by: 'url', order_by: 'frequency', metrics: 'frequency' },
];

describe(`a campaign over rollups vs raw events (seed ${SEED}, REPORT_DIFF_SEED reproduces)`, () => {
  test.each(BODIES.map((b, i) => [i, b]))(
    'when report %i (%j) is asked, then both answers are equal',
    async (_i, body) => {
      const ask = { owner_id: CAMPAIGN.owner_id, campaign: CAMPAIGN.token, ...body };
      const [rolled, raw] = await Promise.all([f.rolled.report(caller, ask), f.raw.report(caller, ask)]);
      expect(rolled).toEqual(raw);
    },
  );

  test('when the scorecard is asked, then both answers are equal, estimates included, and rollups were read', async () => {
    const before = f.usage.rollupUnits;
    const body = { owner_id: CAMPAIGN.owner_id, campaign: CAMPAIGN.token, engagement_name: 'view' };
    const options = { saltPeriod: 'day' as const, now: () => NOW };
    const rolled = await new ScorecardService(f.rolled, options).scorecard(caller, body);
    const raw = await new ScorecardService(f.raw, options).scorecard(caller, body);
    expect(rolled).toEqual(raw);
    expect(rolled.reach.exact).toBe(false);
    expect(rolled.impressions).toBeGreaterThan(0);
    expect(rolled.pacing.days.map((d) => d.day)).toEqual(['2026-10-23', '2026-10-24', '2026-10-25']);
    expect(f.usage.rollupUnits).toBeGreaterThan(before);
  });
});
