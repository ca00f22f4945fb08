import { longestPeriodMs, periodAt, periodOfKey } from './salt-period';

const at = (iso: string) => Date.parse(iso);

describe('salt periods', () => {
  test('when the period is a day, then it is the UTC day, keyed by its date', () => {
    expect(periodAt('day', at('2026-03-10T23:59:59.999Z'))).toEqual({
      key: '2026-03-10',
      start: at('2026-03-10T00:00:00Z'),
      end: at('2026-03-11T00:00:00Z'),
    });
    expect(periodAt('day', at('2026-03-11T00:00:00.000Z')).key).toBe('2026-03-11');
  });

  test('when the period is a week, then it is the ISO week from Monday, across a year end too', () => {
    // 2026-03-08 is a Sunday: still the week of Monday 2026-03-02
    expect(periodAt('week', at('2026-03-08T23:00:00Z'))).toEqual({
      key: '2026-03-02',
      start: at('2026-03-02T00:00:00Z'),
      end: at('2026-03-09T00:00:00Z'),
    });
    expect(periodAt('week', at('2026-03-09T00:00:00Z')).key).toBe('2026-03-09');
    // Friday 2027-01-01 belongs to the ISO week that started on Monday 2026-12-28
    expect(periodAt('week', at('2027-01-01T12:00:00Z')).key).toBe('2026-12-28');
  });

  test('when the period is a month, then it is the calendar month in UTC, February and December included', () => {
    expect(periodAt('month', at('2028-02-29T12:00:00Z'))).toEqual({
      key: '2028-02-01',
      start: at('2028-02-01T00:00:00Z'),
      end: at('2028-03-01T00:00:00Z'),
    });
    expect(periodAt('month', at('2026-12-31T23:59:59Z')).end).toBe(at('2027-01-01T00:00:00Z'));
  });

  test('when any instant is looked at, then it lies in its period and the period is never longer than the longest', () => {
    for (const period of ['day', 'week', 'month'] as const)
      for (let t = at('2025-12-01T00:00:00Z'); t < at('2027-02-01T00:00:00Z'); t += 5 * 3_600_000 + 17) {
        const span = periodAt(period, t);
        expect(span.start <= t && t < span.end).toBe(true);
        expect(span.end - span.start).toBeLessThanOrEqual(longestPeriodMs(period));
      }
  });

  test('when a salt key is read back, then it names its own period, and a week key read under a day setting names that day', () => {
    for (const period of ['day', 'week', 'month'] as const)
      for (let t = at('2026-12-01T00:00:00Z'); t < at('2027-02-01T00:00:00Z'); t += 7 * 3_600_000 + 13) {
        const span = periodAt(period, t);
        expect(periodOfKey(period, span.key)).toEqual(span);
      }
    expect(periodOfKey('day', '2026-03-09').end).toBe(at('2026-03-10T00:00:00Z'));
  });
});
