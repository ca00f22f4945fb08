import { createTracker, trackEngagement, type TrackerOptions } from './pixel';

// Node has no window, location, sendBeacon or Image: the URL builders still work there (server
// rendering), and track() reports false instead of throwing. The browser side is covered by
// pixel.browser.int.test.ts in real Chromium.
const OWNER = '123456789012345';

function tracker(options: Partial<TrackerOptions> = {}) {
  const reports: string[] = [];
  const t = createTracker({
    endpoint: 'https://ev.example',
    ownerId: OWNER,
    debug: (m) => reports.push(m),
    ...options,
  });
  return { t, reports };
}

const paramsOf = (url: string) => Object.fromEntries(new URL(url).searchParams);

describe('createTracker', () => {
  test('when defaults and call parameters overlap, then the call wins and null does not erase a default', () => {
    const { t } = tracker({ defaults: { campaign: 'spring', content_id: 'home' } });
    const url = t.pixelUrl('impression', { content_id: 'article-42', campaign: null });
    expect(url.startsWith('https://ev.example/v1/v.gif?')).toBe(true);
    expect(paramsOf(url)).toEqual({
      owner_id: OWNER,
      name: 'impression',
      content_id: 'article-42',
      campaign: 'spring',
    });
  });

  describe('on a page (a stand-in location and document)', () => {
    const g = globalThis as unknown as Record<string, unknown>;
    const page = (href: string, referrer: string) => {
      g.location = { href, hostname: new URL(href).hostname || '' };
      g.document = { referrer };
    };
    afterEach(() => {
      delete g.location;
      delete g.document;
    });

    test('when the page was reached from another site, then url is the page and referrer only the other host', () => {
      page(
        'https://news.example/guide/?utm_source=fb&fbclid=IwAR1#pricing',
        'https://www.google.com/search?q=private+words',
      );
      expect(paramsOf(tracker().t.pixelUrl('impression'))).toEqual({
        owner_id: OWNER,
        name: 'impression',
        url: 'https://news.example/guide/?utm_source=fb&fbclid=IwAR1#pricing',
        referrer: 'www.google.com',
      });
    });

    test('when the referrer is this host or there is none, then no referrer is sent', () => {
      page('https://news.example/b', 'https://news.example/a?x=1');
      expect(paramsOf(tracker().t.pixelUrl('impression'))).not.toHaveProperty('referrer');
      page('https://news.example/b', '');
      expect(paramsOf(tracker().t.pixelUrl('impression'))).not.toHaveProperty('referrer');
    });

    test('when the page is not http(s) (about:blank, file:), then no url is sent (the service uses the Referer)', () => {
      page('about:blank', 'https://news.example/article');
      expect(paramsOf(tracker({ endpoint: 'https://ev.example' }).t.pixelUrl('impression'))).toEqual({
        owner_id: OWNER,
        name: 'impression',
        referrer: 'news.example',
      });
    });

    test('when a call names its own url or referrer, then it wins ("" sends none)', () => {
      page('https://news.example/b', 'https://www.google.com/');
      expect(
        paramsOf(tracker().t.pixelUrl('impression', { url: 'https://news.example/canonical', referrer: '' })),
      ).toEqual({
        owner_id: OWNER,
        name: 'impression',
        url: 'https://news.example/canonical',
        referrer: '',
      });
    });
  });

  test('when a click URL is built, then it carries the event and the encoded target as r', () => {
    const { t } = tracker();
    const url = t.clickUrl('click', 'https://shop.example/offer?a=1&b=2', { content_id: 'article-42' });
    expect(paramsOf(url)).toEqual({
      owner_id: OWNER,
      name: 'click',
      content_id: 'article-42',
      r: 'https://shop.example/offer?a=1&b=2',
    });
  });

  test('when the click target is not an absolute http(s) URL, then the target comes back untouched', () => {
    const { t, reports } = tracker();
    expect(t.clickUrl('click', '/relative')).toBe('/relative');
    expect(t.clickUrl('click', 'javascript:alert(1)')).toBe('javascript:alert(1)');
    expect(reports).toHaveLength(2);
  });

  test('when the target is already a click URL of this tracker, then it is not wrapped again', () => {
    const { t } = tracker();
    const once = t.clickUrl('click', 'https://shop.example/');
    expect(t.clickUrl('click', once)).toBe(once);
  });

  test('when the event cannot be built, then the click URL is the target itself (links never break)', () => {
    const { t } = tracker();
    expect(t.clickUrl('', 'https://shop.example/')).toBe('https://shop.example/');
  });

  test.each([
    [{ endpoint: 'not a url' }, 'endpoint: not an http(s) URL'],
    [{ endpoint: 'ftp://ev.example' }, 'endpoint: not an http(s) URL'],
    [{ ownerId: 'abc' }, 'ownerId: not a string of digits'],
    [{ ownerId: 123 as unknown as string }, 'ownerId: not a string of digits'],
  ])('when the options are %p, then the tracker sends nothing and says why', (options, reason) => {
    const { t, reports } = tracker(options);
    expect(t.track('impression')).toBe(false);
    expect(t.pixelUrl('impression')).toBe('');
    expect(t.clickUrl('click', 'https://shop.example/')).toBe('https://shop.example/');
    expect(reports[0]).toBe(`pixel: ${reason}`);
    expect(reports).toContain('pixel: not configured');
  });

  test('when anything at all is passed, then nothing throws', () => {
    const hostile = {
      get content_id(): string {
        throw new Error('getter');
      },
    };
    const calls = [
      () => createTracker(undefined as never).track('x'),
      () => createTracker(null as never).pixelUrl('x'),
      () =>
        tracker({
          debug: () => {
            throw new Error('debug hook');
          },
        }).t.track(undefined as never),
      () => tracker().t.track('e', hostile as never),
      () => tracker().t.pixelUrl('e', 'not an object' as never),
      () => tracker().t.clickUrl(undefined as never, undefined as never),
      () => tracker().t.trackLinks(),
    ];
    for (const call of calls) expect(call).not.toThrow();
  });

  test('when there is no browser (no sendBeacon, no Image), then track returns false', () => {
    expect(tracker().t.track('impression')).toBe(false);
  });
});

describe('visitor ids', () => {
  const g = globalThis as { localStorage?: unknown };
  afterEach(() => {
    delete g.localStorage;
  });

  function memoryStorage() {
    const items = new Map<string, string>();
    return {
      items,
      getItem: (k: string) => items.get(k) ?? null,
      setItem: (k: string, v: string) => void items.set(k, v),
    };
  }

  test('when visitorId is given, then every event carries it as vid, unless a call names its own', () => {
    const { t } = tracker({ visitorId: 'login-77' });
    expect(paramsOf(t.pixelUrl('impression'))).toMatchObject({ vid: 'login-77' });
    expect(paramsOf(t.pixelUrl('impression', { vid: 'other' })).vid).toBe('other');
    expect(paramsOf(tracker().t.pixelUrl('impression'))).not.toHaveProperty('vid');
  });

  test('when visitorId is empty or over 128 characters, then it is not sent and debug says so', () => {
    for (const visitorId of ['', 'v'.repeat(129)]) {
      const { t, reports } = tracker({ visitorId });
      expect(paramsOf(t.pixelUrl('impression'))).not.toHaveProperty('vid');
      expect(reports).toEqual(['pixel: visitorId: not 1..128 characters, not sent']);
    }
  });

  test('when persistVisitor is on, then a random id is kept in localStorage and reused by the next tracker', () => {
    const storage = memoryStorage();
    g.localStorage = storage;
    const first = paramsOf(tracker({ persistVisitor: true }).t.pixelUrl('impression')).vid;
    expect(first).toMatch(/^[0-9a-f]{32}$/);
    expect(storage.items.get('cm_pixel_vid')).toBe(first);
    expect(paramsOf(tracker({ persistVisitor: true }).t.pixelUrl('impression')).vid).toBe(first);
    // without the option nothing is read or written
    storage.items.clear();
    expect(paramsOf(tracker().t.pixelUrl('impression'))).not.toHaveProperty('vid');
    expect(storage.items.size).toBe(0);
  });

  test('when localStorage is missing or throws, then the tracker works without a vid and never throws', () => {
    expect(paramsOf(tracker({ persistVisitor: true }).t.pixelUrl('impression'))).not.toHaveProperty('vid');
    g.localStorage = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
    };
    const { t } = tracker({ persistVisitor: true });
    expect(paramsOf(t.pixelUrl('impression'))).toMatchObject({ name: 'impression' });
    expect(paramsOf(t.pixelUrl('impression'))).not.toHaveProperty('vid');
    g.localStorage = {
      getItem: () => null,
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
    };
    expect(paramsOf(tracker({ persistVisitor: true }).t.pixelUrl('impression'))).not.toHaveProperty('vid');
  });

  test('when trackEngagement runs without a browser page or with a hostile tracker, then it returns a stop function and never throws', () => {
    const stops = [
      trackEngagement(tracker().t, { content_id: 'article-42' }),
      trackEngagement(null as never),
      trackEngagement({ track: 'not a function' } as never),
    ];
    for (const stop of stops) expect(() => stop()).not.toThrow();
  });
});
