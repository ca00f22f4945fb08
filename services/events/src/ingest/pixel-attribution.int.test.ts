import { startEventsHarness, type EventsHarness, uniqueTag, BROWSER_UA } from '../../test/support/events-harness';

// The canonical page URL and the attribution fields through the whole path: pixel -> JetStream ->
// consumer -> the stored event document.
let h: EventsHarness;
let owner: string;

beforeAll(async () => {
  h = await startEventsHarness();
  owner = await h.registerOwner();
});
afterAll(async () => {
  await h.stop();
});

const browser = { 'user-agent': BROWSER_UA };
const CAMPAIGN =
  'https://News.Example/guide/?utm_source=facebook&utm_medium=paid+social&utm_campaign=spring%20sale&fbclid=IwAR3xK9&p=2#pricing';

describe('pixel: canonical page URL and attribution', () => {
  test('when a beacon carries a campaign URL and the referring host, then the event is stored under the canonical URL with the UTM values and the host', async () => {
    const content_id = uniqueTag('c');
    const res = await fetch(`${h.baseUrl}/v1/v.gif`, {
      method: 'POST',
      headers: { ...browser, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        owner_id: owner,
        name: 'impression',
        content_id,
        url: CAMPAIGN,
        referrer: 'M.Facebook.com',
      }),
    });
    expect(res.status).toBe(200);
    const [doc] = await h.waitForStored(1, { content_id });
    expect(doc).toMatchObject({
      url: 'https://news.example/guide?p=2',
      utm_source: 'facebook',
      utm_medium: 'paid social',
      utm_campaign: 'spring sale',
      referrer: 'm.facebook.com',
      metadata: {},
    });
    expect(doc).not.toHaveProperty('utm_content');
    expect(doc).not.toHaveProperty('utm_term');
  });

  test('when an <img> pixel has no url and the browser sent the full page as Referer, then the Referer is stored canonical with its UTM values', async () => {
    const content_id = uniqueTag('c');
    const res = await h.pixel(
      { owner_id: owner, name: 'impression', content_id },
      { headers: { ...browser, referer: CAMPAIGN } },
    );
    expect(res.status).toBe(200);
    const [doc] = await h.waitForStored(1, { content_id });
    expect(doc).toMatchObject({
      url: 'https://news.example/guide?p=2',
      utm_source: 'facebook',
      utm_campaign: 'spring sale',
    });
  });

  test('when utm_* are explicit parameters, then each wins over the page URL and stays metadata too (for reports that asked for it as metadata)', async () => {
    const content_id = uniqueTag('c');
    const res = await h.pixel(
      { owner_id: owner, name: 'impression', content_id, url: CAMPAIGN, utm_source: 'newsletter', utm_term: 'shoes' },
      { headers: browser },
    );
    expect(res.status).toBe(200);
    const [doc] = await h.waitForStored(1, { content_id });
    expect(doc).toMatchObject({
      utm_source: 'newsletter',
      utm_medium: 'paid social',
      utm_campaign: 'spring sale',
      utm_term: 'shoes',
      metadata: { utm_source: 'newsletter', utm_term: 'shoes' },
    });
  });

  test('when a hit carries no attribution, then the stored event has none of the fields', async () => {
    const content_id = uniqueTag('c');
    expect(
      (
        await h.pixel(
          { owner_id: owner, name: 'impression', content_id, url: 'https://news.example/a' },
          { headers: browser },
        )
      ).status,
    ).toBe(200);
    const [doc] = await h.waitForStored(1, { content_id });
    for (const field of ['utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term', 'referrer'])
      expect(doc).not.toHaveProperty(field);
  });

  test.each([
    [
      'url is a javascript: URL',
      { url: 'javascript:alert(document.cookie)' },
      'url',
      'url must be an absolute http or https URL',
    ],
    ['url is relative', { url: '/guide?utm_source=fb' }, 'url', 'url must be an absolute http or https URL'],
    ['referrer is a $ operator', { referrer: '{"$ne":null}' }, 'referrer', undefined],
    [
      'utm_campaign is over 256 characters',
      { utm_campaign: 'x'.repeat(257) },
      'utm_campaign',
      'utm_campaign must be at most 256 characters',
    ],
  ])('when %s, then 400 naming it and nothing is stored', async (_what, params, field, message) => {
    const content_id = uniqueTag('c');
    const res = await h.pixel({ owner_id: owner, name: 'impression', content_id, ...params }, { headers: browser });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { details: { field: string; message: string }[] } };
    expect(body.error.details.map((d) => d.field)).toEqual([field]);
    if (message) expect(body.error.details[0]!.message).toBe(message);
    expect(await h.storedAfterMarker(owner, { content_id })).toEqual([]);
  });
});
