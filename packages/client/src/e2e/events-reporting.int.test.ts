import {
  TEST_ADMIN_TOKEN,
  newOwnerId,
  startEventsHarness,
  type EventsHarness,
} from '../../../../services/events/test/support/events-harness';
import { AdminClient } from '../admin-client';
import { ForbiddenError, NotFoundError, RateLimitedError, UnauthorizedError, ValidationError } from '../errors';
import { EventsClient } from '../events-client';

// The client against the real events service: pixel hits on URLs built by pixelUrl/clickUrl, an
// operator-issued key, reports. A small per-key rate limit so the 429 path is reachable.
let h: EventsHarness;
beforeAll(async () => {
  h = await startEventsHarness({ REPORT_RATE_LIMIT_PER_MINUTE: '3' });
});
afterAll(async () => {
  await h.stop();
});

// a real browser's User-Agent: the service does not count bots, and Node's fetch looks like one
const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
};
const operator = () => new AdminClient({ eventsUrl: h.baseUrl, adminToken: TEST_ADMIN_TOKEN });

describe('EventsClient and AdminClient against the events service', () => {
  test('when pixel and click URLs built by the client are hit, then a key issued by the operator reports them', async () => {
    const owner = await h.registerOwner(undefined, ['shop.example']);
    const events = new EventsClient({ baseUrl: h.baseUrl });
    const impression = events.pixelUrl({
      owner_id: owner,
      name: 'impression',
      content_id: 'article-1',
      url: 'https://pub.example/a',
      metadata: { campaign: 'spring sale' },
    });
    for (let i = 0; i < 2; i++) expect((await fetch(impression, { headers: BROWSER })).status).toBe(200);
    const click = events.clickUrl(
      { owner_id: owner, name: 'click', content_id: 'article-1', metadata: { campaign: 'spring sale' } },
      'https://shop.example/offer?id=7',
    );
    const redirected = await fetch(click, { headers: BROWSER, redirect: 'manual' });
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get('location')).toBe('https://shop.example/offer?id=7');
    await h.waitForStored(3, { owner_id: owner });

    const key = await operator().createApiKey({ owner_ids: [owner] });
    expect(key).toEqual({ id: expect.any(String), api_key: expect.stringMatching(/^ek_/), owner_ids: [owner] });
    const listed = await operator().listApiKeys();
    expect(listed).toContainEqual({ id: key.id, owner_ids: [owner], created: expect.any(String) });
    expect(JSON.stringify(listed)).not.toContain(key.api_key);

    const reports = new EventsClient({ baseUrl: h.baseUrl, apiKey: key.api_key });
    expect(await reports.report({ owner_id: owner, group_by: 'content_id', metadata: ['campaign'] })).toEqual([
      { name: 'click', content_id: 'article-1', value: 1, metadata: { campaign: 'spring sale' } },
      { name: 'impression', content_id: 'article-1', value: 2, metadata: { campaign: 'spring sale' } },
    ]);
    expect(await reports.report({ owner_id: owner, name: 'impression', device_type: 'desktop' })).toEqual([
      { name: 'impression', value: 2 },
    ]);
  });

  test('when a report is out of scope, invalid, or its key revoked, then ForbiddenError, ValidationError, UnauthorizedError', async () => {
    const owner = newOwnerId();
    const key = await operator().createApiKey({ owner_ids: [owner] });
    const reports = new EventsClient({ baseUrl: h.baseUrl, apiKey: key.api_key });
    const outOfScope = reports.report({ owner_id: newOwnerId() });
    await expect(outOfScope).rejects.toBeInstanceOf(ForbiddenError);
    await expect(outOfScope).rejects.toMatchObject({ status: 403, code: 'forbidden' });
    const invalid = await reports.report({ owner_id: owner, group_by: 'device_type' }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).details).toContainEqual(
      expect.objectContaining({ field: expect.stringMatching(/^group_by/) }),
    );

    await expect(operator().revokeApiKey(key.id)).resolves.toBeUndefined();
    const revoked = await reports.report({ owner_id: owner }).catch((e: unknown) => e);
    expect(revoked).toBeInstanceOf(UnauthorizedError);
    expect(`${(revoked as Error).message} ${JSON.stringify(revoked)}`).not.toContain(key.api_key);
    await expect(operator().revokeApiKey(key.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      new AdminClient({ eventsUrl: h.baseUrl, adminToken: 'not-the-admin-token' }).listApiKeys(),
    ).rejects.toBeInstanceOf(UnauthorizedError);
  });

  test('when a key spends its rate limit, then RateLimitedError with retryAfterSeconds comes at once (longer than the retry policy would wait)', async () => {
    const owner = newOwnerId();
    let sent = 0;
    const reports = new EventsClient({
      baseUrl: h.baseUrl,
      apiKey: (await operator().createApiKey({ owner_ids: [owner] })).api_key,
      fetch: (input, init) => (sent++, fetch(input, init)),
    });
    for (let i = 0; i < 3; i++) await reports.report({ owner_id: owner });
    sent = 0;
    const error = await reports.report({ owner_id: owner }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited' });
    expect((error as RateLimitedError).retryAfterSeconds).toBeGreaterThan(5);
    // at once: one request, no wait for a retry
    expect(sent).toBe(1);
  });
});
