import { countByBucket, referenceHourBuckets } from '../../../test/support/reference-hours';
import { formatZoned } from '../../storage/zone-clock';
import { timeBuckets } from './zoned-time';

const at = (s: string) => Date.parse(s);
const H = 3_600_000;

/** Zones whose DST shift is 30 minutes (Lord Howe) or falls off the full hour (Chatham, 45-minute offsets), plus one-hour shifts. */
const CHANGES: Array<[string, string]> = [
  ['Australia/Lord_Howe', '2026-04-04T15:00:00Z'], // 02:00+11:00 -> 01:30+10:30
  ['Australia/Lord_Howe', '2026-10-03T15:30:00Z'], // 02:00+10:30 -> 02:30+11:00
  ['Pacific/Chatham', '2026-04-04T14:00:00Z'], // 03:45+13:45 -> 02:45+12:45
  ['Pacific/Chatham', '2026-09-26T14:00:00Z'], // 02:45+12:45 -> 03:45+13:45
  ['Europe/Berlin', '2026-03-29T01:00:00Z'],
  ['America/New_York', '2026-11-01T06:00:00Z'],
];

function ours(zone: string, from: number, to: number) {
  return timeBuckets('hour', zone, from, to - 1, 1000)!.map((b) => ({
    label: formatZoned(zone, b.time),
    start: b.start,
    end: b.end,
  }));
}

describe('hour series across DST changes', () => {
  test.each(CHANGES)(
    'when %s is bucketed by hour around its change at %s, then the buckets equal the minute-by-minute reference',
    (zone, change) => {
      const from = at(change) - 5 * H;
      const to = at(change) + 5 * H;
      const mine = ours(zone, from, to);
      const reference = referenceHourBuckets(zone, from, to);
      // the first bucket starts before the window: its label is its true start, the reference's the window's first minute
      expect(mine[0]!.end).toBe(reference[0]!.end);
      expect(mine.slice(1)).toEqual(reference.slice(1));
    },
  );

  test('when a week-long window holds a change days after its start, then every bucket still equals the reference', () => {
    const from = at('2026-09-30T13:30:00Z');
    const to = at('2026-10-07T13:00:00Z');
    expect(ours('Australia/Lord_Howe', from, to)).toEqual(referenceHourBuckets('Australia/Lord_Howe', from, to));
  });

  test('when Lord Howe sets its clocks forward by 30 minutes (2026-10-04), then 01:00 is a whole hour and the jump starts a half-hour bucket at 02:30+11:00', () => {
    const b = ours('Australia/Lord_Howe', at('2026-10-03T13:30:00Z'), at('2026-10-03T17:00:00Z'));
    expect(b.map((x) => [x.label, (x.end - x.start) / 60_000])).toEqual([
      ['2026-10-04T00:00:00+10:30', 60],
      ['2026-10-04T01:00:00+10:30', 60],
      ['2026-10-04T02:30:00+11:00', 30],
      ['2026-10-04T03:00:00+11:00', 60],
    ]);
  });

  test('when Lord Howe sets its clocks back by 30 minutes (2026-04-05), then 01:00+11:00 is a whole hour and the repeated half hour is its own bucket', () => {
    const b = ours('Australia/Lord_Howe', at('2026-04-04T13:00:00Z'), at('2026-04-04T16:30:00Z'));
    expect(b.map((x) => [x.label, (x.end - x.start) / 60_000])).toEqual([
      ['2026-04-05T00:00:00+11:00', 60],
      ['2026-04-05T01:00:00+11:00', 60],
      ['2026-04-05T01:30:00+10:30', 30],
      ['2026-04-05T02:00:00+10:30', 60],
    ]);
  });

  test.each([['2026-04-04T15:00:00Z'], ['2026-10-03T15:30:00Z']])(
    'when events lie around the Lord Howe change at %s, then each is counted in the bucket the reference puts it in',
    (change) => {
      const zone = 'Australia/Lord_Howe';
      const c = at(change);
      const instants = [
        c - 90 * 60_000,
        c - 31 * 60_000,
        c - 30 * 60_000,
        c - 1,
        c,
        c + 1,
        c + 29 * 60_000,
        c + 30 * 60_000,
        c + 59 * 60_000,
        c + 61 * 60_000,
      ];
      const from = c - 3 * H;
      const to = c + 3 * H;
      const reference = countByBucket(referenceHourBuckets(zone, from, to), instants);
      expect(countByBucket(ours(zone, from, to), instants)).toEqual(reference);
      expect(Object.values(reference).reduce((a, b) => a + b, 0)).toBe(instants.length);
    },
  );

  test('when 10,000 hour buckets are computed in a DST zone, then the offset is looked up about twice a week (hourly only near a change), not once per hour', () => {
    // every offset look-up is one Intl formatToParts call: counted, not timed
    const lookups = jest.spyOn(Intl.DateTimeFormat.prototype, 'formatToParts');
    try {
      const buckets = timeBuckets(
        'hour',
        'Australia/Lord_Howe',
        at('2026-01-01T00:00:00Z'),
        at('2026-01-01T00:00:00Z') + 9_998 * H,
        10_000,
      );
      expect(buckets).toHaveLength(10_000);
      // 10,000 hours are 60 weeks with two DST changes: two a week, and every hour of the week before
      // each change (about 1,000 in all); one per hour would be 10,000 and more
      expect(lookups.mock.calls.length).toBeLessThan(2_000);
    } finally {
      lookups.mockRestore();
    }
  });
});
