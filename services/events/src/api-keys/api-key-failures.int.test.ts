import { newOwnerId, startReportingHarness, type ReportingHarness } from '../../test/support/reporting-harness';

// Two reporting processes: one behind a trusted proxy (the test plays it and writes the
// X-Forwarded-For entry the proxy would append), one reached directly (no proxy trusted).
let proxied: ReportingHarness;
let direct: ReportingHarness;

beforeAll(async () => {
  proxied = await startReportingHarness({ PIXEL_TRUSTED_PROXY_HOPS: '1', API_KEY_FAILED_LOOKUPS_PER_MINUTE: '3' });
  direct = await startReportingHarness({ API_KEY_FAILED_LOOKUPS_PER_MINUTE: '3' });
});
afterAll(async () => {
  await proxied?.stop();
  await direct?.stop();
});

const badKey = (i: number) => `ek_${String(i % 10).repeat(43)}`;

function reportFrom(h: ReportingHarness, xff: string, apiKey: string, owner: string) {
  return h.request('POST', `/api/v1/events/?api_key=${encodeURIComponent(apiKey)}`, {
    headers: { 'x-forwarded-for': xff },
    body: { owner_id: owner },
  });
}

describe('failed API key lookups per client address', () => {
  test('when one client behind the trusted proxy guesses keys until it is limited, then another client behind the same proxy still gets 200 with a key this process has not seen yet', async () => {
    const owner = newOwnerId();
    const good = await proxied.createKey([owner]);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await reportFrom(proxied, '203.0.113.10', badKey(i), owner)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    // the good key was never looked up before: it is not in the key cache, so the limiter decides
    const other = await reportFrom(proxied, '203.0.113.11', good.api_key, owner);
    expect(other.status).toBe(200);
    // the guessing client stays limited, whatever it writes to the left of the proxy's entry
    expect((await reportFrom(proxied, '198.51.100.1, 203.0.113.10', badKey(7), owner)).status).toBe(429);
  });

  test('when IPv6 clients of one /64 guess keys, then they share one budget, and a client of another /64 is not held up', async () => {
    const owner = newOwnerId();
    const good = await proxied.createKey([owner]);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await reportFrom(proxied, `2001:db8:a:b::${i + 1}`, badKey(i), owner)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    expect((await reportFrom(proxied, '2001:db8:a:c::1', good.api_key, owner)).status).toBe(200);
  });

  test('when no proxy is trusted and a client forges a different X-Forwarded-For each time, then it still spends one budget (its socket address)', async () => {
    const owner = newOwnerId();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await reportFrom(direct, `203.0.113.${20 + i}`, badKey(i), owner)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });
});
