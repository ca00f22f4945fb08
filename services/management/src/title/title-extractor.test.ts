import { TITLE_MAX_LENGTH, TitleExtractor } from './title-extractor';

/** A whole document through the streaming extractor, as the page fetch feeds it. */
function extractTitle(html: string): string {
  const extractor = new TitleExtractor();
  extractor.write(html);
  return extractor.result();
}

describe('extractTitle', () => {
  test('when the page has a <title>, then it is returned with entities decoded and whitespace collapsed', () => {
    expect(extractTitle('<html><head><TITLE>\n  Tom &amp; Jerry &mdash;\t<b>x</b> </TITLE></head></html>')).toBe(
      'Tom & Jerry — <b>x</b>',
    );
  });

  test('when both are present, then <title> wins over og:title', () => {
    expect(extractTitle('<head><meta property="og:title" content="OG"><title>Real</title></head>')).toBe('Real');
  });

  test.each([
    ['no title', '<head><meta property="og:title" content="Open &quot;Graph&quot;"></head>'],
    ['an empty title', '<head><title>  </title><meta content="Open &quot;Graph&quot;" name="OG:TITLE"></head>'],
  ])('when the page has %s, then og:title is used', (_n, html) => {
    expect(extractTitle(html)).toBe('Open "Graph"');
  });

  test('when the title only appears in the body (e.g. an SVG title), then it is ignored', () => {
    expect(extractTitle('<html><head></head><body><svg><title>icon</title></svg></body></html>')).toBe('');
  });

  test('when there is no title at all, then the result is ""', () => {
    expect(extractTitle('<p>just text</p>')).toBe('');
    expect(extractTitle('')).toBe('');
  });

  test('when the title is very long, then it is cut to the maximum length', () => {
    expect(extractTitle(`<title>${'é'.repeat(TITLE_MAX_LENGTH * 2)}</title>`)).toHaveLength(TITLE_MAX_LENGTH);
  });

  test('when the input is cut inside the title, then the text so far is used', () => {
    expect(extractTitle('<title>Partial tit')).toBe('Partial tit');
  });
});

describe('TitleExtractor streaming', () => {
  test('when the title arrives split across chunks, then it is assembled and done turns true', () => {
    const x = new TitleExtractor();
    for (const chunk of ['<ht', 'ml><head><ti', 'tle>Spl', 'it &am', 'p; joined</ti', 'tle>']) x.write(chunk);
    expect(x.done).toBe(true);
    expect(x.result()).toBe('Split & joined');
  });

  test('when the head ends without a title, then done turns true so reading can stop', () => {
    const x = new TitleExtractor();
    x.write('<html><head><meta charset="utf-8"></head>');
    expect(x.done).toBe(true);
    expect(x.result()).toBe('');
  });
});
