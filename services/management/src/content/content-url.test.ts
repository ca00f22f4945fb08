import {
  URL_MAX_LENGTH,
  canonicalContentUrl,
  contentToken,
  normalizeContentUrl,
  pageKeyOf,
  samePage,
} from './content-url';

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

describe('canonical content URLs', () => {
  test.each([
    ['https://shop.example/guide/?utm_source=fb&fbclid=x#top', 'https://shop.example/guide'],
    ['https://shop.example/list?page=2&cat=shoes', 'https://shop.example/list?cat=shoes&page=2'],
    ['https://xn--bcher-kva.example/', 'https://xn--bcher-kva.example/'],
  ])('when %j is pasted, then its canonical URL is %j', (url, canonical) => {
    expect(canonicalContentUrl(url)).toBe(canonical);
  });

  test('when a normalised URL is longer than the limit once canonical, then it has none', () => {
    expect(canonicalContentUrl(`https://shop.example/?q=${"'".repeat(700)}`)).toBeUndefined();
  });

  test('when an item has a stored page key, then it is used; an item from before has it computed from its canonical URL', () => {
    expect(pageKeyOf({ url: 'https://shop.example/a/', page_key: 'storedKeyOfThePage0000' })).toBe(
      'storedKeyOfThePage0000',
    );
    expect(pageKeyOf({ url: 'https://shop.example/a/?utm_term=x' })).toBe(contentToken('https://shop.example/a'));
  });

  test('when the same page is among the items, then samePage names it by page key or token', () => {
    const items = [
      { token: 't1', url: 'https://shop.example/a?utm_source=mail' },
      { token: 't2', url: 'https://shop.example/b', page_key: contentToken('https://shop.example/b') },
    ];
    expect(samePage(items, { token: 'x', page_key: contentToken('https://shop.example/a') })).toBe('t1');
    expect(samePage(items, { token: 'x', page_key: contentToken('https://shop.example/b') })).toBe('t2');
    expect(samePage(items, { token: 't2', page_key: contentToken('https://shop.example/c') })).toBe('t2');
    expect(samePage(items, { token: 'x', page_key: contentToken('https://shop.example/c') })).toBeUndefined();
  });

  test('when the same page is pasted in any form, then its token is the one of its canonical URL, pinned so no release changes it', () => {
    expect(contentToken(canonicalContentUrl('https://SHOP.example/guide/?utm_source=x#top')!)).toBe(
      'NT6D0QKcCcjOkgxJJllJxj',
    );
  });
});
