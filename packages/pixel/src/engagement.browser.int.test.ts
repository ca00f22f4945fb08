import type { Page } from 'playwright-core';
import { startEventsHarness, type EventsHarness } from '../../../services/events/test/support/events-harness';
import { launchChromium, type HeadlessChromium } from './test-support/headless-chromium';
import { buildMinifiedBundle, readEngagementBundle } from './test-support/pixel-bundle';
import { startPublisherSite, type PublisherSite } from './test-support/publisher-site';

// The opt-in attention build in real headless Chromium on a 4000 px article, against the real
// ingest. Time is Playwright's paused clock (performance.now included), moved on by the test;
// visibility is the page's own document.visibilityState, replaced by a switch the test flips,
// because a headless tab cannot be hidden. The events are read where the snippet hands them to
// the browser (sendBeacon is synchronous), so "nothing was sent" is a fact, not a timeout.
let events: EventsHarness;
let site: PublisherSite;
let browser: HeadlessChromium;
let page: Page;
let owner: string;
const problems: string[] = [];
const answers: Promise<number | undefined>[] = [];

type Sent = Record<string, string>;
const sent = (): Promise<Sent[]> => page.evaluate(() => (window as any).sent);
const hide = () =>
  page.evaluate(() => {
    (window as any).hidden = true;
    document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
  });
const show = () =>
  page.evaluate(() => {
    (window as any).hidden = false;
    document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
  });
const transition = (type: 'pagehide' | 'pageshow', persisted: boolean) =>
  page.evaluate(([t, p]) => dispatchEvent(new PageTransitionEvent(t, { persisted: p })), [type, persisted] as const);
const scrollTo = (y: number) =>
  page.evaluate(
    (top) =>
      new Promise<void>((resolve) => {
        addEventListener('scroll', () => resolve(), { once: true });
        scrollTo(0, top);
      }),
    y,
  );
const expectNear = (actual: string, expected: number) => {
  expect(Number(actual)).toBeGreaterThanOrEqual(expected - 20);
  expect(Number(actual)).toBeLessThanOrEqual(expected + 20);
};

beforeAll(async () => {
  browser = await launchChromium();
  const bundle = buildMinifiedBundle();
  [events, site] = await Promise.all([startEventsHarness(), startPublisherSite(bundle, readEngagementBundle())]);
  owner = await events.registerOwner();
  page = await browser.context.newPage();
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`console ${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('request', (req) => {
    if (new URL(req.url()).pathname === '/v1/v.gif') answers.push(req.response().then((res) => res?.status()));
  });
  await page.addInitScript(() => {
    const w = window as any;
    w.hidden = false;
    w.sent = [];
    Object.defineProperty(document, 'visibilityState', { get: () => (w.hidden ? 'hidden' : 'visible') });
    const send = navigator.sendBeacon.bind(navigator);
    navigator.sendBeacon = (url, body) => {
      w.sent.push(Object.fromEntries(new URLSearchParams(String(body))));
      return send(url, body);
    };
  });
  await page.clock.install({ time: new Date('2026-11-20T10:00:00Z') });
  await page.goto(`${site.origin}/long`);
  await page.clock.pauseAt(new Date('2026-11-20T10:01:00Z'));
  await page.evaluate(
    ({ endpoint, ownerId }) => {
      const w = window as any;
      const lib = w.CampaignEventsPixel;
      w.tracker = lib.createTracker({ endpoint, ownerId, visitorId: 'reader-1' });
      w.stop = lib.trackEngagement(w.tracker, { content_id: 'long-read' });
    },
    { endpoint: events.baseUrl, ownerId: owner },
  );
}, 60000);

afterAll(async () => {
  await browser?.close();
  await site?.stop();
  await events?.stop();
});

describe('attention measurement in headless Chromium', () => {
  test('when both builds are loaded, then trackEngagement joins the one global CampaignEventsPixel', async () => {
    const globals = await page.evaluate(() => {
      const before = new Set((window as any).__globalsBefore as string[]);
      return {
        added: Object.getOwnPropertyNames(window).filter((k) => !before.has(k) && !['__globalsBefore'].includes(k)),
        api: Object.keys((window as any).CampaignEventsPixel).sort(),
      };
    });
    expect(globals.added.filter((k) => !['hidden', 'sent', 'tracker', 'stop'].includes(k))).toEqual([
      'CampaignEventsPixel',
    ]);
    expect(globals.api).toEqual(['createTracker', 'trackEngagement']);
  });

  test('when the reader is active for 3 s, then idle for 20 s, and the page is hidden, then one engagement event carries 8 s and the depth seen', async () => {
    await page.clock.runFor(3000);
    await page.mouse.move(200, 200);
    await page.clock.runFor(20000);
    expect(await sent()).toEqual([]);
    await hide();
    const [event, ...more] = await sent();
    expect(more).toEqual([]);
    expect(event).toMatchObject({
      owner_id: owner,
      name: 'engagement',
      url: `${site.origin}/long`,
      content_id: 'long-read',
      vid: 'reader-1',
      scroll_depth: '18', // a 720 px viewport at the top of 4000 px
    });
    expectNear(event.engaged_ms, 8000);
  });

  test('when the page is hidden again or left with nothing new, then nothing more is sent', async () => {
    await hide();
    await transition('pagehide', false);
    expect(await sent()).toHaveLength(1);
  });

  test('when the reader is active while the page is hidden, then nothing accrues; after it is shown, time and the scroll to the end do', async () => {
    await page.mouse.move(300, 300);
    await page.clock.runFor(10000);
    await show();
    await page.mouse.move(200, 200);
    await page.clock.runFor(2000);
    await scrollTo(4000);
    await page.clock.runFor(1000);
    await hide();
    const all = await sent();
    expect(all).toHaveLength(2);
    expect(all[1]).toMatchObject({ name: 'engagement', content_id: 'long-read', scroll_depth: '100' });
    expectNear(all[1].engaged_ms, 3000);
  });

  test('when the page comes back from the back/forward cache, then it is a new page view: the time and the depth start again', async () => {
    await scrollTo(0);
    await transition('pagehide', true); // into the cache: the old view has nothing new to send
    expect(await sent()).toHaveLength(2);
    await page.evaluate(() => ((window as any).hidden = false));
    await transition('pageshow', true);
    await page.clock.runFor(1500);
    await hide();
    const all = await sent();
    expect(all).toHaveLength(3);
    // the restored view starts at the top: 18, not the 100 the previous view reached
    expect(all[2]).toMatchObject({ name: 'engagement', scroll_depth: '18' });
    expectNear(all[2].engaged_ms, 1500);
  });

  test('when the stop function runs, then it sends what is new and later hides send nothing', async () => {
    await show();
    await page.mouse.move(100, 100);
    await page.clock.runFor(1000);
    await page.evaluate(() => (window as any).stop());
    const all = await sent();
    expect(all).toHaveLength(4);
    expectNear(all[3].engaged_ms, 1000);
    await page.mouse.move(200, 200);
    await page.clock.runFor(1000);
    await hide();
    expect(await sent()).toHaveLength(4);
  });

  test('when the engagement events reach the ingest, then every one is answered 200', async () => {
    expect(await Promise.all(answers)).toEqual([200, 200, 200, 200]);
    expect(await events.waitForStored(4, { owner_id: owner, name: 'engagement' }, 10000)).toHaveLength(4);
  });

  test('when everything has run, then the page logged no console errors or warnings', () => {
    expect(problems).toEqual([]);
  });
});
