import { formatZoned, isTimeZone, offsetMs, zonedInstant } from '../../storage/zone-clock';
import { intervalStart, nextIntervalStart, timeBuckets } from './zoned-time';

const iso = (t: number) => new Date(t).toISOString();
const at = (s: string) => Date.parse(s);

describe('time zones', () => {
  test.each([
    ['UTC', '2026-10-15T12:00:00Z', 0],
    ['Asia/Kolkata', '2026-10-15T12:00:00Z', 330],
    ['Asia/Kathmandu', '2026-10-15T12:00:00Z', 345],
    ['Europe/Berlin', '2026-03-29T00:59:59Z', 60],
    ['Europe/Berlin', '2026-03-29T01:00:00Z', 120],
    ['America/New_York', '2026-11-01T05:59:59Z', -240],
    ['America/New_York', '2026-11-01T06:00:00Z', -300],
  ])('when the offset of %s at %s is asked, then it is %d minutes', (zone, instant, minutes) => {
    expect(offsetMs(zone, at(instant)) / 60_000).toBe(minutes);
  });

  test('when a wall time falls in a DST gap, then it moves forward by the gap (a skipped midnight starts the day when the clocks jumped); a repeated one is its first occurrence', () => {
    // Berlin 2026-03-29 02:30 does not exist (02:00 -> 03:00 at 01:00Z): 03:30 CEST, as Temporal's "compatible"
    expect(iso(zonedInstant('Europe/Berlin', 2026, 3, 29, 2, 30))).toBe('2026-03-29T01:30:00.000Z');
    // New York 2026-11-01 01:30 happens twice: first at 05:30Z (EDT)
    expect(iso(zonedInstant('America/New_York', 2026, 11, 1, 1, 30))).toBe('2026-11-01T05:30:00.000Z');
    // Santiago skips midnight on 2026-09-06: the day starts at 01:00 local
    expect(formatZoned('America/Santiago', zonedInstant('America/Santiago', 2026, 9, 6))).toBe(
      '2026-09-06T01:00:00-03:00',
    );
  });

  test('when an instant is formatted in a zone, then it is ISO 8601 with that zone offset', () => {
    expect(formatZoned('Europe/Berlin', at('2026-03-28T23:00:00Z'))).toBe('2026-03-29T00:00:00+01:00');
    expect(formatZoned('Asia/Kolkata', at('2026-10-14T18:30:00Z'))).toBe('2026-10-15T00:00:00+05:30');
    expect(formatZoned('UTC', at('2026-10-15T00:00:00Z'))).toBe('2026-10-15T00:00:00+00:00');
    expect(formatZoned('America/St_Johns', at('2026-01-15T03:30:00Z'))).toBe('2026-01-15T00:00:00-03:30');
  });

  test.each([
    ['UTC', true],
    ['Asia/Kolkata', true],
    ['America/Argentina/Buenos_Aires', true],
    ['Mars/Olympus', false],
    ['+05:30', false],
    ['', false],
    ['../etc', false],
  ])('when %j is checked, then it is a time zone: %s', (zone, ok) => {
    expect(isTimeZone(zone)).toBe(ok);
  });
});

describe('time buckets', () => {
  test('when a DST spring day in Berlin is bucketed by day, then it is 23 hours long; the autumn one 25', () => {
    const spring = intervalStart('day', 'Europe/Berlin', at('2026-03-29T12:00:00Z'));
    expect(nextIntervalStart('day', 'Europe/Berlin', spring) - spring).toBe(23 * 3_600_000);
    const autumn = intervalStart('day', 'Europe/Berlin', at('2026-10-25T12:00:00Z'));
    expect(nextIntervalStart('day', 'Europe/Berlin', autumn) - autumn).toBe(25 * 3_600_000);
  });

  test('when Kolkata is bucketed by hour, then buckets start at :30 UTC', () => {
    const b = timeBuckets('hour', 'Asia/Kolkata', at('2026-10-15T00:00:00Z'), at('2026-10-15T02:59:59.999Z'), 100)!;
    expect(b.map((x) => iso(x.time))).toEqual([
      '2026-10-14T23:30:00.000Z',
      '2026-10-15T00:30:00.000Z',
      '2026-10-15T01:30:00.000Z',
      '2026-10-15T02:30:00.000Z',
    ]);
    expect(iso(b[0]!.start)).toBe('2026-10-15T00:00:00.000Z');
    expect(iso(b[3]!.end)).toBe('2026-10-15T03:00:00.000Z');
  });

  test('when the autumn night in New York is bucketed by hour, then the repeated 01:00 is two buckets', () => {
    const b = timeBuckets('hour', 'America/New_York', at('2026-11-01T04:00:00Z'), at('2026-11-01T07:59:59.999Z'), 100)!;
    expect(b.map((x) => formatZoned('America/New_York', x.time))).toEqual([
      '2026-11-01T00:00:00-04:00',
      '2026-11-01T01:00:00-04:00',
      '2026-11-01T01:00:00-05:00',
      '2026-11-01T02:00:00-05:00',
    ]);
  });

  test('when weeks and months are bucketed, then weeks start on Monday and months on the 1st, in the zone', () => {
    const weeks = timeBuckets('week', 'Europe/Berlin', at('2026-10-01T00:00:00Z'), at('2026-10-31T00:00:00Z'), 100)!;
    expect(formatZoned('Europe/Berlin', weeks[0]!.time)).toBe('2026-09-28T00:00:00+02:00');
    expect(formatZoned('Europe/Berlin', weeks[4]!.time)).toBe('2026-10-26T00:00:00+01:00');
    const months = timeBuckets('month', 'Asia/Kolkata', at('2026-01-15T00:00:00Z'), at('2026-03-15T00:00:00Z'), 100)!;
    expect(months.map((m) => formatZoned('Asia/Kolkata', m.time))).toEqual([
      '2026-01-01T00:00:00+05:30',
      '2026-02-01T00:00:00+05:30',
      '2026-03-01T00:00:00+05:30',
    ]);
  });

  test('when buckets are contiguous, then each ends where the next starts and the range is covered exactly', () => {
    const from = at('2026-10-20T07:13:00Z');
    const to = at('2026-11-03T05:00:00Z') - 1;
    const b = timeBuckets('day', 'America/New_York', from, to, 100)!;
    expect(b[0]!.start).toBe(from);
    expect(b[b.length - 1]!.end).toBe(to + 1);
    for (let i = 1; i < b.length; i++) expect(b[i]!.start).toBe(b[i - 1]!.end);
  });

  test('when there would be more buckets than allowed, then there are none', () => {
    expect(timeBuckets('hour', 'UTC', at('2025-01-01T00:00:00Z'), at('2026-12-31T00:00:00Z'), 10_000)).toBeUndefined();
  });
});
