import { newOwnerId, startEventsHarness, type EventsHarness, uniqueTag } from '../../test/support/events-harness';

let h: EventsHarness;
let owner: string;

beforeAll(async () => {
  h = await startEventsHarness();
  owner = await h.registerOwner(undefined, ['dest.example', 'xn--bcher-kva.example', '*.shop.example']);
});
afterAll(async () => {
  await h.stop();
});

const tag = () => uniqueTag('c');

describe('pixel redirects (r)', () => {
  test('when r is an absolute https URL, then 302 to it and the event is stored', async () => {
    const content_id = tag();
    const res = await h.pixel({ owner_id: owner, name: 'click', content_id, r: 'https://dest.example/path?q=1#frag' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://dest.example/path?q=1#frag');
    expect(res.headers.get('cache-control')).toBe('no-store, no-cache, must-revalidate, private');
    const [doc] = await h.waitForStored(1, { content_id });
    expect(doc!.name).toBe('click');
    expect(doc!.metadata).toEqual({});
  });

  test('when r has non-ASCII characters, then the Location is its encoded form', async () => {
    const res = await h.pixel({ owner_id: owner, name: 'click', r: 'https://bücher.example/ä ö'.replace(' ', '%20') });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://xn--bcher-kva.example/%C3%A4%20%C3%B6');
  });

  test.each([
    ['javascript:', 'javascript:alert(1)'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['relative', '/local/path'],
    ['protocol-relative', '//evil.example/'],
    ['backslashes', 'https:\\\\evil.example'],
    ['backslash in host', 'https://good.example\\@evil.example'],
    ['CR/LF', 'https://good.example/\r\nSet-Cookie: a=b'],
    ['a tab', 'https://good.example/\tx'],
    ['leading space', ' https://good.example/'],
    ['ftp:', 'ftp://files.example/'],
    ['scheme only', 'https://'],
    ['user credentials', 'https://good.example@evil.example/'],
    ['empty', ''],
    ['too long', `https://a.example/${'x'.repeat(2048)}`],
  ])('when r is %s, then 400, no redirect and nothing stored', async (_what, r) => {
    const content_id = tag();
    const res = await h.pixel({ owner_id: owner, name: 'click', content_id, r });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(((await res.json()) as any).error.details[0].field).toBe('r');
    expect(await h.storedAfterMarker(owner, { content_id })).toEqual([]);
  });

  test('when r is given twice, then 400', async () => {
    const res = await h.pixel(`owner_id=${owner}&name=click&r=https%3A%2F%2Fa.example%2F&r=https%3A%2F%2Fb.example%2F`);
    expect(res.status).toBe(400);
  });

  test('when r points to a subdomain of a wildcard redirect host, then 302', async () => {
    const res = await h.pixel({ owner_id: owner, name: 'click', r: 'https://www.shop.example/cart' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://www.shop.example/cart');
  });

  test.each([
    ['a host the owner does not allow', () => owner, 'https://phish.example/login'],
    ['a look-alike of an allowed host', () => owner, 'https://dest.example.phish.example/'],
    ['an allowed host behind credentials', () => owner, 'https://dest.example@phish.example/'],
    ['an unknown owner', () => newOwnerId(), 'https://dest.example/'],
    ['no owner_id at all', () => undefined, 'https://dest.example/'],
  ])(
    'when r names %s, then 400, no redirect and nothing stored (never an open redirect)',
    async (_what, ownerOf, r) => {
      const content_id = tag();
      const ownerId = ownerOf();
      const res = await h.pixel({ ...(ownerId ? { owner_id: ownerId } : {}), name: 'click', content_id, r });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      const body = (await res.json()) as any;
      expect(body.error).toMatchObject({
        code: 'validation_error',
        details: [{ field: 'r', message: expect.stringMatching(/^r /) }],
      });
      expect(await h.storedAfterMarker(owner, { content_id })).toEqual([]);
    },
  );

  test('when r is refused for an unknown owner and for a known owner with a foreign host, then the two answers are byte-identical (owners cannot be enumerated)', async () => {
    const answer = async (ownerId: string) => {
      const res = await h.pixel({ owner_id: ownerId, name: 'click', r: 'https://dest.example/' });
      const headers = [...res.headers.entries()].filter(([name]) => name !== 'date');
      return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()).toString('latin1') };
    };
    const foreignHostOwner = await h.registerOwner(undefined, ['elsewhere.example']);
    const unknown = await answer(newOwnerId());
    const known = await answer(foreignHostOwner);
    expect(unknown.status).toBe(400);
    expect(known).toEqual(unknown);
  });

  test('when the redirect hosts of an owner change in the registry, then the pixel follows the new list', async () => {
    const other = await h.registerOwner(undefined, ['old.example']);
    expect((await h.pixel({ owner_id: other, name: 'click', r: 'https://old.example/' })).status).toBe(302);
    await h.registerOwner(other, ['new.example']);
    expect((await h.pixel({ owner_id: other, name: 'click', r: 'https://old.example/' })).status).toBe(400);
    expect((await h.pixel({ owner_id: other, name: 'click', r: 'https://new.example/' })).status).toBe(302);
  });

  test('when r is allowed but the event parameters are invalid, then still 302 and nothing stored', async () => {
    const content_id = tag();
    const res = await h.pixel({ owner_id: owner, content_id, r: 'https://dest.example/no-name' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://dest.example/no-name');
    expect(await h.storedAfterMarker(owner, { content_id })).toEqual([]);
  });
});

describe('pixel POST (sendBeacon) and CORS', () => {
  test('when a beacon posts form data, then it is stored like a GET', async () => {
    const content_id = tag();
    const res = await fetch(`${h.baseUrl}/v1/v.gif?owner_id=${owner}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ name: 'beacon', content_id, extra: 'yes' }).toString(),
    });
    expect(res.status).toBe(200);
    const [doc] = await h.waitForStored(1, { content_id });
    expect(doc).toMatchObject({ name: 'beacon', metadata: { extra: 'yes' } });
  });

  test('when a beacon posts a text/plain query string or no body at all, then it is stored', async () => {
    const c1 = tag();
    const c2 = tag();
    const text = await fetch(`${h.baseUrl}/v1/v.gif`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: `owner_id=${owner}&name=beacon&content_id=${c1}`,
    });
    const empty = await fetch(`${h.baseUrl}/v1/v.gif?owner_id=${owner}&name=beacon&content_id=${c2}`, {
      method: 'POST',
    });
    expect([text.status, empty.status]).toEqual([200, 200]);
    await h.waitForStored(1, { content_id: c1 });
    await h.waitForStored(1, { content_id: c2 });
  });

  test('when a beacon repeats a query parameter in its body, then 400', async () => {
    const res = await fetch(`${h.baseUrl}/v1/v.gif?owner_id=${owner}&name=a`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'name=b',
    });
    expect(res.status).toBe(400);
  });

  test('when a beacon body has another content type or is too large, then 415 or 413', async () => {
    const json = await fetch(`${h.baseUrl}/v1/v.gif?owner_id=${owner}&name=a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(json.status).toBe(415);
    const big = await fetch(`${h.baseUrl}/v1/v.gif?owner_id=${owner}&name=a`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: `x=${'y'.repeat(70_000)}`,
    });
    expect(big.status).toBe(413);
  });

  test('when a browser sends a preflight for the pixel, then 204 allowing GET and POST from any origin', async () => {
    const res = await fetch(`${h.baseUrl}/v1/v.gif`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://pub.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
  });

  test('when another method is used, then 405 with Allow', async () => {
    const res = await fetch(`${h.baseUrl}/v1/v.gif`, { method: 'PUT' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST, OPTIONS');
  });

  test('when any other path is requested, then it is not the pixel: no CORS header and the JSON 404', async () => {
    const res = await fetch(`${h.baseUrl}/v1/v.gifx?owner_id=${owner}&name=a`);
    expect(res.status).toBe(404);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(((await res.json()) as any).error.code).toBe('not_found');
  });
});

describe('health', () => {
  test('when everything is up, then /healthz and /readyz answer 200 and /metrics is Prometheus text', async () => {
    expect((await fetch(`${h.baseUrl}/healthz`)).status).toBe(200);
    const ready = await fetch(`${h.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as any).checks).toEqual({
      nats: 'ok',
      mongo: 'ok',
      owner_registry: 'ok',
      campaign_registry: 'ok',
    });
    const metrics = await fetch(`${h.baseUrl}/metrics`);
    expect(await metrics.text()).toContain('events_pixel_requests_total');
  });
});
