import type { Page } from 'playwright-core';
import {
  TEST_ADMIN_TOKEN,
  startEventsHarness,
  type EventsHarness,
} from '../../../services/events/test/support/events-harness';
import { launchChromium, type HeadlessChromium } from './test-support/headless-chromium';
import { buildMinifiedBundle } from './test-support/pixel-bundle';
import { startPublisherSite, type PublisherSite } from './test-support/publisher-site';

// The minified snippet in real headless Chromium (Debian's package) on a publisher page served
// from 127.0.0.1, against the real ingest: beacon, image fallback and a tracked link through the
// 302 all arrive in the report.
let events: EventsHarness;
let site: PublisherSite;
let browser: HeadlessChromium;
let page: Page;
let owner: string;
const problems: string[] = [];
const pixelRequests: { method: string; url: string }[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  const bundle = buildMinifiedBundle();
  [events, site] = await Promise.all([startEventsHarness(), startPublisherSite(bundle)]);
  // the publisher site (127.0.0.1) is where its tracked links lead: the owner allows that host
  owner = await events.registerOwner(undefined, ['127.0.0.1']);
  page = await browser.context.newPage();
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`console ${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('request', (req) => {
    // to any origin: a tracker given a wrong endpoint must not send either
    if (new URL(req.url()).pathname === '/v1/v.gif') pixelRequests.push({ method: req.method(), url: req.url() });
  });
  await page.goto(`${site.origin}/article`);
  await page.evaluate(
    ({ endpoint, ownerId }) => {
      const w = window as any;
      w.reports = [];
      w.beacons = 0;
      const send = navigator.sendBeacon.bind(navigator);
      navigator.sendBeacon = (url, body) => (w.beacons++, send(url, body));
      w.tracker = w.CampaignEventsPixel.createTracker({
        endpoint,
        ownerId,
        defaults: { campaign: 'spring' },
        debug: (m: string) => w.reports.push(m),
      });
    },
    { endpoint: events.baseUrl, ownerId: owner },
  );
}, 60000);

afterAll(async () => {
  await browser?.close();
  await site?.stop();
  await events?.stop();
});

async function report(): Promise<unknown> {
  const key = await fetch(`${events.baseUrl}/admin/v1/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ owner_ids: [owner] }),
  });
  expect(key.status).toBe(201);
  const { api_key } = (await key.json()) as { api_key: string };
  const res = await fetch(`${events.baseUrl}/api/v1/events/?api_key=${encodeURIComponent(api_key)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      owner_id: owner,
      group_by: ['content_id', 'url'],
      metadata: 'campaign',
      device_type: 'desktop',
    }),
  });
  expect(res.status).toBe(200);
  return res.json();
}

describe('pixel snippet in headless Chromium', () => {
  test('when the script tag loads, then CampaignEventsPixel is the only global it adds', async () => {
    const added = await page.evaluate(() => {
      const before = new Set((window as any).__globalsBefore as string[]);
      return Object.getOwnPropertyNames(window).filter(
        (k) => !before.has(k) && !['__globalsBefore', 'reports', 'beacons', 'tracker'].includes(k),
      );
    });
    expect(added).toEqual(['CampaignEventsPixel']);
  });

  test('when track() runs where sendBeacon exists, then the event goes out as a beacon POST', async () => {
    const beacon = page.waitForRequest((req) => req.url() === `${events.baseUrl}/v1/v.gif` && req.method() === 'POST');
    const sent = await page.evaluate(() => (window as any).tracker.track('impression', { content_id: 'article-1' }));
    expect(sent).toBe(true);
    expect(await page.evaluate(() => (window as any).beacons)).toBe(1);
    const req = await beacon;
    expect(req.headers()['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(Object.fromEntries(new URLSearchParams(req.postData() ?? ''))).toEqual({
      owner_id: owner,
      name: 'impression',
      url: `${site.origin}/article`,
      content_id: 'article-1',
      campaign: 'spring',
    });
  });

  test('when sendBeacon is missing, then track() falls back to an image GET', async () => {
    const response = page.waitForResponse((res) => res.url().startsWith(`${events.baseUrl}/v1/v.gif?`));
    const sent = await page.evaluate(() => {
      Object.defineProperty(navigator, 'sendBeacon', { value: undefined, configurable: true });
      return (window as any).tracker.track('impression', { content_id: 'article-2' });
    });
    expect(sent).toBe(true);
    const res = await response;
    expect(res.request().method()).toBe('GET');
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toBe('image/gif');
  });

  test('when a tracked link is clicked, then the browser goes through the 302 to the target', async () => {
    await page.evaluate(() => (window as any).tracker.trackLinks());
    const landing = page.waitForResponse((res) => res.url() === `${site.origin}/landing?from=offer`);
    await page.click('#offer');
    const res = await landing;
    expect(res.status()).toBe(200);
    expect(res.request().redirectedFrom()?.url()).toMatch(
      new RegExp(`^${events.baseUrl}/v1/v\\.gif\\?owner_id=${owner}&name=click&`),
    );
    await page.waitForURL(`${site.origin}/landing?from=offer`);
    await page.goBack();
    expect(await page.getAttribute('#offer', 'href')).toBe('/landing?from=offer');
  });

  test('when the events are reported, then the beacon, the image and the click all arrived with the page URL', async () => {
    await events.waitForStored(3, { owner_id: owner }, 10000);
    const url = `${site.origin}/article`;
    expect(await report()).toEqual([
      { name: 'click', content_id: 'article-3', url, value: 1, metadata: { campaign: 'spring' } },
      { name: 'impression', content_id: 'article-1', url, value: 1, metadata: { campaign: 'spring' } },
      { name: 'impression', content_id: 'article-2', url, value: 1, metadata: { campaign: 'spring' } },
    ]);
  });

  test('when the snippet is given bad input, then nothing throws, nothing is sent and the debug hook hears why', async () => {
    await page.goto(`${site.origin}/article`);
    const before = pixelRequests.length;
    const outcome = await page.evaluate(() => {
      const w = window as any;
      const reports: string[] = [];
      const lib = w.CampaignEventsPixel;
      const t = lib.createTracker({ endpoint: location.origin, ownerId: '12', debug: (m: string) => reports.push(m) });
      const thrown: string[] = [];
      const calls = [
        () => lib.createTracker(),
        () => lib.createTracker({ endpoint: 'javascript:alert(1)', ownerId: '12' }).track('x'),
        () => lib.createTracker({ endpoint: location.origin, ownerId: { $gt: '' } }).track('x'),
        () => t.track(),
        () => t.track(null, 5),
        () => t.track('x'.repeat(500)),
        () => t.track(Symbol('s')),
        () =>
          t.track('x', {
            get content_id() {
              throw new Error('hostile getter');
            },
          }),
        () => t.track('x', { content_id: 'c'.repeat(300) }),
        () => t.pixelUrl({}),
        () => t.clickUrl('click', 'javascript:alert(1)'),
        () => t.trackLinks({ root: 'not an element' }),
        () => t.trackLinks({ selector: '!!! not a selector' }),
        () => createTrackerWithThrowingDebug(lib).track(),
      ];
      function createTrackerWithThrowingDebug(l: any) {
        return l.createTracker({
          endpoint: location.origin,
          ownerId: '12',
          debug: () => {
            throw new Error('debug hook');
          },
        });
      }
      for (const call of calls) {
        try {
          call();
        } catch (err) {
          thrown.push(String(err));
        }
      }
      document.getElementById('text')!.click(); // reaches the listener with the invalid selector
      return { thrown, reports: reports.length };
    });
    expect(outcome.thrown).toEqual([]);
    expect(outcome.reports).toBeGreaterThanOrEqual(10);
    // a valid event sent after the bad ones: once its request is seen, any request of theirs would have been seen too
    const marker = page.waitForRequest((req) => req.url().startsWith(`${events.baseUrl}/v1/v.gif`));
    await page.evaluate(
      (endpoint) => (window as any).CampaignEventsPixel.createTracker({ endpoint, ownerId: '12' }).track('marker'),
      events.baseUrl,
    );
    await marker;
    expect(pixelRequests.length).toBe(before + 1);
  });

  test('when a page opts in to persistVisitor, then every page load of the site sends the same kept vid, and a visitorId given wins', async () => {
    const loadAndTrack = async (options: Record<string, unknown>) => {
      await page.goto(`${site.origin}/article`);
      const beacon = page.waitForRequest(
        (req) => req.url() === `${events.baseUrl}/v1/v.gif` && req.method() === 'POST',
      );
      await page.evaluate(
        ({ endpoint, ownerId, options }) =>
          (window as any).CampaignEventsPixel.createTracker({ endpoint, ownerId, ...options }).track('visit'),
        { endpoint: events.baseUrl, ownerId: owner, options },
      );
      return new URLSearchParams((await beacon).postData() ?? '').get('vid');
    };
    const first = await loadAndTrack({ persistVisitor: true });
    expect(first).toMatch(/^[A-Za-z0-9_-]{16,128}$/);
    expect(await loadAndTrack({ persistVisitor: true })).toBe(first);
    expect(await page.evaluate(() => Object.keys(localStorage))).toEqual(['cm_pixel_vid']);
    expect(await loadAndTrack({ persistVisitor: true, visitorId: 'login-7' })).toBe('login-7');
    expect(await loadAndTrack({})).toBeNull(); // not opted in: no id sent, cookieless on the server
  });

  test('when everything has run, then the pages logged no console errors or warnings', () => {
    expect(problems).toEqual([]);
  });
});
