import { ensureIndexes } from '@cm/platform';
import { startMongoStandIn, type LocalServer } from '@cm/testkit';
import { BUCKET_INDEXES } from '../../storage/bucket-indexes';
import { bucketName } from '../../storage/bucket-naming';
import type { EventDocument } from '../../storage/event-document';
import { waitUntil } from '../../../test/support/events-harness';
import { newOwnerId, startReportingHarness, type ReportingHarness } from '../../../test/support/reporting-harness';

// A report over an owner flooded with 500,000 distinct urls answers within its deadline,
// with bounded memory and a clear error, instead of loading every group.
const URLS = 500_000;
const DAY = Date.parse('2026-10-15T00:00:00Z');
const range = { created__gte: '2026-10-15 00:00:00', created__lte: '2026-10-15 23:59:59' };

/** The run's shared stand-in computes on one thread per query: 500,000 groups would keep it from answering other test files. */
let ownStandIn: LocalServer | undefined;
let h: ReportingHarness;
/** The same database, a process whose reports have 300 ms. Started first: once the stand-in is busy with 500,000 groups, new connections wait. */
let tight: ReportingHarness;
let owner: string;
let key: string;

beforeAll(async () => {
  if (process.env.TEST_SERVERS_SOURCE === 'local') ownStandIn = await startMongoStandIn({ heap: '2g' });
  const mongo: Record<string, string> = ownStandIn ? { MONGO_URL: ownStandIn.url } : {};
  h = await startReportingHarness({
    ...mongo,
    REPORT_CONCURRENCY_PER_KEY: '1',
    REPORT_DEADLINE_MS: '20000',
    REPORT_MAX_RANKED_GROUPS: '50000',
  });
  tight = await startReportingHarness({
    ...mongo,
    MONGO_DB: h.config.MONGO_DB,
    REPORT_DEADLINE_MS: '300',
    REPORT_MAX_GROUPS: '1000000',
  });
  owner = newOwnerId();
  key = (await h.createKey([owner])).api_key;
  const bucket = h.db.collection<EventDocument>(bucketName(h.config.BUCKET_PREFIX, new Date(DAY)));
  await ensureIndexes(bucket, BUCKET_INDEXES);
  for (let i = 0; i < URLS; i += 25_000) {
    const docs = Array.from({ length: 25_000 }, (_, j) => ({
      _id: `flood-${i + j}`,
      owner_id: owner,
      name: 'impression',
      url: `https://flood.example/${i + j}`,
      content_id: '',
      device_type: 'desktop' as const,
      bot: false,
      metadata: {},
      created: new Date(DAY + ((i + j) % 86_400) * 1000),
    }));
    await bucket.insertMany(docs, { ordered: false });
  }
}, 180_000);
afterAll(async () => {
  await tight?.stopServerOnly();
  await h?.stop();
  await ownStandIn?.stop();
});

/** Peak RSS growth while `run` is in flight, sampled every 20 ms. */
async function peakRssGrowth<T>(run: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    const result = await run();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, growthMb: (peak - before) / 1e6 };
  } finally {
    clearInterval(timer);
  }
}

describe('bounded reports', () => {
  test('when an owner with 500,000 distinct urls is grouped by url, then a 400 names the cap and suggests limit, within the deadline and without loading every group', async () => {
    const started = Date.now();
    const { result: res, growthMb } = await peakRssGrowth(() =>
      h.report(key, { owner_id: owner, group_by: 'url', ...range }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details[0].field).toBe('group_by');
    expect(res.body.error.details[0].message).toMatch(/more than 10000 groups.*`limit`/);
    expect(Date.now() - started).toBeLessThan(20_000);
    // 500,000 groups as JavaScript objects would be several hundred MB; the cap keeps it to a few batches
    expect(growthMb).toBeLessThan(150);
  }, 60_000);

  test('when the same owner asks for the top 10 urls, then the ranking cap answers the same way, naming filters', async () => {
    const res = await h.report(key, { owner_id: owner, group_by: 'url', limit: 10, ...range });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].message).toMatch(
      /more than 50000 groups to rank; narrow the report with a filter/,
    );
  }, 60_000);

  test('when the report is narrowed by a url filter, then it is answered', async () => {
    const res = await h.report(key, {
      owner_id: owner,
      group_by: 'url',
      url: ['https://flood.example/7', 'https://flood.example/8'],
      ...range,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { name: 'impression', url: 'https://flood.example/7', value: 1 },
      { name: 'impression', url: 'https://flood.example/8', value: 1 },
    ]);
  }, 60_000);

  test('when a key already runs its allowed reports, then another one is 429 with Retry-After; a key of its own is not held up', async () => {
    const other = (await h.createKey([owner])).api_key;
    const slow = h.report(key, { owner_id: owner, group_by: 'url', ...range });
    await new Promise((r) => setTimeout(r, 100));
    const second = await h.report(key, { owner_id: owner, ...range, url: 'https://flood.example/1' });
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await h.report(other, { owner_id: owner, ...range, url: 'https://flood.example/1' })).status).toBe(200);
    expect((await slow).status).toBe(400);
    expect((await h.report(key, { owner_id: owner, ...range, url: 'https://flood.example/1' })).status).toBe(200);
  }, 60_000);

  test('when the client goes away mid-report, then its work stops and the key is free again once the query already sent has settled', async () => {
    const gone = new AbortController();
    const aborted = fetch(`${h.baseUrl}/api/v1/events/?api_key=${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ owner_id: owner, group_by: 'url', ...range }),
      signal: gone.signal,
    }).catch((err: unknown) => err);
    await new Promise((r) => setTimeout(r, 200));
    gone.abort();
    await aborted;
    // the stand-in still groups 500,000 urls for the departed client: the key's one slot waits for that
    expect((await h.report(key, { owner_id: owner, ...range, url: 'https://flood.example/1' })).status).toBe(429);
    await waitUntil(
      async () => (await h.report(key, { owner_id: owner, ...range, url: 'https://flood.example/1' })).status === 200,
      50_000,
      'the key free again',
    );
  }, 60_000);
});

describe('report deadline', () => {
  test('when a report cannot finish within REPORT_DEADLINE_MS, then it is a 503 naming the deadline, answered on time', async () => {
    const k = (await tight.createKey([owner])).api_key;
    const started = Date.now();
    const res = await tight.report(k, { owner_id: owner, group_by: 'url', ...range });
    expect(res.status).toBe(503);
    expect(res.body.error).toEqual({
      code: 'unavailable',
      message: 'the report took longer than its deadline (300 ms); narrow the time range or the filters',
    });
    expect(Date.now() - started).toBeLessThan(3000);
  }, 60_000);
});
