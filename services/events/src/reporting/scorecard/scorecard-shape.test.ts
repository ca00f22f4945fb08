import type { CampaignRecord } from '@cm/contracts';
import { aggregateOf } from '../../metrics/registry';
import { addVisitor, emptySample, VISITOR_SAMPLE, type VisitorSample } from '../../sketches/visitor-sample';
import { seededHashes } from '../../../test/support/seeded-hashes';
import { reportGroup, type ReportGroup } from '../read/report-group';
import { scorecardQuery } from './scorecard-query';
import { validateScorecardBody } from './scorecard-schema';
import { shapeScorecard } from './scorecard-shape';

// Shaping the scorecard from merged groups, as the one read hands them over: a group per day and name.
const CAMPAIGN: CampaignRecord = {
  token: 'c1',
  owner_id: '42',
  revision: 1,
  name: 'Monsoon',
  urls: ['https://a.example/1', 'https://a.example/2'],
  start_date: '2026-07-01',
  end_date: '2026-07-10',
  timezone: 'Asia/Kolkata',
  reach: 100,
  objective: null,
  target_countries: ['IN'],
  target_source: 'owner',
};
// 2026-07-03 12:00 in Kolkata: three flight days so far
const NOW = Date.parse('2026-07-03T06:30:00Z');
const body = validateScorecardBody({ owner_id: '42', campaign: 'c1' });
const query = scorecardQuery(body, CAMPAIGN, { maxRangeDays: 400 }, NOW);
const dayStart = (n: number) => query.series![n]!.time;

function sample(visitors: Array<[number, number, string?]>): VisitorSample {
  const s = emptySample();
  for (const [hash, events, country] of visitors) addVisitor(s, hash, events, country ?? null);
  return s;
}

function group(
  day: number,
  name: string,
  count: number,
  frequency = emptySample(),
  engaged: number[] = [],
): ReportGroup {
  const sums = aggregateOf('sums');
  const quantiles = aggregateOf('quantiles');
  let s = sums.empty();
  let q = quantiles.empty();
  for (const [i, ms] of engaged.entries()) {
    const event = { _id: `e${i}`, created: new Date(dayStart(day)), measures: { engaged_ms: ms } };
    s = sums.add(s, event);
    q = quantiles.add(q, event);
  }
  return reportGroup(name, [], { count, frequency, sums: s as never, quantiles: q as never }, dayStart(day));
}

describe('shapeScorecard', () => {
  test('when three flight days were read, then the figures come from the groups of each name, the pacing from every day so far', () => {
    const groups = [
      group(
        0,
        'impression',
        5,
        sample([
          [1, 3, 'IN'],
          [2, 2, 'US'],
        ]),
      ),
      group(0, 'click', 1),
      group(
        2,
        'impression',
        2,
        sample([
          [1, 1, 'IN'],
          [3, 1],
        ]),
      ),
      group(2, 'engagement', 3, emptySample(), [4_000, 11_000, 20_000]),
    ];
    const card = shapeScorecard({ campaign: CAMPAIGN, body, query, groups, now: NOW, saltPeriod: 'week' });
    expect(card).toMatchObject({
      campaign: {
        token: 'c1',
        name: 'Monsoon',
        objective: null,
        reach_goal: 100,
        target_source: 'owner',
        url_count: 2,
      },
      as_of: '2026-07-03T12:00:00+05:30',
      impressions: 7,
      clicks: 1,
      ctr: 1 / 7,
      reach: { value: 3, exact: true, error: null },
      frequency_avg: 7 / 3,
      goal_progress: 0.03,
      engagement: {
        events: 3,
        engaged_ms_avg: 35_000 / 3,
        engaged_ms_avg_exact: true,
        attentive_ms: 10_000,
        attentive_share: 2 / 3,
        attentive_share_exact: true,
      },
      on_target: {
        countries: ['IN'],
        source: 'owner',
        impressions: { value: 4, exact: true, error: null, undetermined: 0 },
        impressions_share: 4 / 7,
        reach: { value: 1, exact: true, error: null, undetermined: 0 },
      },
      visitor_basis: 'unrecorded',
    });
    expect(card.pacing).toEqual({
      flight_days: 10,
      days: [
        {
          day: '2026-07-01',
          impressions: 5,
          reach: { value: 2, exact: true, error: null },
          goal_to_date: 10,
          pace: 'behind',
        },
        {
          day: '2026-07-02',
          impressions: 0,
          reach: { value: 2, exact: true, error: null },
          goal_to_date: 20,
          pace: 'behind',
        },
        {
          day: '2026-07-03',
          impressions: 2,
          reach: { value: 3, exact: true, error: null },
          goal_to_date: 30,
          pace: 'behind',
        },
      ],
    });
    expect(card.caveats[0]!.message).toMatch(/ISO week/);
    // the groups' own states are left as they were
    expect(groups[0]!.states.frequency!.size).toBe(2);
  });

  test('when more than K visitors were reached, then reach, frequency, on-target and pacing are estimates with errors', () => {
    const k = VISITOR_SAMPLE.k;
    const hash = seededHashes(5);
    const day0 = sample(Array.from({ length: k }, () => [hash(), 1, 'IN'] as [number, number, string]));
    const day1 = sample(Array.from({ length: k }, () => [hash(), 2, 'US'] as [number, number, string]));
    const card = shapeScorecard({
      campaign: CAMPAIGN,
      body,
      query,
      groups: [group(0, 'impression', k, day0), group(1, 'impression', 2 * k, day1)],
      now: NOW,
      saltPeriod: 'day',
    });
    expect(card.reach.exact).toBe(false);
    expect(card.reach.error).toBeGreaterThan(0);
    expect(card.frequency.exact).toBe(false);
    expect(card.frequency.reach_2.error).toBeGreaterThan(card.reach.error!);
    expect(card.pacing.days[0]!.reach).toEqual({ value: k, exact: true, error: null });
    expect(card.pacing.days[1]!.reach).toEqual(card.reach);
    expect(card.on_target!.reach.exact).toBe(false);
    expect(Math.abs(card.on_target!.impressions_share! - 1 / 3)).toBeLessThan(0.1);
  });

  test('when nothing was read, there are no target countries and no goal, then the figures are empty, not made up', () => {
    const bare = { ...CAMPAIGN, reach: null, target_countries: [], target_source: 'none' as const };
    const card = shapeScorecard({ campaign: bare, body, query, groups: [], now: NOW, saltPeriod: 'day' });
    expect(card).toMatchObject({
      impressions: 0,
      clicks: 0,
      ctr: null,
      reach: { value: 0, exact: true, error: null },
      frequency_avg: null,
      goal_progress: null,
      on_target: null,
      engagement: { events: 0, engaged_ms_avg: null, engaged_ms_p50: null, attentive_share: null },
    });
    expect(card.pacing.days.map((d) => [d.impressions, d.goal_to_date, d.pace])).toEqual([
      [0, null, null],
      [0, null, null],
      [0, null, null],
    ]);
  });
});
