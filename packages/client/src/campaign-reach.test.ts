import { NotFoundError, ValidationError } from './errors';
import { EventsClient } from './events-client';
import type { CampaignScorecard, ScorecardQuery } from './events-types';
import { campaignReach } from './campaign-reach';
import type { FetchLike } from './client-options';
import { ManagementClient } from './management-client';

// both clients over a fake fetch that answers like the two services and records every request
interface Sent {
  method: string;
  url: URL;
  body: unknown;
}

const OWNER = { unique_id: '1718000000000123', email: 'o@example.com', user_name: 'o', timezone: 'Asia/Kolkata' };
const estimate = (value: number, error: number | null = null) => ({ value, exact: error === null, error });

/** A scorecard as the Events API answers it (the fields campaignReach reads, the rest plausible). */
function scorecard(over: { reach?: ReturnType<typeof estimate>; impressions?: number; goal?: number | null } = {}) {
  const reach = over.reach ?? estimate(250);
  const goal = over.goal === undefined ? 1000 : over.goal;
  return (query: ScorecardQuery): CampaignScorecard => ({
    campaign: {
      token: query.campaign,
      name: 'Spring',
      start_date: '2026-03-01',
      end_date: '2026-03-31',
      timezone: 'Asia/Kolkata',
      reach_goal: goal,
      objective: 'Reach',
      target_countries: [],
      target_source: 'none',
      url_count: 2_500,
    },
    as_of: '2026-03-15T10:00:00+05:30',
    names: {
      impression: query.impression_name ?? 'impression',
      click: query.click_name ?? 'click',
      engagement: query.engagement_name ?? 'engagement',
    },
    impressions: over.impressions ?? 900,
    clicks: 12,
    ctr: 12 / 900,
    reach,
    frequency_avg: 3.6,
    frequency: {
      exact: reach.exact,
      reach_1: reach,
      reach_2: estimate(100),
      reach_3: estimate(50),
      reach_5: estimate(10),
      reach_10: estimate(1),
    },
    engagement: {
      events: 0,
      engaged_ms_avg: null,
      engaged_ms_avg_exact: true,
      engaged_ms_p50: null,
      engaged_ms_p50_exact: true,
      attentive_ms: 10_000,
      attentive_share: null,
      attentive_share_exact: true,
    },
    goal_progress: goal ? reach.value / goal : null,
    pacing: { flight_days: 31, days: [] },
    on_target: null,
    visitor_basis: 'unrecorded',
    caveats: [],
  });
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

function setup(answers: { card?: (q: ScorecardQuery) => CampaignScorecard; scorecard?: Response } = {}) {
  const sent: Sent[] = [];
  const fetch: FetchLike = async (input, init) => {
    const url = new URL(input);
    const body = init.body ? JSON.parse(String(init.body)) : undefined;
    sent.push({ method: init.method ?? 'GET', url, body });
    if (url.pathname === '/api/v3/user/me/') return json(200, OWNER);
    if (url.pathname === '/api/v1/events/scorecard/') {
      if (answers.scorecard) return answers.scorecard;
      if (body.campaign !== 'camp1')
        return json(400, {
          error: {
            code: 'validation_error',
            message: 'invalid body',
            details: [{ field: 'campaign', message: 'is not a campaign of this owner_id' }],
          },
        });
      return json(200, (answers.card ?? scorecard())(body));
    }
    throw new Error(`unexpected ${url.pathname}`);
  };
  const noRetry = { retry: { maxAttempts: 1 } };
  const management = new ManagementClient({ baseUrl: 'http://m.example', apiToken: 'tok', fetch, ...noRetry });
  const events = new EventsClient({ baseUrl: 'http://e.example', apiKey: 'ek_key', fetch, ...noRetry });
  const asked = () => sent.find((s) => s.url.pathname === '/api/v1/events/scorecard/')?.body as ScorecardQuery;
  return { management, events, sent, asked };
}

describe('campaignReach', () => {
  test('when asked, then the owner comes from the management API and everything else from one scorecard of the campaign', async () => {
    const t = setup();
    const reach = await campaignReach(t.management, t.events, 'camp1');
    expect(t.sent.map((s) => `${s.method} ${s.url.pathname}`)).toEqual([
      'GET /api/v3/user/me/',
      'POST /api/v1/events/scorecard/',
    ]);
    expect(t.asked()).toEqual({
      owner_id: OWNER.unique_id,
      campaign: 'camp1',
      impression_name: 'impression',
      click_name: 'click',
      engagement_name: 'engagement',
    });
    expect(reach).toEqual({
      reach: 250,
      exact: true,
      error: null,
      goal: 1000,
      progress: 0.25,
      events: 900,
      owner_id: OWNER.unique_id,
      start_date: '2026-03-01',
      end_date: '2026-03-31',
      timezone: 'Asia/Kolkata',
      url_count: 2_500,
      event_name: 'impression',
    });
    expect(t.sent[1]!.url.searchParams.get('api_key')).toBe('ek_key');
  });

  test('when the owner id is given, then the management API is not asked at all', async () => {
    const t = setup();
    expect(await campaignReach(t.management, t.events, 'camp1', { ownerId: '99' })).toMatchObject({ owner_id: '99' });
    expect(t.sent.map((s) => s.url.pathname)).toEqual(['/api/v1/events/scorecard/']);
    expect(await campaignReach(undefined, t.events, 'camp1', { ownerId: '99' })).toMatchObject({ reach: 250 });
    await expect(campaignReach(undefined, t.events, 'camp1')).rejects.toBeInstanceOf(TypeError);
  });

  test('when the reach is a sample estimate, then exact is false and its error comes along', async () => {
    const t = setup({ card: scorecard({ reach: estimate(51_234, 0.0156) }) });
    expect(await campaignReach(t.management, t.events, 'camp1')).toMatchObject({
      reach: 51_234,
      exact: false,
      error: 0.0156,
      progress: 51.234,
    });
  });

  test.each([
    ['click', { impression_name: 'click', click_name: 'impression', engagement_name: 'engagement' }],
    ['engagement', { impression_name: 'engagement', click_name: 'impression', engagement_name: 'click' }],
    ['view', { impression_name: 'view', click_name: 'click', engagement_name: 'engagement' }],
  ])(
    'when the event %s is counted, then the scorecard names stay distinct and that event is reported',
    async (name, names) => {
      const t = setup();
      expect(await campaignReach(t.management, t.events, 'camp1', { eventName: name })).toMatchObject({
        event_name: name,
      });
      expect(t.asked()).toMatchObject(names);
    },
  );

  test.each([null, 0])('when the goal is %p, then progress is null', async (goal) => {
    const t = setup({ card: scorecard({ goal }) });
    expect(await campaignReach(t.management, t.events, 'camp1')).toMatchObject({ goal, progress: null });
  });

  test('when nothing was seen, then reach is 0 and exact', async () => {
    const t = setup({ card: scorecard({ reach: estimate(0), impressions: 0 }) });
    expect(await campaignReach(t.management, t.events, 'camp1')).toMatchObject({
      reach: 0,
      exact: true,
      events: 0,
      progress: 0,
    });
  });

  test('when the campaign is unknown to the Events API, or the Events API has no scorecard (an older release), then its typed errors come through', async () => {
    const t = setup();
    await expect(campaignReach(t.management, t.events, 'other')).rejects.toBeInstanceOf(ValidationError);
    const gone = setup({ scorecard: json(404, { error: { code: 'not_found', message: 'no such endpoint' } }) });
    await expect(campaignReach(gone.management, gone.events, 'camp1')).rejects.toBeInstanceOf(NotFoundError);
  });

  test('when the event name is empty, then a TypeError before any request', async () => {
    const t = setup();
    await expect(campaignReach(t.management, t.events, 'camp1', { eventName: '' })).rejects.toBeInstanceOf(TypeError);
    expect(t.sent).toEqual([]);
  });
});

describe('EventsClient.campaignScorecard', () => {
  test('when asked, then it posts the query with the key in the query string and answers the scorecard', async () => {
    const t = setup();
    const card = await t.events.campaignScorecard({ owner_id: '42', campaign: 'camp1', attentive_ms: 15_000 });
    expect(card.campaign.token).toBe('camp1');
    expect(t.sent).toHaveLength(1);
    expect(t.sent[0]!.url.toString()).toBe('http://e.example/api/v1/events/scorecard/?api_key=ek_key');
    expect(t.sent[0]!.body).toEqual({ owner_id: '42', campaign: 'camp1', attentive_ms: 15_000 });
  });

  test('when the client has no key, then it refuses before any request', async () => {
    const events = new EventsClient({ baseUrl: 'http://e.example' });
    await expect(events.campaignScorecard({ owner_id: '42', campaign: 'c' })).rejects.toBeInstanceOf(TypeError);
  });
});
