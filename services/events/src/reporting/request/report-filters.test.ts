import { campaignUrls, urlFilterValues } from './report-filters';

const scope = (over: { urls?: string[] } = {}) => ({
  urls: ['https://a.example/1', 'https://a.example/2?x=1', `https://a.example/${'l'.repeat(2100)}`],
  start_date: '2026-03-28',
  end_date: '2026-03-29',
  timezone: 'Europe/Berlin',
  ...over,
});

describe('url filter values', () => {
  test('when a url is given, then both its canonical form and the form given are matched, each once', () => {
    expect(urlFilterValues(['https://News.example/guide/?utm_source=fb#top'])).toEqual([
      'https://news.example/guide',
      'https://News.example/guide/?utm_source=fb#top',
    ]);
    expect(urlFilterValues(['https://news.example/guide'])).toEqual(['https://news.example/guide']);
    expect(urlFilterValues(['https://news.example/guide/', 'https://news.example/guide'])).toEqual([
      'https://news.example/guide',
      'https://news.example/guide/',
    ]);
  });

  test('when a value has no canonical form, then it is matched as given', () => {
    expect(urlFilterValues(['', '/relative', 'javascript:alert(1)'])).toEqual(['', '/relative', 'javascript:alert(1)']);
    expect(urlFilterValues(undefined)).toBeUndefined();
  });
});

describe('campaignUrls', () => {
  test('when no url filter is given, then every campaign URL an event can hold is kept (one past 2,048 characters is not)', () => {
    expect(campaignUrls(scope(), undefined)).toEqual(['https://a.example/1', 'https://a.example/2?x=1']);
  });

  test('when a url filter is given, then only the campaign URLs it names are kept', () => {
    expect(campaignUrls(scope(), ['https://a.example/2?x=1', 'https://b.example/'])).toEqual([
      'https://a.example/2?x=1',
    ]);
    expect(campaignUrls(scope(), ['https://b.example/'])).toEqual([]);
  });

  test('when the campaign has 10,000 URLs, then all are kept, and a filter picks among them', () => {
    const urls = Array.from({ length: 10_000 }, (_, i) => `https://shop.example/p/${i}`);
    expect(campaignUrls(scope({ urls }), undefined)).toHaveLength(10_000);
    expect(campaignUrls(scope({ urls }), [urls[9_999]!, urls[0]!])).toEqual([urls[0], urls[9_999]]);
  });
});
