import { URL_MAX_LENGTH, contentToken, normalizeContentUrl } from './content-url';

describe('normalizeContentUrl', () => {
  test.each([
    ['https://example.com/a?b=1#c', 'https://example.com/a?b=1#c'],
    ['  https://example.com/a  ', 'https://example.com/a'],
    ['HTTP://Example.COM:80/Path', 'http://example.com/Path'],
    ['https://example.com', 'https://example.com/'],
    ['https://bücher.example/x y', 'https://xn--bcher-kva.example/x%20y'],
  ])('when %j is given, then it becomes %j', (input, expected) => {
    expect(normalizeContentUrl(input)).toBe(expected);
  });

  test.each([
    'ftp://example.com/a',
    'javascript:alert(1)',
    'data:text/html,hi',
    '/relative/path',
    '//example.com/a',
    'example.com',
    'https://user:pw@example.com/',
    'http://',
    'not a url',
    `https://example.com/${'a'.repeat(URL_MAX_LENGTH)}`,
  ])('when %j is given, then it is refused', (input) => {
    expect(normalizeContentUrl(input)).toBeUndefined();
  });
});

describe('contentToken', () => {
  test('when the same URL is tokenised twice, then the token is the same, URL-safe and at least 128 bits', () => {
    const a = contentToken('https://example.com/a');
    expect(contentToken('https://example.com/a')).toBe(a);
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  test('when URLs differ, then tokens differ', () => {
    expect(contentToken('https://example.com/a')).not.toBe(contentToken('https://example.com/b'));
  });
});
