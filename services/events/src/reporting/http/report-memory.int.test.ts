import { EVENT_LIMITS } from '@cm/contracts';
import { newOwnerId, startReportingHarness, type ReportingHarness } from '../../../test/support/reporting-harness';

// An outsider can send a victim's pixel many distinct urls of the longest length the pixel takes.
// The byte bound is made small here so that a few thousand of them reach it; the default
// (MAX_GROUP_BYTES) is reached the same way with 200,000.
const URLS = 3000;
const MAX_GROUP_BYTES = 2 * 1024 * 1024;
const created = new Date('2026-11-19T12:00:00Z');

let h: ReportingHarness;
const owner = newOwnerId();
let apiKey: string;

beforeAll(async () => {
  h = await startReportingHarness({ REPORT_MAX_RANKED_GROUPS: '200000' }, { maxGroupBytes: MAX_GROUP_BYTES });
  apiKey = (await h.createKey([owner])).api_key;
  for (let i = 0; i < URLS; i += 500) {
    await h.insertEvents(
      Array.from({ length: 500 }, (_, j) => ({
        owner_id: owner,
        name: 'view',
        url: `https://example.com/${i + j}/`.padEnd(EVENT_LIMITS.urlMax, 'x'),
        created,
      })),
    );
  }
}, 120_000);
afterAll(async () => {
  await h.stop();
});

/** Peak growth of this process's heap and RSS (the service runs in it) while `run` is in flight, sampled every 10 ms. */
async function peakGrowth<T>(run: () => Promise<T>): Promise<{ result: T; heapMb: number; rssMb: number }> {
  const start = process.memoryUsage();
  let heap = start.heapUsed;
  let rss = start.rss;
  const sample = () => {
    const now = process.memoryUsage();
    heap = Math.max(heap, now.heapUsed);
    rss = Math.max(rss, now.rss);
  };
  const timer = setInterval(sample, 10);
  try {
    const result = await run();
    sample();
    return { result, heapMb: (heap - start.heapUsed) / 2 ** 20, rssMb: (rss - start.rss) / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

describe('a top-N report over many long urls', () => {
  test('when the groups to rank take more than the byte bound, then a 400 names group_by and the bound, and memory stays bounded', async () => {
    const {
      result: res,
      heapMb,
      rssMb,
    } = await peakGrowth(() =>
      h.report(apiKey, {
        owner_id: owner,
        group_by: 'url',
        limit: 10,
        created__gte: '2026-11-19',
        created__lte: '2026-11-19',
      }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'validation_error',
      message: "the report's groups take more than 2 MiB",
      details: [
        {
          field: 'group_by',
          message: expect.stringContaining('take more than 2 MiB; narrow the report with a filter'),
        },
      ],
    });
    // the 6 MB of urls come from the database in batches; the merge holds at most 2 MiB of them
    expect(heapMb).toBeLessThan(40);
    expect(rssMb).toBeLessThan(80);
  }, 60_000);

  test('when a filter narrows it to a few urls, then it is answered', async () => {
    const url = `https://example.com/7/`.padEnd(EVENT_LIMITS.urlMax, 'x');
    const res = await h.report(apiKey, {
      owner_id: owner,
      group_by: 'url',
      limit: 10,
      url,
      created__gte: '2026-11-19',
      created__lte: '2026-11-19',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ name: 'view', url, value: 1 }]);
  }, 60_000);
});
