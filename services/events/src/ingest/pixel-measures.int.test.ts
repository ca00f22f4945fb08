import { startEventsHarness, type EventsHarness, uniqueTag, BROWSER_UA } from '../../test/support/events-harness';

let h: EventsHarness;
let owner: string;

beforeAll(async () => {
  h = await startEventsHarness();
  owner = await h.registerOwner(undefined, ['dest.example']);
});
afterAll(async () => {
  await h.stop();
});

const tag = () => uniqueTag('c');
const UA = { headers: { 'user-agent': BROWSER_UA } };

describe('pixel measures, from the hit to the stored event', () => {
  test('when a hit carries engaged_ms, scroll_depth and value, then the stored event has them as numbers, not metadata', async () => {
    const content_id = tag();
    const res = await h.pixel(
      {
        owner_id: owner,
        name: 'engagement',
        content_id,
        engaged_ms: '3600000',
        scroll_depth: '0',
        value: '1000000000000',
      },
      UA,
    );
    expect(res.status).toBe(200);
    const [doc] = await h.waitForStored(1, { content_id });
    expect(doc!.measures).toEqual({ engaged_ms: 3_600_000, scroll_depth: 0, value: 1e12 });
    expect(doc!.metadata).toEqual({});
  });

  test('when a hit carries some of them, then only those are stored; when it carries none, then the event has no measures', async () => {
    const some = tag();
    const none = tag();
    expect((await h.pixel({ owner_id: owner, name: 'conversion', content_id: some, value: '1999' }, UA)).status).toBe(
      200,
    );
    expect((await h.pixel({ owner_id: owner, name: 'impression', content_id: none }, UA)).status).toBe(200);
    expect((await h.waitForStored(1, { content_id: some }))[0]!.measures).toEqual({ value: 1999 });
    const [plain] = await h.waitForStored(1, { content_id: none });
    expect('measures' in plain!).toBe(false);
  });

  test.each([
    ['engaged_ms', '-1'],
    ['engaged_ms', '3600001'],
    ['engaged_ms', '1.5'],
    ['scroll_depth', '1e2'],
    ['scroll_depth', '007'],
    ['scroll_depth', '101'],
    ['value', '99999999999999999999999'],
    ['value', 'premium'],
    ['value', ''],
  ])('when %s is %j, then 400 naming it and nothing is stored', async (name, text) => {
    const content_id = tag();
    const res = await h.pixel({ owner_id: owner, name: 'engagement', content_id, [name]: text }, UA);
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.details.map((d: { field: string }) => d.field)).toEqual([name]);
    expect(await h.storedAfterMarker(owner, { content_id })).toEqual([]);
  });

  test('when a measure is given twice, then 400 naming it and nothing is stored', async () => {
    const content_id = tag();
    const res = await h.pixel(
      `owner_id=${owner}&name=engagement&content_id=${content_id}&scroll_depth=5&scroll_depth=5`,
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.details).toEqual([
      { field: 'scroll_depth', message: 'scroll_depth must be given once' },
    ]);
    expect(await h.storedAfterMarker(owner, { content_id })).toEqual([]);
  });

  test('when a measure is bad but r is allowed, then still 302 and nothing stored', async () => {
    const content_id = tag();
    const res = await h.pixel({
      owner_id: owner,
      name: 'click',
      content_id,
      value: '-5',
      r: 'https://dest.example/buy',
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://dest.example/buy');
    expect(await h.storedAfterMarker(owner, { content_id })).toEqual([]);
  });

  test('when a beacon posts measures in its body, then they are stored as from a GET; a bad one or one repeated across query and body is 400', async () => {
    const content_id = tag();
    const beacon = (query: string, body: string) =>
      fetch(`${h.baseUrl}/v1/v.gif?${query}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': BROWSER_UA },
        body,
      });
    const ok = await beacon(
      `owner_id=${owner}`,
      `name=engagement&content_id=${content_id}&engaged_ms=15000&scroll_depth=75`,
    );
    expect(ok.status).toBe(200);
    expect((await h.waitForStored(1, { content_id }))[0]!.measures).toEqual({ engaged_ms: 15_000, scroll_depth: 75 });
    const bad = tag();
    const refused = await beacon(`owner_id=${owner}`, `name=engagement&content_id=${bad}&engaged_ms=1%2E5`);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as any).error.details[0].field).toBe('engaged_ms');
    const twice = await beacon(`owner_id=${owner}&value=1`, `name=conversion&content_id=${bad}&value=1`);
    expect(twice.status).toBe(400);
    expect(((await twice.json()) as any).error.details[0].field).toBe('value');
    expect(await h.storedAfterMarker(owner, { content_id: bad })).toEqual([]);
  });
});
