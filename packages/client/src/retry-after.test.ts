import { parseRetryAfter } from './retry-after';

const NOW = Date.parse('2026-03-01T12:00:00Z');

describe('parseRetryAfter', () => {
  test('when the header is delay-seconds, then it is that many milliseconds', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter(' 7 ', NOW)).toBe(7000);
  });

  test('when the header is an HTTP date, then it is the time until then, never negative', () => {
    expect(parseRetryAfter('Sun, 01 Mar 2026 12:00:05 GMT', NOW)).toBe(5000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 11:59:00 GMT', NOW)).toBe(0);
  });

  test('when the header is absent or unreadable, then there is no wait to honour', () => {
    for (const value of [null, undefined, '', '1.5', '-3', 'soon', 'Mon, 99 Foo 2026'])
      expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});
