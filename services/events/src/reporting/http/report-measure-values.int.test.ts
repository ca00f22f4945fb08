import { newOwnerId, startReportingHarness, type ReportingHarness } from '../../../test/support/reporting-harness';

// Anyone can send an owner's pixel engagement events with a different engaged_ms each (a script,
// a crawler, a flood under the flood limits). A raw span's `$group` then has a row per distinct
// value; the report folds each row into its group's quantile sketch and sums as it arrives, so a
// group holds one bounded sketch however many distinct values the span has. The byte bound is
// made small here (2 MiB) so that 20,000 distinct values would pass it if each row were kept
// until the group is merged (about 100 bytes each); the default bound is met the same way by
// 200,000 (pnpm bench:raw-measures times that one).
const VALUES = 20_000;
const MAX_GROUP_BYTES = 2 * 1024 * 1024;
const created = new Date('2026-11-19T12:00:00Z');

let h: ReportingHarness;
const owner = newOwnerId();
let apiKey: string;

beforeAll(async () => {
  h = await startReportingHarness({}, { maxGroupBytes: MAX_GROUP_BYTES });
  apiKey = (await h.createKey([owner])).api_key;
  for (let i = 0; i < VALUES; i += 1000) {
    await h.insertEvents(
      Array.from({ length: 1000 }, (_, j) => ({
        owner_id: owner,
        name: 'engagement',
        url: 'https://news.example/story?id=7',
        created: new Date(created.getTime() + i + j),
        visitor: 1 + ((i + j) % 500),
        // every event a value of its own: 20,000 distinct values between 1 s and 10 min
        measures: { engaged_ms: 1000 + (i + j) * 29 },
      })),
    );
  }
}, 300_000);
afterAll(async () => {
  await h.stop();
});

test('when a raw span holds a distinct engaged_ms per event, then percentiles, shares and sums answer (no group bound reached) with the exact count and sum', async () => {
  const res = await h.report(apiKey, {
    owner_id: owner,
    name: 'engagement',
    group_by: 'url',
    metrics: 'count,engaged_ms_p50,engaged_ms_p90,engaged_ms_gte_300000,engaged_ms_sum,engaged_ms_avg',
    created__gte: '2026-11-19',
    created__lte: '2026-11-19',
  });
  expect(res.status).toBe(200);
  const sum = VALUES * 1000 + (29 * VALUES * (VALUES - 1)) / 2;
  expect(res.body).toEqual([
    expect.objectContaining({
      name: 'engagement',
      url: 'https://news.example/story?id=7',
      value: VALUES,
      engaged_ms_sum: sum,
      engaged_ms_avg: sum / VALUES,
    }),
  ]);
  // the sketch's relative error (1 %) around the nearest-rank values
  const row = res.body[0] as Record<string, number>;
  const rank = (q: number) => 1000 + (Math.ceil(q * VALUES) - 1) * 29;
  expect(Math.abs(row.engaged_ms_p50! - rank(0.5)) / rank(0.5)).toBeLessThan(0.01);
  expect(Math.abs(row.engaged_ms_p90! - rank(0.9)) / rank(0.9)).toBeLessThan(0.01);
  expect(row.engaged_ms_gte_300000).toBeCloseTo(1 - (300_000 - 1000) / 29 / VALUES, 2);
}, 120_000);
