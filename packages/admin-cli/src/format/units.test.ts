import { formatBytes, formatCount, formatSeconds } from './units';

describe('units', () => {
  test.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1536, '1.5 KiB'],
    [5 * 1024 * 1024, '5.0 MiB'],
    [3 * 1024 ** 4, '3.0 TiB'],
    [-1, 'unlimited'],
  ])('when %d bytes are shown, then they read %s', (n, text) => {
    expect(formatBytes(n)).toBe(text);
  });

  test('when counts and durations are shown, then counts are grouped by thousands and durations use the largest whole unit', () => {
    expect([formatCount(0), formatCount(999), formatCount(1234567)]).toEqual(['0', '999', '1,234,567']);
    expect([formatSeconds(259200), formatSeconds(300), formatSeconds(90)]).toEqual(['72 h', '5 min', '90 s']);
  });
});
