import { canonicalPageUrl, PAGE_URL_MAX, type CanonicalPageUrl } from './page-url';

const canonical = (input: string): string | undefined => {
  const r = canonicalPageUrl(input);
  return r.ok ? r.url : undefined;
};

describe('canonicalPageUrl', () => {
  test.each([
    // tracking never splits a page
    ['https://news.example/guide?utm_source=fb&utm_medium=social&fbclid=IwAR0xyz', 'https://news.example/guide'],
    ['https://news.example/guide?gclid=Cj0KCQiA&gad_source=1&gbraid=0AAA&wbraid=1', 'https://news.example/guide'],
    ['https://news.example/guide?msclkid=a&yclid=b&twclid=c&ttclid=d&li_fat_id=e', 'https://news.example/guide'],
    ['https://news.example/guide?igshid=a&mc_cid=b&mc_eid=c&_ga=2.1.2&_gl=1*abc&dclid=x', 'https://news.example/guide'],
    ['https://news.example/guide?mkt_tok=a&_hsenc=b&_hsmi=c&pk_campaign=d&mtm_source=e', 'https://news.example/guide'],
    ['https://news.example/guide?UTM_Source=FB&Fbclid=x', 'https://news.example/guide'],
    ['https://news.example/guide?utm_anything_new=1&utm_=2', 'https://news.example/guide'],
    ['https://news.example/guide?utm%5Fsource=fb', 'https://news.example/guide'],
    // fragment, host case, default port, trailing dot, trailing slash
    ['https://news.example/guide#section-2', 'https://news.example/guide'],
    ['https://news.example/guide/#', 'https://news.example/guide'],
    ['HTTPS://NEWS.Example:443/guide/', 'https://news.example/guide'],
    ['http://news.example:80/guide', 'http://news.example/guide'],
    ['https://news.example./guide', 'https://news.example/guide'],
    ['https://news.example/guide///', 'https://news.example/guide'],
    ['https://news.example', 'https://news.example/'],
    ['https://news.example/', 'https://news.example/'],
    ['https://news.example//', 'https://news.example/'],
    ['https://news.example/?', 'https://news.example/'],
    ['https://news.example/?&&', 'https://news.example/'],
    // parameters that identify content keep pages apart, in one order
    ['https://blog.example/?p=42', 'https://blog.example/?p=42'],
    ['https://shop.example/item?id=7&utm_campaign=spring', 'https://shop.example/item?id=7'],
    ['https://shop.example/list?page=2&cat=shoes', 'https://shop.example/list?cat=shoes&page=2'],
    ['https://shop.example/list?cat=shoes&page=2', 'https://shop.example/list?cat=shoes&page=2'],
    // repeated: values keep their order, an exact repeat is dropped; empty: the bare name
    ['https://shop.example/f?tag=b&tag=a', 'https://shop.example/f?tag=b&tag=a'],
    ['https://shop.example/f?tag=a&x=1&tag=a', 'https://shop.example/f?tag=a&x=1'],
    ['https://shop.example/f?print=&amp', 'https://shop.example/f?amp&print'],
    ['https://shop.example/f?print', 'https://shop.example/f?print'],
    ['https://shop.example/f?=x', 'https://shop.example/f?=x'],
    // + and %20 are both a space; a plus is %2B; escapes in one case; needless escapes decoded
    ['https://search.example/?q=running+shoes', 'https://search.example/?q=running+shoes'],
    ['https://search.example/?q=running%20shoes', 'https://search.example/?q=running+shoes'],
    ['https://search.example/?q=c%2B%2b', 'https://search.example/?q=c%2B%2B'],
    ['https://search.example/?q=%7e%41%2f', 'https://search.example/?q=~A/'],
    ['https://search.example/?q=a=b&r=x%26y', 'https://search.example/?q=a%3Db&r=x%26y'],
    ["https://search.example/?q='quoted'", 'https://search.example/?q=%27quoted%27'],
    ['https://search.example/?q={x}|[y]', 'https://search.example/?q=%7Bx%7D%7C%5By%5D'],
    ['https://search.example/?q=%ZZ&r=%', 'https://search.example/?q=%25ZZ&r=%25'],
    ['https://search.example/?q=%e9t%C3%A9', 'https://search.example/?q=%E9t%C3%A9'],
    ['https://search.example/?q=été', 'https://search.example/?q=%C3%A9t%C3%A9'],
    // paths: case kept, unreserved decoded, other escapes upper-cased, %2F not a separator
    ['https://docs.example/API/Guide', 'https://docs.example/API/Guide'],
    ['https://docs.example/%7euser/%61bc', 'https://docs.example/~user/abc'],
    ['https://docs.example/a%2fb/c%3bd', 'https://docs.example/a%2Fb/c%3Bd'],
    ['https://docs.example/a|b^c', 'https://docs.example/a%7Cb%5Ec'],
    ['https://docs.example/a b/ä', 'https://docs.example/a%20b/%C3%A4'],
    ['https://docs.example/a/./b/../c/', 'https://docs.example/a/c'],
    ['https://docs.example/a/%2e%2E/c', 'https://docs.example/c'],
    ['https://docs.example/;jsessionid=1', 'https://docs.example/;jsessionid=1'],
    // hosts: IDN to punycode, IPv4 and IPv6 normalised, ports kept when not the default
    ['https://Bücher.example/ä', 'https://xn--bcher-kva.example/%C3%A4'],
    ['https://xn--bcher-kva.example/', 'https://xn--bcher-kva.example/'],
    ['https://例え.テスト/', 'https://xn--r8jz45g.xn--zckzah/'],
    ['http://[0:0:0:0:0:0:0:1]:8080/x/', 'http://[::1]:8080/x'],
    ['http://[2001:DB8::1]/', 'http://[2001:db8::1]/'],
    ['http://0x7f.1/', 'http://127.0.0.1/'],
    ['https://news.example:8443/a', 'https://news.example:8443/a'],
    // credentials are never kept; surrounding spaces are trimmed by the URL parser
    ['https://user:secret@news.example/a', 'https://news.example/a'],
    ['  https://news.example/a  ', 'https://news.example/a'],
    // a query of thousands of tracking parameters shrinks to the page
    [
      `https://news.example/a?${Array.from({ length: 150 }, (_, i) => `utm_x${i}=${i}`).join('&')}`,
      'https://news.example/a',
    ],
  ])('when %j is canonicalised, then it becomes %j', (input, expected) => {
    expect(canonical(input)).toBe(expected);
  });

  test.each([
    ['', 'not_a_url'],
    ['/guide?utm_source=fb', 'not_a_url'],
    ['//news.example/guide', 'not_a_url'],
    ['news.example/guide', 'not_a_url'],
    ['not a url', 'not_a_url'],
    ['https://', 'not_a_url'],
    ['http://exa mple.com/', 'not_a_url'],
    ['http://[::1/', 'not_a_url'],
    ['javascript:alert(document.cookie)', 'not_http'],
    ['data:text/html,<script>alert(1)</script>', 'not_http'],
    ['ftp://files.example/a', 'not_http'],
    ['file:///etc/passwd', 'not_http'],
    ['about:blank', 'not_http'],
    ['mailto:a@news.example', 'not_http'],
    [`https://news.example/${'a'.repeat(PAGE_URL_MAX)}`, 'too_long'],
    [`https://news.example/?q=${"'".repeat(700)}`, 'too_long'],
  ])('when %j is given, then it is refused as %s', (input, reason) => {
    expect(canonicalPageUrl(input)).toMatchObject({ ok: false, reason });
  });

  test('when a URL is at the limit once canonical, then it is accepted; its tracking parameters do not count', () => {
    const base = 'https://news.example/';
    const page = `${base}${'a'.repeat(PAGE_URL_MAX - base.length)}`;
    expect(canonical(page)).toBe(page);
    expect(canonical(`${page}?utm_source=${'x'.repeat(5000)}`)).toBe(page);
  });

  test('when the query carries UTM values, then they are reported decoded (first non-empty of each, cut to 256) and removed', () => {
    const r = canonicalPageUrl(
      'https://news.example/guide/?utm_source=&utm_source=facebook&UTM_MEDIUM=paid+social&utm_campaign=Spring%20Sale%21&utm_content=%E9&utm_term=' +
        'x'.repeat(300) +
        '&utm_id=42&p=1#top',
    ) as CanonicalPageUrl;
    expect(r.ok).toBe(true);
    expect(r.url).toBe('https://news.example/guide?p=1');
    expect(r.utm).toEqual({
      utm_source: 'facebook',
      utm_medium: 'paid social',
      utm_campaign: 'Spring Sale!',
      utm_content: '\ufffd',
      utm_term: 'x'.repeat(256),
    });
    expect((canonicalPageUrl('https://news.example/') as CanonicalPageUrl).utm).toEqual({});
  });

  test('when a UTM value is cut inside a surrogate pair, then the half is dropped', () => {
    const r = canonicalPageUrl(`https://news.example/?utm_source=${'a'.repeat(255)}%F0%9F%98%80`) as CanonicalPageUrl;
    expect(r.utm.utm_source).toBe('a'.repeat(255));
  });
});

// a small seeded PRNG (mulberry32): the same samples on every run, so a failure reproduces
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('canonicalPageUrl properties', () => {
  const random = prng(20261126);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const PIECES = [
    'a',
    'Z',
    '0',
    '-',
    '.',
    '_',
    '~',
    '%',
    '%2',
    '%2f',
    '%2F',
    '%7e',
    '%e9',
    '%C3%A9',
    '%ZZ',
    '+',
    ' ',
    '/',
    '//',
    '!',
    "'",
    '(',
    '*',
    ',',
    ';',
    ':',
    '@',
    '=',
    '&',
    '?',
    '|',
    '^',
    '[',
    ']',
    '{',
    '`',
    '"',
    '<',
    'é',
    '\u2603',
    '\ud83d\ude00',
    '\\',
    '#',
    '\t',
    '..',
    '.',
  ];
  const text = (n: number): string => Array.from({ length: n }, () => pick(PIECES)).join('');
  const HOSTS = [
    'news.example',
    'NEWS.Example',
    'bücher.example',
    'xn--bcher-kva.example',
    '127.0.0.1',
    '[::1]',
    '[2001:DB8::1]',
    'a.example.',
    'user:pw@a.example',
    'a.example:8080',
    'a.example:443',
  ];
  const NAMES = ['p', 'id', 'q', 'utm_source', 'UTM_Campaign', 'fbclid', 'gclid', '_ga', 'tag', 'a b', 'x%3Dy', ''];
  const randomUrl = (): string => {
    const params = Array.from({ length: Math.floor(random() * 8) }, () => {
      const name = random() < 0.7 ? pick(NAMES) : text(1 + Math.floor(random() * 4));
      return random() < 0.2 ? name : `${name}=${text(Math.floor(random() * 6))}`;
    });
    const query = params.length > 0 || random() < 0.2 ? `?${params.join('&')}` : '';
    const fragment = random() < 0.3 ? `#${text(3)}` : '';
    return `${pick(['http', 'https', 'HTTPS', 'ftp'])}://${pick(HOSTS)}/${text(Math.floor(random() * 12))}${query}${fragment}`;
  };

  test('when thousands of generated URLs are canonicalised, then the result is idempotent, its own WHATWG href, within the limit, and never throws', () => {
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      const input = randomUrl();
      const first = canonicalPageUrl(input);
      if (!first.ok) continue;
      accepted++;
      const again = canonicalPageUrl(first.url);
      if (!again.ok || again.url !== first.url)
        throw new Error(`not idempotent: ${input} -> ${first.url} -> ${JSON.stringify(again)}`);
      if (new URL(first.url).href !== first.url) throw new Error(`not its own href: ${input} -> ${first.url}`);
      const names = [...new URL(first.url).searchParams.keys()].map((n) => n.toLowerCase());
      if (/[#\s]/.test(first.url) || names.some((n) => n.startsWith('utm_') || ['fbclid', 'gclid', '_ga'].includes(n)))
        throw new Error(`kept a fragment or tracking: ${input} -> ${first.url}`);
      expect(first.url.length).toBeLessThanOrEqual(PAGE_URL_MAX);
    }
    expect(accepted).toBeGreaterThan(10_000);
  });

  test('when the parameters of a URL are shuffled or tracking is added, then the canonical form is the same', () => {
    for (let i = 0; i < 2000; i++) {
      const params = Array.from(
        { length: 1 + Math.floor(random() * 6) },
        (_, k) => `${pick(['p', 'id', 'q', 'cat', 'page'])}${k}=${encodeURIComponent(text(3))}`,
      );
      const shuffled = [...params].sort(() => random() - 0.5);
      const tracked = [
        ...shuffled,
        `utm_source=${encodeURIComponent(text(2))}`,
        `fbclid=${Math.floor(random() * 1e9)}`,
      ].sort(() => random() - 0.5);
      const a = canonical(`https://news.example/guide?${params.join('&')}`);
      expect(canonical(`https://NEWS.example/guide/?${tracked.join('&')}#${text(2)}`)).toBe(a);
    }
  });
});
