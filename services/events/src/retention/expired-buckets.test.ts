import { expiredBuckets, firstKeptDay, isExpiredDay, isPastRetention } from './expired-buckets';

const now = new Date('2026-11-22T10:00:00Z');

describe('retention', () => {
  test('when buckets are listed, then only buckets whose whole day is older than the retention are expired', () => {
    const names = [
      'events_20261122',
      'events_20261121',
      'events_20261120',
      'events_20261119',
      'events_20250101',
      'api_keys',
      'events_x_20200101',
      'other_20200101',
      'events_2020010',
    ];
    // 2 days: the 20th ended at 21st 00:00, more than 48 h before now? no (34 h): kept; the 19th ended 58 h ago: expired
    expect(expiredBuckets(names, 'events', now, 2)).toEqual(['events_20261119', 'events_20250101']);
  });

  test('when an event is as old as the retention allows, then it is kept; a day older and it is past retention', () => {
    expect(isPastRetention(new Date('2026-11-20T00:00:00Z'), now, 2)).toBe(false);
    expect(isPastRetention(new Date('2026-11-19T23:59:59Z'), now, 2)).toBe(true);
    expect(isPastRetention(new Date('2026-11-22T09:00:00Z'), now, 1)).toBe(false);
  });

  test('when the first kept day is asked, then the day before it is expired and it is not', () => {
    for (const days of [1, 2, 10]) {
      const first = firstKeptDay(now, days);
      expect(isExpiredDay(new Date(first), now, days)).toBe(false);
      expect(isExpiredDay(new Date(first - 86_400_000), now, days)).toBe(true);
    }
  });
});
