import type { CampaignScorecard, ScorecardQuery } from '@campaign-events/client';

const exact = (value: number) => ({ value, exact: true, error: null });

/** The scorecard the Events API answers for the hand-computed campaign of its own tests, names as asked. */
export function scorecardFixture(query: ScorecardQuery): CampaignScorecard {
  return {
    campaign: {
      token: query.campaign,
      name: 'Autumn looks',
      start_date: '2026-10-24',
      end_date: '2026-10-27',
      timezone: 'Europe/Paris',
      reach_goal: 6,
      objective: 'Awareness',
      target_countries: ['BE', 'FR'],
      target_source: 'campaign',
      url_count: 2,
    },
    as_of: '2026-11-26T10:23:45+01:00',
    names: {
      impression: query.impression_name ?? 'impression',
      click: query.click_name ?? 'click',
      engagement: query.engagement_name ?? 'engagement',
    },
    impressions: 9,
    clicks: 2,
    ctr: 2 / 9,
    reach: exact(4),
    frequency_avg: 2.25,
    frequency: {
      exact: true,
      reach_1: exact(4),
      reach_2: exact(2),
      reach_3: exact(2),
      reach_5: exact(0),
      reach_10: exact(0),
    },
    engagement: {
      events: 5,
      engaged_ms_avg: 13_400,
      engaged_ms_avg_exact: true,
      engaged_ms_p50: 12_019.5,
      engaged_ms_p50_exact: false,
      attentive_ms: query.attentive_ms ?? 10_000,
      attentive_share: 0.6,
      attentive_share_exact: true,
    },
    goal_progress: 4 / 6,
    pacing: {
      flight_days: 4,
      days: [
        { day: '2026-10-24', impressions: 3, reach: exact(2), goal_to_date: 1.5, pace: 'ahead' },
        { day: '2026-10-25', impressions: 3, reach: exact(4), goal_to_date: 3, pace: 'ahead' },
        { day: '2026-10-26', impressions: 3, reach: exact(4), goal_to_date: 4.5, pace: 'behind' },
        { day: '2026-10-27', impressions: 0, reach: exact(4), goal_to_date: 6, pace: 'behind' },
      ],
    },
    on_target: {
      countries: ['BE', 'FR'],
      source: 'campaign',
      impressions: { ...exact(8), undetermined: 0 },
      impressions_share: 8 / 9,
      reach: { ...exact(3), undetermined: 0 },
    },
    visitor_basis: 'unrecorded',
    caveats: [
      {
        code: 'visitor_basis_unrecorded',
        message: 'Reach counts visitors as the pixel identified them, and events do not record how.',
      },
    ],
  };
}
