import { urlFilterValues } from './url-filter';

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
