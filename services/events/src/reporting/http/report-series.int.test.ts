import { countByBucket, referenceHourBuckets } from '../../../test/support/reference-hours';
import { newOwnerId, startReportingHarness, type ReportingHarness } from '../../../test/support/reporting-harness';

// Time series, time zones and top-N over HTTP (raw events here: the rollup path is compared with
// this one by the differential test).
let h: ReportingHarness;
let key: string;
const owner = newOwnerId();

beforeAll(async () => {
  h = await startReportingHarness({ API_KEY_FAILED_LOOKUPS_PER_MINUTE: '3', REPORT_MAX_BUCKETS: '500' });
  key = (await h.createKey([owner])).api_key;
  await h.insertEvents([
    // Kolkata (+05:30): 2026-10-15 starts at 2026-10-14T18:30Z
    { owner_id: owner, name: 'view', url: 'a', created: new Date('2026-10-14T18:29:59Z') },
    { owner_id: owner, name: 'view', url: 'a', created: new Date('2026-10-14T18:30:00Z') },
    { owner_id: owner, name: 'view', url: 'b', created: new Date('2026-10-15T18:29:59Z') },
    { owner_id: owner, name: 'view', url: 'b', created: new Date('2026-10-16T10:00:00Z') },
    { owner_id: owner, name: 'click', url: 'b', created: new Date('2026-10-16T11:00:00Z') },
  ]);
});
afterAll(async () => {
  await h.stop();
});

describe('report series', () => {
  test('when a day series is asked in Asia/Kolkata, then days start at 18:30Z and each row carries +05:30; fill_zeros adds the empty day', async () => {
    const res = await h.report(key, {
      owner_id: owner,
      name: 'view',
      created__gte: '2026-10-14',
      created__lte: '2026-10-17',
      interval: 'day',
      timezone: 'Asia/Kolkata',
      fill_zeros: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { time: '2026-10-14T00:00:00+05:30', name: 'view', value: 1 },
      { time: '2026-10-15T00:00:00+05:30', name: 'view', value: 2 },
      { time: '2026-10-16T00:00:00+05:30', name: 'view', value: 1 },
      { time: '2026-10-17T00:00:00+05:30', name: 'view', value: 0 },
    ]);
  });

  test('when the top groups are asked over a month, then the groups with the most events come first, ties by name then url', async () => {
    const res = await h.report(key, {
      owner_id: owner,
      group_by: 'url',
      created__gte: '2026-10-01',
      created__lte: '2026-10-31',
      limit: 2,
    });
    expect(res.body).toEqual([
      { name: 'view', url: 'a', value: 2 },
      { name: 'view', url: 'b', value: 2 },
    ]);
    const least = await h.report(key, {
      owner_id: owner,
      group_by: 'url',
      created__gte: '2026-10-01',
      created__lte: '2026-10-31',
      limit: 1,
      order: 'asc',
    });
    expect(least.body).toEqual([{ name: 'click', url: 'b', value: 1 }]);
  });

  test('when the range would have more buckets than allowed, then 400 naming interval; a bad zone 400 naming timezone; nothing is answered', async () => {
    const many = await h.report(key, {
      owner_id: owner,
      created__gte: '2026-10-01',
      created__lte: '2026-10-31',
      interval: 'hour',
    });
    expect(many.status).toBe(400);
    expect(many.body.error.details).toEqual([
      {
        field: 'interval',
        message: 'the range has more than 500 hour buckets; use a longer interval or a shorter range',
      },
    ]);
    const zone = await h.report(key, { owner_id: owner, timezone: { $gt: '' } });
    expect(zone.status).toBe(400);
    expect(zone.body.error.details[0].field).toBe('timezone');
  });
});

describe('hour series where DST moves by 30 minutes', () => {
  test.each([
    ['2026-04-04T15:00:00Z', '2026-04-05', '2026-04-04T13:00:00Z'], // clocks back: 02:00+11:00 -> 01:30+10:30
    ['2026-10-03T15:30:00Z', '2026-10-04', '2026-10-03T13:30:00Z'], // clocks forward: 02:00+10:30 -> 02:30+11:00
  ])(
    'when events lie around the Lord Howe change at %s, then each hour row has a real local time and the count the reference gives',
    async (change, day, dayStart) => {
      const lordHowe = newOwnerId();
      const lhKey = (await h.createKey([lordHowe])).api_key;
      const c = Date.parse(change);
      const instants = [-150, -61, -31, -30, -1, 0, 1, 29, 30, 59, 61, 95].map((minutes) => c + minutes * 60_000);
      await h.insertEvents(instants.map((t) => ({ owner_id: lordHowe, name: 'view', created: new Date(t) })));
      const res = await h.report(lhKey, {
        owner_id: lordHowe,
        created__gte: day,
        created__lte: day,
        interval: 'hour',
        timezone: 'Australia/Lord_Howe',
      });
      expect(res.status).toBe(200);
      const from = Date.parse(dayStart);
      const reference = countByBucket(
        referenceHourBuckets('Australia/Lord_Howe', from, from + 24 * 3_600_000),
        instants,
      );
      expect(res.body).toEqual(Object.entries(reference).map(([time, value]) => ({ time, name: 'view', value })));
    },
  );
});

describe('failed API key lookups', () => {
  test('when a client sends unknown keys past its budget, then 429 with Retry-After without a lookup; a key this process knows still works', async () => {
    expect((await h.report(key, { owner_id: owner })).status).toBe(200);
    for (let i = 0; i < 3; i++)
      expect((await h.report(`ek_${String(i).repeat(43)}`, { owner_id: owner })).status).toBe(401);
    const limited = await h.report(`ek_${'9'.repeat(43)}`, { owner_id: owner });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await h.report(key, { owner_id: owner })).status).toBe(200);
  });
});
