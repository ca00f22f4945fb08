import {
  TEST_ADMIN_TOKEN,
  startManagementHarness,
  type ManagementHarness,
} from '../../../../services/management/test/support/management-harness';
import {
  startEventsHarness,
  waitUntil,
  type EventsHarness,
} from '../../../../services/events/test/support/events-harness';
import { AdminClient } from '../admin-client';
import { campaignReach } from '../campaign-reach';
import { EventsClient } from '../events-client';
import { ManagementClient } from '../management-client';

// Both services sharing the owner and campaign registries: a campaign made through the management
// API (which publishes it to the events service), pixel hits carrying visitor ids, and the reach
// computed by the client from the two public APIs only.
let management: ManagementHarness;
let events: EventsHarness;
beforeAll(async () => {
  const suffix = `${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const buckets = {
    OWNER_REGISTRY_BUCKET: `owners_reach_${suffix}`,
    CAMPAIGN_REGISTRY_BUCKET: `campaigns_reach_${suffix}`,
  };
  management = await startManagementHarness(buckets);
  events = await startEventsHarness(buckets);
});
afterAll(async () => {
  await events?.stop();
  await management?.stop();
});

const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
};
const ZONE = 'Asia/Kolkata';
const DAY_MS = 86_400_000;

/** The calendar date `days` after today in `zone`, as YYYY-MM-DD. */
function dateIn(zone: string, days: number): string {
  const today = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date());
  return new Date(Date.parse(`${today}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

describe('campaignReach against both services', () => {
  test('when three visitors saw the campaign (one on both URLs), others saw it outside its dates or elsewhere, then reach is 3, exact, progress 3/goal', async () => {
    const operator = new AdminClient({
      managementUrl: management.baseUrl,
      eventsUrl: events.baseUrl,
      adminToken: TEST_ADMIN_TOKEN,
    });
    const owner = await operator.createAccount({
      email: `reach-${Date.now()}@example.com`,
      password: 'correct horse battery',
      timezone: ZONE,
    });
    const mine = new ManagementClient({ baseUrl: management.baseUrl, apiToken: owner.api_token });
    const campaign = await mine.createCampaign({
      name: 'Reach test',
      start_date: dateIn(ZONE, -1),
      end_date: dateIn(ZONE, 1),
      category: 'Technology',
      objective: 'Reach',
      reach: 4,
    });
    const [a, b] = ['https://pub.example/reach/a', 'https://pub.example/reach/b'];
    for (const url of [a, b]) await mine.addContent(campaign.token, { url });
    await waitUntil(
      () => events.system.owners?.has(owner.unique_id) ?? false,
      5000,
      'the owner in the events registry',
    );
    await waitUntil(
      () => events.system.campaigns?.campaign(owner.unique_id, campaign.token)?.urls.length === 2,
      15_000,
      "the campaign's two URLs in the events service",
    );

    const pixels = new EventsClient({ baseUrl: events.baseUrl });
    const hit = async (url: string, vid: string, name = 'impression') => {
      const pixel = pixels.pixelUrl({ owner_id: owner.unique_id, name, url, vid });
      expect((await fetch(pixel, { headers: BROWSER })).status).toBe(200);
    };
    await hit(a, 'visitor-1');
    await hit(a, 'visitor-1'); // a repeat is the same visitor
    await hit(a, 'visitor-2');
    await hit(a, 'visitor-3');
    await hit(b, 'visitor-3'); // on both URLs: still one visitor
    await hit('https://pub.example/elsewhere', 'visitor-4'); // not campaign content
    await hit(a, 'visitor-5', 'click'); // not an exposure
    // before the campaign started (the pixel stamps now, so this one goes straight to the stream)
    const early = {
      owner_id: owner.unique_id,
      name: 'impression',
      url: a,
      created: new Date(Date.parse(`${dateIn(ZONE, -4)}T12:00:00Z`)).toISOString(),
      visitor: 4_503_599_627_370_000,
    };
    await events.publishEvent(early);
    await events.waitForStored(8, { owner_id: owner.unique_id }, 10_000);

    const key = await operator.createApiKey({ owner_ids: [owner.unique_id] });
    const reports = new EventsClient({ baseUrl: events.baseUrl, apiKey: key.api_key });
    expect(await campaignReach(mine, reports, campaign.token)).toEqual({
      reach: 3,
      exact: true,
      error: null,
      goal: 4,
      progress: 3 / 4,
      events: 5,
      owner_id: owner.unique_id,
      start_date: dateIn(ZONE, -1),
      end_date: dateIn(ZONE, 1),
      timezone: ZONE,
      url_count: 2,
      event_name: 'impression',
    });
    expect(await campaignReach(mine, reports, campaign.token, { eventName: 'click' })).toMatchObject({
      reach: 1,
      exact: true,
      events: 1,
    });
  });
});
