import { EventsClient } from './events-client';
import {
  CampaignEventsError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  TimeoutError,
  UnauthorizedError,
  UnavailableError,
} from './errors';
import { ManagementClient } from './management-client';
import {
  errorBody,
  startScriptedServer,
  type ScriptedReply,
  type ScriptedServer,
} from './test-support/scripted-server';

// the transport against a real local HTTP server that answers from a script
const TOKEN = 'tok_secret_never_in_messages';
const FAST = { baseDelayMs: 10, maxDelayMs: 3000, maxTotalDelayMs: 5000 };
const CAMPAIGN = { name: 'Spring', start_date: '2026-03-01', end_date: '2026-05-31', category: 'Technology' as const };

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(replies: ScriptedReply[]) {
  server = await startScriptedServer(replies);
  return server;
}
const management = (url: string, extra: Partial<ConstructorParameters<typeof ManagementClient>[0]> = {}) =>
  new ManagementClient({ baseUrl: url, apiToken: TOKEN, retry: FAST, ...extra });

describe('HTTP transport: requests', () => {
  test('when a call is made, then it sends the bearer token, JSON, accept and the user agent to the right path', async () => {
    const s = await serve([{ status: 200, body: { token: 'c1' } }]);
    await management(s.url).editContent('camp/1', 'u?1', { content_type: 'Video' });
    expect(s.seen[0]).toMatchObject({
      method: 'POST',
      url: '/api/v3/camp%2F1/u%3F1/',
      body: '{"content_type":"Video"}',
    });
    expect(s.seen[0]!.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': 'campaign-events-client/0.1.0',
    });
  });

  test('when a report is made, then the key is the api_key query parameter and never appears in an error', async () => {
    const s = await serve([{ status: 401, body: errorBody('unauthorized', 'missing or unknown API key') }]);
    const events = new EventsClient({ baseUrl: s.url, apiKey: 'ek_SECRET+/=', userAgent: 'reports-bot/2' });
    const error = await events.report({ owner_id: '42' }).catch((e: unknown) => e);
    expect(s.seen[0]!.url).toBe('/api/v1/events/?api_key=ek_SECRET%2B%2F%3D');
    expect(s.seen[0]!.headers['user-agent']).toBe('reports-bot/2');
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(
      JSON.stringify({ ...(error as object), message: (error as Error).message, stack: (error as Error).stack }),
    ).not.toContain('SECRET');
  });

  test('when the answer is 204 or empty, then the call resolves to undefined; a 2xx that is not JSON is an error', async () => {
    const s = await serve([{ status: 204 }, { status: 200, body: 'not json' }]);
    await expect(management(s.url).deleteCampaign('c1')).resolves.toBeUndefined();
    await expect(management(s.url).listCampaigns()).rejects.toThrow(CampaignEventsError);
  });

  test('when the service sends X-Request-Id, then the error carries it', async () => {
    const s = await serve([
      { status: 404, headers: { 'x-request-id': 'req-77' }, body: errorBody('not_found', 'no such campaign') },
    ]);
    await expect(management(s.url).getCampaign('nope')).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
      requestId: 'req-77',
      request: 'GET /api/v3/campaign/nope/',
    });
  });
});

describe('HTTP transport: retries', () => {
  test('when a create meets 503 with Retry-After, then it waits that long and succeeds on the second attempt', async () => {
    const s = await serve([
      { status: 503, headers: { 'retry-after': '1' }, body: errorBody('unavailable', 'busy') },
      { status: 200, body: { token: 'c1' } },
    ]);
    await expect(management(s.url).createCampaign(CAMPAIGN)).resolves.toEqual({ token: 'c1' });
    expect(s.seen).toHaveLength(2);
    // at least that long (a busy machine only adds to it); that the wait is exactly Retry-After,
    // nothing added, is decideRetry's (retry-policy.test.ts)
    expect(s.seen[1]!.at - s.seen[0]!.at).toBeGreaterThanOrEqual(990);
  });

  test('when Retry-After is an HTTP date, then the wait runs until that date', async () => {
    const at = new Date(Math.ceil((Date.now() + 1500) / 1000) * 1000);
    const s = await serve([
      { status: 429, headers: { 'retry-after': at.toUTCString() } },
      { status: 200, body: [] },
    ]);
    await expect(management(s.url).listUsers()).resolves.toEqual([]);
    expect(s.seen[1]!.at).toBeGreaterThanOrEqual(at.getTime() - 5);
  });

  test('when a create meets 503 without Retry-After, then it is not sent again', async () => {
    const s = await serve([
      { status: 503, body: errorBody('unavailable', 'busy') },
      { status: 200, body: {} },
    ]);
    await expect(management(s.url).createCampaign(CAMPAIGN)).rejects.toBeInstanceOf(UnavailableError);
    expect(s.seen).toHaveLength(1);
  });

  test('when a read meets 503 without Retry-After, then it backs off and retries until maxAttempts', async () => {
    const s = await serve([{ status: 503, body: errorBody('unavailable', 'busy') }]);
    await expect(management(s.url, { retry: { ...FAST, maxAttempts: 4 } }).listCampaigns()).rejects.toMatchObject({
      status: 503,
      code: 'unavailable',
    });
    expect(s.seen).toHaveLength(4);
  });

  test('when Retry-After asks for longer than the caller allows, then the typed error comes at once with retryAfterSeconds', async () => {
    // an hour: a client that waited it out would never finish this test
    const s = await serve([
      { status: 429, headers: { 'retry-after': '3600' }, body: errorBody('rate_limited', 'rate limit exceeded') },
    ]);
    const error = await new EventsClient({ baseUrl: s.url, apiKey: 'k', retry: FAST })
      .report({ owner_id: '1' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 3600 });
    expect(s.seen).toHaveLength(1);
  });

  test('when the connection drops after the request was sent, then a read is retried but a create is not', async () => {
    const s = await serve([{ destroy: true }, { status: 200, body: [] }]);
    await expect(management(s.url).listUsers()).resolves.toEqual([]);
    expect(s.seen).toHaveLength(2);
    s.seen.length = 0;
    const error = await management(s.url)
      .createUser({ email: 'a@b.example', password: 'long enough' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toMatch(/^POST \/api\/v3\/user\/ failed/);
    expect(s.seen).toHaveLength(1);
  });

  test('when the connection is refused, then even a create is tried again (nothing was sent) up to maxAttempts', async () => {
    const s = await serve([]);
    const url = s.url;
    await s.close();
    server = undefined;
    let calls = 0;
    const counting = (input: string, init: RequestInit) => {
      calls++;
      return fetch(input, init);
    };
    const error = await management(url, { fetch: counting })
      .createCampaign(CAMPAIGN)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect(calls).toBe(3);
  });

  test('when a DELETE may have landed before the connection broke, then a 404 on the retry means done', async () => {
    const s = await serve([{ destroy: true }, { status: 404, body: errorBody('not_found', 'no such campaign') }]);
    await expect(management(s.url).deleteCampaign('c1')).resolves.toBeUndefined();
    expect(s.seen).toHaveLength(2);
  });

  test('when a DELETE gets 404 with nothing before it, or after a 503 that did nothing, then it is NotFoundError', async () => {
    const s = await serve([{ status: 404, body: errorBody('not_found', 'no such campaign') }]);
    await expect(management(s.url).deleteCampaign('c1')).rejects.toBeInstanceOf(NotFoundError);
    await s.close();
    const t = await serve([
      { status: 503, headers: { 'retry-after': '0' } },
      { status: 404, body: errorBody('not_found', 'no such campaign') },
    ]);
    await expect(management(t.url).deleteCampaign('c1')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('HTTP transport: timeouts and cancellation', () => {
  test('when the answer takes longer than timeoutMs, then the attempt fails with TimeoutError and a read is retried', async () => {
    const s = await serve([{ status: 200, body: [], delayMs: 400 }]);
    const error = await management(s.url, { timeoutMs: 100, retry: { ...FAST, maxAttempts: 2 } })
      .listCampaigns()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ timeoutMs: 100 });
    expect(s.seen).toHaveLength(2);
  });

  test('when a per-call timeout is given, then it overrides the client default for that call', async () => {
    // the answer comes after the client default has passed, long before the call's own timeout
    const s = await serve([{ status: 200, body: [], delayMs: 200 }]);
    await expect(management(s.url, { timeoutMs: 50 }).listCampaigns({ timeoutMs: 60_000 })).resolves.toEqual([]);
  });

  test('when the caller aborts during a request, then the call rejects with the abort reason and is not retried', async () => {
    const s = await serve([{ status: 200, body: [], delayMs: 1000 }]);
    const controller = new AbortController();
    const call = management(s.url).listCampaigns({ signal: controller.signal });
    // abort once the request is in the server's hands (not on a timer: a loaded machine may not have sent it yet)
    await until(() => s.seen.length === 1);
    controller.abort(new Error('user navigated away'));
    await expect(call).rejects.toThrow('user navigated away');
    expect(s.seen).toHaveLength(1);
  });

  test('when the caller aborts during a backoff wait, then the call stops at once', async () => {
    const s = await serve([{ status: 503, headers: { 'retry-after': '3600' } }]);
    const controller = new AbortController();
    let answered = 0;
    const fetchCounting = async (input: string, init: RequestInit) => {
      const res = await fetch(input, init);
      answered++;
      return res;
    };
    const anHour = { ...FAST, maxDelayMs: 3_600_000, maxTotalDelayMs: 3_600_000 };
    const call = management(s.url, { fetch: fetchCounting, retry: anHour }).listCampaigns({
      signal: controller.signal,
    });
    // the 503 is in the client's hands: it now waits the hour of Retry-After (this test ends only if the abort cuts it short)
    await until(() => answered === 1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(s.seen).toHaveLength(1);
  });

  test('when the signal is already aborted, then nothing is sent', async () => {
    const s = await serve([{ status: 200, body: [] }]);
    await expect(management(s.url).listCampaigns({ signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(s.seen).toHaveLength(0);
  });
});

/** Polls until check() holds (fails the test after 20 s: a bound on waiting, not on speed). */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met within 20 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}
