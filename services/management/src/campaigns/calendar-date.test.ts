import { isCalendarDate, todayIn } from './calendar-date';

describe('isCalendarDate', () => {
  test.each(['2024-02-29', '2023-12-31', '2000-02-29', '0001-01-01', '9999-12-31'])(
    'when %s is a real day, then it is accepted',
    (d) => {
      expect(isCalendarDate(d)).toBe(true);
    },
  );

  test.each([
    '2023-02-29',
    '1900-02-29',
    '2024-04-31',
    '2024-13-01',
    '2024-00-10',
    '2024-01-00',
    '0000-01-01',
    '2024-1-01',
    '2024-01-1',
    '24-01-01',
    '2024/01/01',
    '2024-01-01T00:00:00Z',
    ' 2024-01-01',
    '2024-01-01 ',
    '',
    'today',
  ])('when %j is not a real YYYY-mm-dd day, then it is refused', (d) => {
    expect(isCalendarDate(d)).toBe(false);
  });
});

describe('todayIn', () => {
  const instant = new Date('2024-03-10T23:30:00Z');

  test('when it is late evening in UTC, then it is already tomorrow east of it and still today west of it', () => {
    expect(todayIn('UTC', instant)).toBe('2024-03-10');
    expect(todayIn('Europe/Berlin', instant)).toBe('2024-03-11');
    expect(todayIn('America/New_York', instant)).toBe('2024-03-10');
    expect(todayIn('Pacific/Kiritimati', new Date('2024-03-10T10:30:00Z'))).toBe('2024-03-11');
  });

  test('when the time zone is unknown, then UTC is used', () => {
    expect(todayIn('Mars/Olympus', instant)).toBe('2024-03-10');
  });
});
