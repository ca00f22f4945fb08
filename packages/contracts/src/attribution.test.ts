import { ATTRIBUTION_LIMITS, cutText, referrerHost } from './attribution';

describe('referrerHost', () => {
  test.each([
    ['news.example', 'news.example'],
    ['News.EXAMPLE', 'news.example'],
    ['news.example.', 'news.example'],
    ['  news.example ', 'news.example'],
    ['news.example:8080', 'news.example'],
    ['Bücher.example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['https://www.google.com/search?q=what+the+reader+searched', 'www.google.com'],
    ['HTTP://User:secret@News.Example:8443/private/path#x', 'news.example'],
    ['android-app://com.google.android.gm/', 'com.google.android.gm'],
    ['127.1', '127.0.0.1'],
    ['[2001:DB8::1]', '[2001:db8::1]'],
    ['%6Eews.example', 'news.example'],
  ])('when referrer is %j, then the host %j is kept', (input, host) => {
    expect(referrerHost(input)).toBe(host);
  });

  test.each([
    '',
    '   ',
    'news example',
    'news.example/path',
    'news.example?q=1',
    'news.example#x',
    'user@news.example',
    'javascript:alert(1)',
    'mailto:a@news.example',
    'data:text/html,x',
    'http://',
    'https://?q=1',
    '[::1',
    'news\\example',
    'exa<mple.com',
    `${'a'.repeat(63)}.`.repeat(4) + 'example',
  ])('when referrer is %j, then it holds no host', (input) => {
    expect(referrerHost(input)).toBeUndefined();
  });

  test('when a host is at the length limit, then it is kept; one longer is not', () => {
    const label = 'a'.repeat(63);
    const host = `${label}.${label}.${label}.${'b'.repeat(ATTRIBUTION_LIMITS.referrerMax - 3 * 64)}`;
    expect(host).toHaveLength(ATTRIBUTION_LIMITS.referrerMax);
    expect(referrerHost(host)).toBe(host);
    expect(referrerHost(`${host}a`)).toBeUndefined();
  });
});

describe('cutText', () => {
  test('when text is longer than the bound, then it is cut, never inside a surrogate pair', () => {
    expect(cutText('abc', 5)).toBe('abc');
    expect(cutText('abcdef', 3)).toBe('abc');
    expect(cutText('ab\ud83d\ude00', 3)).toBe('ab');
    expect(cutText('ab\ud83d\ude00', 4)).toBe('ab\ud83d\ude00');
  });
});
