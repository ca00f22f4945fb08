import { newOwnerId, startReportingHarness, type ReportingHarness } from '../../../test/support/reporting-harness';

// An open bound is clamped to the day buckets that exist (never past now plus a skew), then the
// range cap applies; a far-away bound must never make the planner walk millions of hours.
const DAY = 86_400_000;
const MAX_DAYS = 420;
let h: ReportingHarness;
let key: string;
const owner = newOwnerId();
const today = Math.floor(Date.now() / DAY) * DAY;
const dayText = (t: number) => new Date(t).toISOString().slice(0, 10);

beforeAll(async () => {
  h = await startReportingHarness({
    REPORT_MAX_RANGE_DAYS: String(MAX_DAYS),
    // the largest allowed: a busy machine must not turn an answer into a 503 (the deadline is not tested here)
    REPORT_DEADLINE_MS: '600000',
    REPORT_RATE_LIMIT_PER_MINUTE: '1000',
  });
  key = (await h.createKey([owner])).api_key;
  await h.insertEvents([
    { owner_id: owner, name: 'view', created: new Date(today - 3 * DAY + 5_000) },
    { owner_id: owner, name: 'view', created: new Date(today - DAY + 7_000) },
    { owner_id: owner, name: 'click', created: new Date(today + 1_000) },
  ]);
});
afterAll(async () => {
  await h.stop();
});

/** A counter of the harness's /metrics (summed over its label sets). */
async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${h.baseUrl}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(name))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

/**
 * The report's answer and how many day buckets it read (events_report_buckets): what an open
 * range was clamped to, counted rather than timed. How the planner's cost stays per unit and not
 * per hour, and how it yields to the event loop, is counted in plan-report-bounds.test.ts; the
 * time these reports take is a benchmark's business (`pnpm bench:report-open-range`).
 */
async function countedReport(body: Record<string, unknown>) {
  const before = await metric('events_report_buckets_sum');
  const res = await h.report(key, { owner_id: owner, ...body });
  return { res, bucketsRead: (await metric('events_report_buckets_sum')) - before };
}

describe('open report ranges', () => {
  test.each([
    [{ created__lte: '2250-01-01' }],
    [{ created__lte: '2300-01-01' }],
    [{ created__lte: '9999-12-31 23:59:59' }],
    [{ created__gte: dayText(today - 10 * DAY) }],
    [{}],
  ])(
    'when a report has the open range %j, then it answers every stored event, reading only the three stored days',
    async (range) => {
      const { res, bucketsRead } = await countedReport(range);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        { name: 'click', value: 1 },
        { name: 'view', value: 2 },
      ]);
      expect(bucketsRead).toBe(3);
    },
  );

  test('when a series runs to a far future day, then the range cap answers 400 naming the range, as before', async () => {
    const { res, bucketsRead } = await countedReport({
      created__gte: dayText(today),
      created__lte: '9999-12-31 23:59:59',
      interval: 'hour',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('created__gte');
    expect(bucketsRead).toBe(0);
  });

  test('when an hour series has the most buckets allowed, in a half-hour zone, then every stored event is in it, from the stored days only', async () => {
    const { res, bucketsRead } = await countedReport({
      created__gte: dayText(today - 414 * DAY),
      created__lte: dayText(today + DAY),
      interval: 'hour',
      timezone: 'Asia/Kolkata',
    });
    expect(res.status).toBe(200);
    expect(res.body.reduce((n: number, r: { value: number }) => n + r.value, 0)).toBe(3);
    expect(bucketsRead).toBe(3);
  });

  describe('when an old bucket lies further back than the range cap', () => {
    beforeAll(async () => {
      await h.insertEvents([{ owner_id: owner, name: 'view', created: new Date(today - 450 * DAY) }]);
    });

    test('when only created__gte reaches back to 1970, then the clamped range is over the cap: a 400 naming created__lte, nothing read', async () => {
      const { res, bucketsRead } = await countedReport({ created__gte: '1970-01-01' });
      expect(res.status).toBe(400);
      expect(res.body.error.details[0].field).toBe('created__lte');
      expect(res.body.error.details[0].message).toMatch(/touches 451 days; at most 420/);
      expect(bucketsRead).toBe(0);
    });

    test('when only created__lte is given, far in the future, then the newest days up to the cap are read (the old day is not)', async () => {
      const { res, bucketsRead } = await countedReport({ created__lte: '2250-01-01' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        { name: 'click', value: 1 },
        { name: 'view', value: 2 },
      ]);
      expect(bucketsRead).toBe(3);
    });

    test('when both bounds are given around the old day, then it is counted (closed ranges are not clamped)', async () => {
      const res = await h.report(key, {
        owner_id: owner,
        created__gte: dayText(today - 451 * DAY),
        created__lte: dayText(today - 449 * DAY),
      });
      expect(res.body).toEqual([{ name: 'view', value: 1 }]);
    });
  });
});
