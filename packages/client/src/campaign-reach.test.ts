import { CampaignEventsError, NotFoundError, ValidationError } from './errors';
import { EventsClient } from './events-client';
import type { ReportQuery, ReportRow } from './events-types';
import { TooManyUrlsError, campaignReach } from './campaign-reach';
import type { FetchLike } from './client-options';
import { ManagementClient } from './management-client';
import type { CampaignWithContent, Content } from './management-types';

// both clients over a fake fetch that answers like the two services and records every request
interface Sent {
  method: string;
  url: URL;
  body: unknown;
}

const OWNER = { unique_id: '1718000000000123', email: 'o@example.com', user_name: 'o', timezone: 'Asia/Kolkata' };

function content(url: string): Content {
  return { url, content_type: null, added: '2026-02-01 10:00:00', token: `t${url.length}`, state: 'active', title: '' };
}

function campaign(over: Partial<CampaignWithContent> = {}): CampaignWithContent {
  return {
    name: 'Spring',
    token: 'camp1',
    start_date: '2026-03-01',
    end_date: '2026-03-31',
    category: 'Technology',
    brand: null,
    reach: 1000,
    target_geography: [],
    objective: 'Reach',
    content: [content('https://pub.example/a'), content('https://pub.example/b')],
    ...over,
  };
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

function setup(answers: { campaign?: CampaignWithContent; rows?: ReportRow[]; report?: Response } = {}) {
  const sent: Sent[] = [];
  const fetch: FetchLike = async (input, init) => {
    const url = new URL(input);
    sent.push({ method: init.method ?? 'GET', url, body: init.body ? JSON.parse(String(init.body)) : undefined });
    if (url.pathname === '/api/v3/user/me/') return json(200, OWNER);
    if (url.pathname === '/api/v3/campaign/camp1/') return json(200, answers.campaign ?? campaign());
    if (url.pathname.startsWith('/api/v3/campaign/'))
      return json(404, { error: { code: 'not_found', message: 'no such campaign' } });
    if (url.pathname === '/api/v1/events/') return answers.report ?? json(200, answers.rows ?? []);
    throw new Error(`unexpected ${url.pathname}`);
  };
  const noRetry = { retry: { maxAttempts: 1 } };
  const management = new ManagementClient({ baseUrl: 'http://m.example', apiToken: 'tok', fetch, ...noRetry });
  const events = new EventsClient({ baseUrl: 'http://e.example', apiKey: 'ek_key', fetch, ...noRetry });
  const reportQuery = () => sent.find((s) => s.url.pathname === '/api/v1/events/')?.body as ReportQuery | undefined;
  return { management, events, sent, reportQuery };
}

describe('campaignReach', () => {
  test("when a campaign has URLs and a goal, then uniques of impressions on them over its dates in the owner's zone are asked and progress is reach / goal", async () => {
    const t = setup({ rows: [{ name: 'impression', value: 900, uniques: 250, uniques_exact: true }] });
    const reach = await campaignReach(t.management, t.events, 'camp1');
    expect(t.reportQuery()).toEqual({
      owner_id: OWNER.unique_id,
      name: 'impression',
      url: ['https://pub.example/a', 'https://pub.example/b'],
      created__gte: '2026-03-01',
      created__lte: '2026-03-31',
      timezone: 'Asia/Kolkata',
      metrics: ['count', 'uniques'],
    });
    expect(reach).toEqual({
      reach: 250,
      exact: true,
      goal: 1000,
      progress: 0.25,
      events: 900,
      owner_id: OWNER.unique_id,
      start_date: '2026-03-01',
      end_date: '2026-03-31',
      timezone: 'Asia/Kolkata',
      url_count: 2,
      event_name: 'impression',
    });
    expect(t.sent.find((s) => s.url.pathname === '/api/v1/events/')?.url.searchParams.get('api_key')).toBe('ek_key');
  });

  test('when the number is a sketch estimate, then exact is false; when another event name is asked, then that name is reported', async () => {
    const t = setup({ rows: [{ name: 'view', value: 90_000, uniques: 51_234, uniques_exact: false }] });
    const reach = await campaignReach(t.management, t.events, 'camp1', { eventName: 'view' });
    expect(t.reportQuery()?.name).toBe('view');
    expect(reach).toMatchObject({ reach: 51_234, exact: false, event_name: 'view', progress: 51.234 });
  });

  test.each([null, 0])('when the goal is %p, then progress is null', async (goal) => {
    const t = setup({
      campaign: campaign({ reach: goal }),
      rows: [{ name: 'impression', value: 3, uniques: 2, uniques_exact: true }],
    });
    expect(await campaignReach(t.management, t.events, 'camp1')).toMatchObject({ reach: 2, goal, progress: null });
  });

  test('when nothing was seen, then reach is 0 and exact', async () => {
    const t = setup({ rows: [] });
    expect(await campaignReach(t.management, t.events, 'camp1')).toMatchObject({ reach: 0, exact: true, progress: 0 });
  });

  test('when the campaign has no content, then reach is 0, exact, and the Events API is not asked', async () => {
    const t = setup({ campaign: campaign({ content: [] }) });
    expect(await campaignReach(t.management, t.events, 'camp1')).toMatchObject({
      reach: 0,
      exact: true,
      events: 0,
      url_count: 0,
    });
    expect(t.reportQuery()).toBeUndefined();
  });

  test('when the campaign has more than 100 URLs, then TooManyUrlsError says so and no report is asked', async () => {
    const many = Array.from({ length: 101 }, (_, i) => content(`https://pub.example/${i}`));
    const t = setup({ campaign: campaign({ content: many }) });
    const err = await campaignReach(t.management, t.events, 'camp1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TooManyUrlsError);
    expect(err).toBeInstanceOf(CampaignEventsError);
    expect(err).toMatchObject({ urlCount: 101, limit: 100 });
    expect((err as Error).message).toMatch(/101 content URLs.*at most 100/);
    expect(t.reportQuery()).toBeUndefined();
  });

  test('when exactly 100 URLs, then one report asks for all of them', async () => {
    const hundred = Array.from({ length: 100 }, (_, i) => content(`https://pub.example/${i}`));
    const t = setup({ campaign: campaign({ content: hundred }) });
    await campaignReach(t.management, t.events, 'camp1');
    expect(t.reportQuery()?.url).toHaveLength(100);
  });

  test('when the campaign is unknown or the Events API refuses, then their typed errors come through', async () => {
    const t = setup();
    await expect(campaignReach(t.management, t.events, 'other')).rejects.toBeInstanceOf(NotFoundError);
    const refused = setup({
      report: json(400, {
        error: { code: 'validation_error', message: 'bad', details: [{ field: 'metrics', message: 'x' }] },
      }),
    });
    await expect(campaignReach(refused.management, refused.events, 'camp1')).rejects.toBeInstanceOf(ValidationError);
  });

  test('when the Events API answers rows without uniques, then the error says so rather than reach 0', async () => {
    const t = setup({ rows: [{ name: 'impression', value: 5 }] });
    await expect(campaignReach(t.management, t.events, 'camp1')).rejects.toThrow(/no single row with uniques/);
  });

  test('when the event name is empty, then a TypeError before any request', async () => {
    const t = setup();
    await expect(campaignReach(t.management, t.events, 'camp1', { eventName: '' })).rejects.toBeInstanceOf(TypeError);
    expect(t.sent).toEqual([]);
  });
});
