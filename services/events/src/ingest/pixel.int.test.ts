import { TRANSPARENT_GIF } from './pixel-answer';
import {
  newOwnerId,
  startEventsHarness,
  type EventsHarness,
  uniqueTag,
  BROWSER_UA,
} from '../../test/support/events-harness';

let h: EventsHarness;
let owner: string;

beforeAll(async () => {
  h = await startEventsHarness();
  owner = await h.registerOwner();
});
afterAll(async () => {
  await h.stop();
});

const CHROME_DESKTOP = BROWSER_UA;
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const IPAD =
  'Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.0 Mobile/15E148 Safari/604.1';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

const tag = () => uniqueTag('c');

describe('pixel GET /v1/v.gif', () => {
  test('when owner_id and name are given, then 200 with the 43-byte GIF, no-store caching and CORS, and the event is stored', async () => {
    const content_id = tag();
    const sent = Date.now();
    const res = await h.pixel(
      { owner_id: owner, name: 'impression', content_id, url: 'https://pub.example/a' },
      { headers: { 'user-agent': CHROME_DESKTOP } },
    );
    const answered = Date.now();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/gif');
    expect(res.headers.get('cache-control')).toBe('no-store, no-cache, must-revalidate, private');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBe(43);
    expect(body.equals(TRANSPARENT_GIF)).toBe(true);
    const [doc] = await h.waitForStored(1, { content_id });
    expect(doc).toMatchObject({
      owner_id: owner,
      name: 'impression',
      url: 'https://pub.example/a',
      content_id,
      device_type: 'desktop',
      bot: false,
      metadata: {},
    });
    expect(doc!._id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // the time the hit arrived (the service runs in this process, on this clock), whenever it was stored
    expect(doc!.created).toBeInstanceOf(Date);
    expect(doc!.created.getTime()).toBeGreaterThanOrEqual(sent);
    expect(doc!.created.getTime()).toBeLessThanOrEqual(answered);
  });

  test('when url is not given, then the Referer is the url', async () => {
    const content_id = tag();
    expect(
      (
        await h.pixel(
          { owner_id: owner, name: 'impression', content_id },
          { headers: { referer: 'https://pub.example/from-referer' } },
        )
      ).status,
    ).toBe(200);
    const [doc] = await h.waitForStored(1, { content_id });
    expect(doc!.url).toBe('https://pub.example/from-referer');
  });

  test('when neither url nor Referer is given, then url is stored empty', async () => {
    const content_id = tag();
    expect((await h.pixel({ owner_id: owner, name: 'impression', content_id })).status).toBe(200);
    expect((await h.waitForStored(1, { content_id }))[0]!.url).toBe('');
  });

  test.each([
    ['owner_id is missing', { name: 'impression' }, 'owner_id'],
    ['name is missing', { owner_id: 'OWNER' }, 'name'],
    ['name is empty', { owner_id: 'OWNER', name: '' }, 'name'],
    ['owner_id is not digits', { owner_id: '12ab', name: 'impression' }, 'owner_id'],
    ['name is too long', { owner_id: 'OWNER', name: 'x'.repeat(129) }, 'name'],
    ['content_id is too long', { owner_id: 'OWNER', name: 'impression', content_id: 'x'.repeat(257) }, 'content_id'],
    ['url is too long', { owner_id: 'OWNER', name: 'impression', url: `https://a.example/${'x'.repeat(2048)}` }, 'url'],
    ['a metadata value is too long', { owner_id: 'OWNER', name: 'impression', note: 'x'.repeat(513) }, 'metadata.note'],
    [
      'a metadata name is too long',
      { owner_id: 'OWNER', name: 'impression', ['k'.repeat(65)]: 'v' },
      `metadata.${'k'.repeat(65)}`,
    ],
    [
      'there are too many metadata parameters',
      {
        owner_id: 'OWNER',
        name: 'impression',
        ...Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`m${i}`, 'v'])),
      },
      'metadata',
    ],
  ])('when %s, then 400 naming the field and nothing is stored', async (_what, params, field) => {
    const content_id = tag();
    const p: Record<string, string> = { content_id, ...params };
    if (p.owner_id === 'OWNER') p.owner_id = owner;
    const res = await h.pixel(p);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const body = (await res.json()) as any;
    expect(body.error.code).toBe('validation_error');
    expect(body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await h.storedAfterMarker(owner, { content_id })).toEqual([]);
  });

  test('when a parameter is given twice, then 400 naming it', async () => {
    const res = await h.pixel(`owner_id=${owner}&name=a&name=b`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.details).toEqual([{ field: 'name', message: 'name must be given once' }]);
  });

  test('when exactly 20 metadata parameters of maximum size are sent, then all are stored', async () => {
    const content_id = tag();
    const meta = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [`${String(i).padStart(2, '0')}${'k'.repeat(62)}`, 'v'.repeat(512)]),
    );
    expect((await h.pixel({ owner_id: owner, name: 'impression', content_id, ...meta })).status).toBe(200);
    const [doc] = await h.waitForStored(1, { content_id });
    expect(doc!.metadata).toEqual(meta);
  });

  test('when the owner_id is not in the registry, then the same 200 GIF and nothing is stored', async () => {
    const content_id = tag();
    const res = await h.pixel({ owner_id: newOwnerId(), name: 'impression', content_id });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(TRANSPARENT_GIF)).toBe(true);
    const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/events_pixel_requests_total\{result="unknown_owner"[^}]*\} [1-9]/);
    expect(await h.storedAfterMarker(owner, { content_id })).toEqual([]);
  });

  test('when an owner is removed from the registry, then its later hits are not stored', async () => {
    const gone = await h.registerOwner();
    await h.removeOwner(gone);
    const content_id = tag();
    expect((await h.pixel({ owner_id: gone, name: 'impression', content_id })).status).toBe(200);
    expect(await h.storedAfterMarker(owner, { content_id })).toEqual([]);
  });

  test.each([
    [CHROME_DESKTOP, 'desktop', false],
    [IPHONE, 'mobile', false],
    [IPAD, 'tablet', false],
    [GOOGLEBOT, 'desktop', true],
    ['', 'desktop', false],
  ])('when the User-Agent is %j, then device_type is %s and bot is %s', async (ua, device, bot) => {
    const content_id = tag();
    const headers: Record<string, string> = ua ? { 'user-agent': ua } : { 'user-agent': '' };
    expect((await h.pixel({ owner_id: owner, name: 'impression', content_id }, { headers })).status).toBe(200);
    const [doc] = await h.waitForStored(1, { content_id });
    expect(doc!.device_type).toBe(device);
    expect(doc!.bot).toBe(bot);
  });

  test('when metadata names start with $, contain dots, NUL or % or are __proto__, then they are stored escaped and nothing else changes', async () => {
    const content_id = tag();
    const res = await h.pixel(
      `owner_id=${owner}&name=impression&content_id=${content_id}&%24where=1&a.b.c=2&x%00y=3&50%25=4&__proto__=5&plain=6&%24gt.x=7`,
    );
    expect(res.status).toBe(200);
    const [doc] = await h.waitForStored(1, { content_id });
    const meta = doc!.metadata;
    expect(meta).toEqual({
      '%24where': '1',
      'a%2Eb%2Ec': '2',
      'x%00y': '3',
      '50%25': '4',
      '%5F_proto__': '5',
      plain: '6',
      '%24gt%2Ex': '7',
    });
    expect(Object.getPrototypeOf(meta)).toBe(Object.prototype);
  });
});
