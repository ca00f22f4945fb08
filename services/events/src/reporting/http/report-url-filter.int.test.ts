import { newOwnerId, startReportingHarness, type ReportingHarness } from '../../../test/support/reporting-harness';

// Events stored before page URLs were canonical hold the URL as it was sent; those stored since
// hold the canonical form. A url filter finds both, whichever form it is given in.
let h: ReportingHarness;
let apiKey: string;
const owner = newOwnerId();
const RAW = 'https://News.example/guide/?utm_source=fb&fbclid=IwAR1#pricing';
const CANONICAL = 'https://news.example/guide';

beforeAll(async () => {
  h = await startReportingHarness();
  apiKey = (await h.createKey([owner])).api_key;
  const event = { owner_id: owner, name: 'impression', content_id: '', device_type: 'desktop' as const };
  await h.insertEvents([
    // stored by the previous release: the URL as sent
    { ...event, url: RAW, created: new Date('2026-11-20T10:00:00.000Z') },
    // stored since: canonical
    { ...event, url: CANONICAL, created: new Date('2026-11-20T11:00:00.000Z') },
    { ...event, url: CANONICAL, created: new Date('2026-11-20T12:00:00.000Z') },
    { ...event, url: 'https://news.example/other', created: new Date('2026-11-20T12:00:00.000Z') },
  ]);
});
afterAll(async () => {
  await h.stop();
});

const count = async (url: string | string[]) => {
  const res = await h.report(apiKey, {
    owner_id: owner,
    url,
    created__gte: '2026-11-20',
    created__lte: '2026-11-20',
  });
  expect(res.status).toBe(200);
  return res.body;
};

describe('report url filter across the upgrade to canonical URLs', () => {
  test('when the filter is the raw URL an old event holds, then it finds that event and the canonical ones', async () => {
    expect(await count(RAW)).toEqual([{ name: 'impression', value: 3 }]);
  });

  test('when the filter is the canonical URL or another spelling of it, then it finds the canonical events', async () => {
    expect(await count(CANONICAL)).toEqual([{ name: 'impression', value: 2 }]);
    expect(await count('https://NEWS.example/guide/#top')).toEqual([{ name: 'impression', value: 2 }]);
  });

  test('when the filter is not a URL, then it is matched as given (no 400)', async () => {
    expect(await count(['', 'not a url'])).toEqual([]);
  });
});
