import type { Browser } from 'playwright-core';
import { EventsClient, campaignReach } from '../../client/src';
import type { EventDocument } from '../../../services/events/src/storage/event-document';
import {
  TEST_ADMIN_TOKEN,
  startEventsHarness,
  type EventsHarness,
} from '../../../services/events/test/support/events-harness';
import { startCampaignSite, type CampaignSite, type Measurement } from './test-support/campaign-site';
import { launchBrowser } from './test-support/headless-chromium';
import { buildMinifiedBundle } from './test-support/pixel-bundle';

// A campaign's two pages, `http://news.example/guide` and `http://news.example/offer?id=7`, visited
// by 13 readers the ways real traffic arrives: ad clicks with UTM tags and a click id unique per
// reader, a fragment, a trailing slash, parameters in another order, a link on another site, and
// <img> pixels on a tagged address. The real minified snippet in headless Chromium, the page and
// the service on real-looking host names (mapped to local servers), the real ingest. Every reader
// must count on one of the two pages, with the campaign's UTM values on its event; the campaign,
// published over the campaign registry as management publishes it, finds all of them.
const GUIDE = 'http://news.example/guide';
const OFFER = 'http://news.example/offer?id=7';

interface Visit {
  content: string;
  how: Measurement;
  /** The address the reader lands on. */
  address: string;
  /** Reached through a link on this page of another site. */
  from?: string;
  utm?: Record<string, string>;
  referrer?: string;
}

const spring = { utm_campaign: 'spring' };
const fb = { utm_source: 'facebook', utm_medium: 'social', ...spring };
const VISITS: (Visit & { page: string })[] = [
  {
    page: GUIDE,
    content: 'r1',
    how: 'snippet',
    address: `${GUIDE}?utm_source=facebook&utm_medium=social&utm_campaign=spring&fbclid=IwAR1aXk`,
    utm: fb,
  },
  {
    page: GUIDE,
    content: 'r2',
    how: 'snippet',
    address: `${GUIDE}?utm_source=facebook&utm_medium=social&utm_campaign=spring&fbclid=IwAR2bQz`,
    utm: fb,
  },
  {
    page: GUIDE,
    content: 'r3',
    how: 'snippet',
    address: `${GUIDE}/?utm_source=google&utm_medium=cpc&utm_campaign=spring&gclid=Cj0KCQiA3xyz`,
    utm: { utm_source: 'google', utm_medium: 'cpc', ...spring },
  },
  { page: GUIDE, content: 'r4', how: 'snippet', address: `${GUIDE}#section-2` },
  { page: GUIDE, content: 'r5', how: 'snippet', address: `${GUIDE}/` },
  {
    page: GUIDE,
    content: 'r6',
    how: 'snippet',
    address: `${GUIDE}?fbclid=IwAR6cc`,
    from: 'http://social.example/post',
    referrer: 'social.example',
  },
  {
    page: GUIDE,
    content: 'r7',
    how: 'img-policy',
    address: `${GUIDE}/?utm_source=partner&utm_campaign=spring&twclid=2abc7`,
    utm: { utm_source: 'partner', ...spring },
  },
  {
    page: OFFER,
    content: 'r8',
    how: 'snippet',
    address: `${OFFER}&utm_source=newsletter&utm_medium=email&utm_campaign=spring&mc_eid=8f3a`,
    utm: { utm_source: 'newsletter', utm_medium: 'email', ...spring },
  },
  { page: OFFER, content: 'r9', how: 'snippet', address: 'http://news.example/offer/?id=7&fbclid=IwAR9dd' },
  { page: OFFER, content: 'r10', how: 'snippet', address: 'http://news.example/offer?gclid=Cj0KCQiA10&id=7#details' },
  { page: OFFER, content: 'r11', how: 'snippet', address: OFFER },
  {
    page: OFFER,
    content: 'r12',
    how: 'img-url',
    address: `${OFFER}&utm_source=twitter&utm_content=banner&twclid=2abc12`,
    utm: { utm_source: 'twitter', utm_content: 'banner' },
  },
  {
    page: OFFER,
    content: 'r13',
    how: 'img-policy',
    address: `http://news.example/offer/?utm_medium=email&id=7&_ga=2.1.13&mc_cid=ab`,
    utm: { utm_medium: 'email' },
  },
];

let events: EventsHarness;
let site: CampaignSite;
let browser: Browser;
let campaignOwner: string;
let otherOwner: string;
const problems: string[] = [];

beforeAll(async () => {
  const bundle = buildMinifiedBundle();
  events = await startEventsHarness();
  site = await startCampaignSite(bundle, 'http://events.example');
  const eventsPort = new URL(events.baseUrl).port;
  browser = await launchBrowser([
    `--host-resolver-rules=MAP news.example 127.0.0.1:${site.port},MAP social.example 127.0.0.1:${site.port},MAP events.example 127.0.0.1:${eventsPort}`,
    // these pages are plain http on purpose: no attempt at https first
    '--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable',
  ]);
  [campaignOwner, otherOwner] = [await events.registerOwner(), await events.registerOwner()];
  // the campaign's two content URLs in canonical form, its flight today in the owner's zone
  const today = new Date().toISOString().slice(0, 10);
  await events.publishCampaign({
    token: CAMPAIGN,
    owner_id: campaignOwner,
    revision: 1,
    name: 'Spring',
    urls: [GUIDE, OFFER].sort(),
    start_date: dayAfter(today, -1),
    end_date: dayAfter(today, 1),
    timezone: 'Pacific/Auckland',
    reach: 20,
    objective: 'Reach',
    target_countries: [],
    target_source: 'none',
  });
}, 60000);

const CAMPAIGN = 'spring-news-2026';

/** The calendar day `days` after `day` (YYYY-MM-DD). */
function dayAfter(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

afterAll(async () => {
  await browser?.close();
  await site?.stop();
  await events?.stop();
});

/** One reader: a fresh browser context with a User-Agent of its own (a visitor of its own to the service). */
async function visit(n: number, owner: string, v: Visit): Promise<EventDocument> {
  const context = await browser.newContext({
    userAgent: `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.${6700 + n}.91 Safari/537.36`,
  });
  try {
    await context.addCookies([{ name: 'visit', value: `${v.how}.${owner}.${v.content}`, url: 'http://news.example/' }]);
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${v.content} console: ${m.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`${v.content} page error: ${err.message}`));
    if (v.from) {
      await page.goto(`${v.from}?to=${encodeURIComponent(v.address)}`);
      await Promise.all([page.waitForURL(v.address), page.click('#link')]);
    } else await page.goto(v.address);
    if (v.how === 'snippet') expect(await page.evaluate(() => (window as any).sent)).toBe(true);
    const [doc] = await events.waitForStored(1, { owner_id: owner, content_id: v.content }, 10000);
    return doc!;
  } finally {
    await context.close();
  }
}

async function keyOf(owner: string): Promise<string> {
  const key = await fetch(`${events.baseUrl}/admin/v1/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ owner_ids: [owner] }),
  });
  return ((await key.json()) as { api_key: string }).api_key;
}

async function report(owner: string, body: Record<string, unknown>): Promise<unknown> {
  const api_key = await keyOf(owner);
  const res = await fetch(`${events.baseUrl}/api/v1/events/?api_key=${encodeURIComponent(api_key)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ owner_id: owner, ...body }),
  });
  expect(res.status).toBe(200);
  return res.json();
}

describe('a campaign measured in headless Chromium on real-looking hosts', () => {
  const stored = new Map<string, EventDocument>();

  test('when 13 readers arrive through tagged links, fragments, slash variants, another site and <img> pixels, then each event is stored under its canonical page with its attribution', async () => {
    for (const [i, v] of VISITS.entries()) {
      const doc = await visit(i, campaignOwner, v);
      stored.set(v.content, doc);
      const attribution = Object.fromEntries(
        ['utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term', 'referrer']
          .filter((f) => (doc as unknown as Record<string, unknown>)[f] !== undefined)
          .map((f) => [f, (doc as unknown as Record<string, unknown>)[f]]),
      );
      expect({ content: v.content, url: doc.url, bot: doc.bot, attribution }).toEqual({
        content: v.content,
        url: v.page,
        bot: false,
        attribution: { ...v.utm, ...(v.referrer ? { referrer: v.referrer } : {}) },
      });
      // UTM values come from the page address, never as metadata the snippet invented
      expect(doc.metadata).toEqual({});
    }
    expect(new Set([...stored.values()].map((d) => d.visitor)).size).toBe(13);
  }, 120000);

  test('when the campaign is reported by url, then there is one row per page', async () => {
    expect(await report(campaignOwner, { group_by: 'url' })).toEqual([
      { name: 'impression', url: GUIDE, value: 7 },
      { name: 'impression', url: OFFER, value: 6 },
    ]);
  });

  test('when the uniques over the two canonical URLs are reported, then all 13 readers count', async () => {
    expect(await report(campaignOwner, { url: [GUIDE, OFFER], metrics: 'count,uniques' })).toEqual([
      { name: 'impression', value: 13, uniques: 13, uniques_exact: true },
    ]);
  });

  test('when the campaign is reported with the campaign filter, then it has one row per page, and campaignReach counts 13 of 13 readers', async () => {
    expect(await report(campaignOwner, { campaign: CAMPAIGN, group_by: 'url' })).toEqual([
      { name: 'impression', url: GUIDE, value: 7 },
      { name: 'impression', url: OFFER, value: 6 },
    ]);
    const reports = new EventsClient({ baseUrl: events.baseUrl, apiKey: await keyOf(campaignOwner) });
    expect(await campaignReach(undefined, reports, CAMPAIGN, { ownerId: campaignOwner })).toEqual({
      reach: 13,
      exact: true,
      error: null,
      goal: 20,
      progress: 13 / 20,
      events: 13,
      owner_id: campaignOwner,
      start_date: expect.any(String),
      end_date: expect.any(String),
      timezone: 'Pacific/Auckland',
      url_count: 2,
      event_name: 'impression',
    });
  });

  test('when an <img> pixel has neither url nor referrerpolicy on a tagged page, then only the origin is recorded (the documented outcome)', async () => {
    const doc = await visit(99, otherOwner, {
      content: 'img-plain',
      how: 'img-plain',
      address: `${GUIDE}?utm_source=facebook&utm_campaign=spring&fbclid=IwAR99`,
    });
    expect(doc.url).toBe('http://news.example/');
    expect(doc).not.toHaveProperty('utm_source');
    expect(doc).not.toHaveProperty('utm_campaign');
  });

  test('when everything has run, then the pages logged no console errors or warnings', () => {
    expect(problems).toEqual([]);
  });
});
