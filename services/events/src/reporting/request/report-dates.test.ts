import { utcDayIndex } from '../../storage/time-units';
import { parseReportDate } from './report-dates';

const iso = (d: Date | undefined) => d?.toISOString();

describe('parseReportDate', () => {
  test('when the documented form YYYY-MM-DD HH:MM:SS is given, then it is UTC and covers the whole second', () => {
    const d = parseReportDate('2026-11-20 12:00:00');
    expect(iso(d?.start)).toBe('2026-11-20T12:00:00.000Z');
    expect(iso(d?.end)).toBe('2026-11-20T12:00:00.999Z');
  });

  test.each([
    ['2026-11-20T12:00:00', '2026-11-20T12:00:00.000Z', '2026-11-20T12:00:00.999Z'],
    ['2026-11-20T12:00:00Z', '2026-11-20T12:00:00.000Z', '2026-11-20T12:00:00.999Z'],
    ['2026-11-20T14:30:00+02:30', '2026-11-20T12:00:00.000Z', '2026-11-20T12:00:00.999Z'],
    ['2026-11-20T07:00:00-0500', '2026-11-20T12:00:00.000Z', '2026-11-20T12:00:00.999Z'],
    ['2026-11-20T12:00:00.5Z', '2026-11-20T12:00:00.500Z', '2026-11-20T12:00:00.500Z'],
    ['2026-11-20T12:00:00.123456Z', '2026-11-20T12:00:00.123Z', '2026-11-20T12:00:00.123Z'],
    ['2026-11-20', '2026-11-20T00:00:00.000Z', '2026-11-20T23:59:59.999Z'],
    ['2024-02-29 23:59:59', '2024-02-29T23:59:59.000Z', '2024-02-29T23:59:59.999Z'],
  ])('when %s is given, then it spans %s .. %s', (text, start, end) => {
    const d = parseReportDate(text);
    expect(iso(d?.start)).toBe(start);
    expect(iso(d?.end)).toBe(end);
  });

  test.each([
    '',
    'yesterday',
    '2026-11-20 12:00',
    '2026-11-20 24:00:00',
    '2026-11-20 12:60:00',
    '2026-11-20 12:00:60',
    '2026-02-30 00:00:00',
    '2025-02-29',
    '2026-13-01',
    '2026-11-20T12:00:00+25:00',
    '2026-11-20 12:00:00 ',
    '20261120',
    '1969-12-31 23:59:59',
    '2026-11-20T12:00:00.Z',
  ])('when %j is given, then it is rejected', (text) => {
    expect(parseReportDate(text)).toBeUndefined();
  });

  test('when two instants share a UTC day, then they have the same day index', () => {
    expect(utcDayIndex(new Date('2026-11-20T00:00:00Z'))).toBe(utcDayIndex(new Date('2026-11-20T23:59:59.999Z')));
    expect(utcDayIndex(new Date('2026-11-21T00:00:00Z'))).toBe(utcDayIndex(new Date('2026-11-20T00:00:00Z')) + 1);
  });
});
