import { isPublicSuffix, isPublicSuffixWildcard } from './public-suffix';

describe('isPublicSuffix', () => {
  test.each([
    'com',
    'co.uk',
    'uk',
    'github.io',
    'blogspot.com',
    's3.amazonaws.com',
    'xn--p1ai',
    'COM',
    'co.uk.',
    'foo.sch.uk',
  ])('when the host is %j (a Public Suffix List entry, ICANN or private section), then it is a public suffix', (host) =>
    expect(isPublicSuffix(host)).toBe(true),
  );

  test.each([
    'example.com',
    'example.co.uk',
    'user.github.io',
    'city.kawasaki.jp',
    'cdn.example',
    'example',
    'localhost',
    '192.0.2.1',
    'xn--90a3ac.xn--p1ai',
  ])('when the host is %j (a registrable name, below a suffix, unlisted or an address), then it is not', (host) =>
    expect(isPublicSuffix(host)).toBe(false),
  );
});

describe('isPublicSuffixWildcard', () => {
  test.each([
    ['*.com', true],
    ['*.co.uk', true],
    ['*.github.io', true],
    ['*.blogspot.com', true],
    ['*.example.com', false],
    ['*.example.co.uk', false],
    ['com', false],
    ['example.com', false],
  ])('when the entry is %j, then %s', (entry, expected) => expect(isPublicSuffixWildcard(entry)).toBe(expected));
});
