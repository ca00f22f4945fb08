import { newOwnerId, startReportingHarness, type ReportingHarness } from '../../../test/support/reporting-harness';

let h: ReportingHarness;

beforeAll(async () => {
  h = await startReportingHarness({ REPORT_RATE_LIMIT_PER_MINUTE: '3' });
});
afterAll(async () => {
  await h.stop();
});

describe('report rate limit', () => {
  test('when a key spends its per-minute budget, then 429 with Retry-After, while another key is still served', async () => {
    const owner = newOwnerId();
    const busy = (await h.createKey([owner])).api_key;
    const calm = (await h.createKey([owner])).api_key;
    for (let i = 0; i < 3; i++) expect((await h.report(busy, { owner_id: owner })).status).toBe(200);
    const limited = await h.report(busy, { owner_id: owner });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(20);
    expect((await h.report(calm, { owner_id: owner })).status).toBe(200);
  });

  test('when requests carry no valid key, then they are 401 and spend no key budget', async () => {
    const owner = newOwnerId();
    const key = (await h.createKey([owner])).api_key;
    for (let i = 0; i < 5; i++) expect((await h.report(`ek_${'B'.repeat(43)}`, { owner_id: owner })).status).toBe(401);
    expect((await h.report(key, { owner_id: owner })).status).toBe(200);
  });
});
