import { ValidationError } from '@cm/platform';
import { eventSchema, parsePixelEvent, withinLimits } from './pixel-params';
import { parseParams } from './pixel-request';

const parse = (qs: string, referer?: string) => parsePixelEvent(parseParams(qs), referer);
const fieldsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return ((err as ValidationError).details ?? []).map((d) => d.field);
  }
  throw new Error('expected a ValidationError');
};

describe('pixel parameters', () => {
  test('when the named parameters are given, then they become the event and the rest is metadata (utm_* too, as before attribution existed)', () => {
    expect(
      parse('owner_id=42&name=impression&url=https%3A%2F%2Fa.example%2F&content_id=c1&utm_source=mail&cb=123'),
    ).toEqual({
      owner_id: '42',
      name: 'impression',
      url: 'https://a.example/',
      content_id: 'c1',
      metadata: { utm_source: 'mail', cb: '123' },
      attribution: { utm_source: 'mail' },
    });
  });

  test('when r is present, then it is neither metadata nor part of the event', () => {
    expect(parse('owner_id=1&name=click&r=https%3A%2F%2Fx.example').metadata).toEqual({});
  });

  test('when url is missing or empty, then the Referer is used, both canonical; a Referer without a canonical form gives ""', () => {
    expect(parse('owner_id=1&name=a', 'https://Ref.example/guide/?fbclid=x#top').url).toBe('https://ref.example/guide');
    expect(parse('owner_id=1&name=a&url=', 'https://ref.example/').url).toBe('https://ref.example/');
    expect(parse('owner_id=1&name=a&url=https%3A%2F%2Fown.example', 'https://ref.example/').url).toBe(
      'https://own.example/',
    );
    // only the tracking made it long: the page fits
    expect(parse('owner_id=1&name=a', `https://ref.example/a?utm_term=${'x'.repeat(3000)}`).url).toBe(
      'https://ref.example/a',
    );
    expect(parse('owner_id=1&name=a', `https://ref.example/${'x'.repeat(3000)}`).url).toBe('');
    expect(parse('owner_id=1&name=a', 'not a url').url).toBe('');
    expect(parse('owner_id=1&name=a').url).toBe('');
  });

  test.each([
    [
      'https%3A%2F%2FNews.Example%2Fguide%2F%3Futm_source%3Dfb%26fbclid%3DIwAR1%26p%3D2%23s',
      'https://news.example/guide?p=2',
    ],
    ['https%3A%2F%2Fnews.example%2Fguide%3Fgclid%3DCj0', 'https://news.example/guide'],
    ['https%3A%2F%2Fb%C3%BCcher.example%2F', 'https://xn--bcher-kva.example/'],
  ])('when url is %s, then the canonical %s is stored', (given, stored) => {
    expect(parse(`owner_id=1&name=a&url=${given}`).url).toBe(stored);
  });

  test.each([
    'javascript%3Aalert(1)',
    'data%3Atext%2Fhtml%2C%3Cscript%3E',
    '%2Fguide',
    'about%3Ablank',
    'not%20a%20url',
    `https%3A%2F%2Fa.example%2F%3Fq%3D${"'".repeat(700)}`,
  ])('when url is %s, then it is refused naming url', (given) => {
    expect(fieldsOf(() => parse(`owner_id=1&name=a&url=${given}`))).toEqual(['url']);
  });

  test("when the page URL carries UTM values, then they are the event's attribution; an explicit parameter wins field by field and stays metadata", () => {
    const page = encodeURIComponent(
      'https://news.example/guide?utm_source=facebook&utm_medium=paid+social&utm_campaign=spring&utm_content=%E2%98%83',
    );
    expect(parse(`owner_id=1&name=a&url=${page}`)).toMatchObject({
      url: 'https://news.example/guide',
      metadata: {},
      attribution: { utm_source: 'facebook', utm_medium: 'paid social', utm_campaign: 'spring', utm_content: '\u2603' },
    });
    const event = parse(`owner_id=1&name=a&url=${page}&utm_source=newsletter&utm_term=shoes&utm_medium=`);
    expect(event.attribution).toEqual({
      utm_source: 'newsletter',
      utm_medium: 'paid social',
      utm_campaign: 'spring',
      utm_content: '\u2603',
      utm_term: 'shoes',
    });
    expect(event.metadata).toEqual({ utm_source: 'newsletter', utm_term: 'shoes', utm_medium: '' });
    expect(parse('owner_id=1&name=a&url=https%3A%2F%2Fa.example%2F').attribution).toBeUndefined();
  });

  test('when the Referer carries UTM values (no url parameter), then they are the attribution too', () => {
    expect(parse('owner_id=1&name=a', 'https://news.example/?utm_campaign=spring').attribution).toEqual({
      utm_campaign: 'spring',
    });
  });

  test.each([
    ['www.google.com', 'www.google.com'],
    ['WWW.Google.COM', 'www.google.com'],
    ['https%3A%2F%2Fwww.google.com%2Fsearch%3Fq%3Dprivate', 'www.google.com'],
    ['b%C3%BCcher.example', 'xn--bcher-kva.example'],
  ])('when referrer is %s, then the host %s is stored and it is not metadata', (given, host) => {
    const event = parse(`owner_id=1&name=a&url=https%3A%2F%2Fnews.example%2F&referrer=${given}`);
    expect(event.attribution).toEqual({ referrer: host });
    expect(event.metadata).toEqual({});
  });

  test("when referrer is empty or the page's own host, then there is none", () => {
    expect(parse('owner_id=1&name=a&referrer=').attribution).toBeUndefined();
    expect(
      parse('owner_id=1&name=a&url=https%3A%2F%2FNews.example%2Fa&referrer=news.example').attribution,
    ).toBeUndefined();
    expect(parse('owner_id=1&name=a&referrer=news.example', 'https://news.example/a').attribution).toBeUndefined();
  });

  test.each([
    ['referrer=not%20a%20host', ['referrer']],
    ['referrer=javascript%3Aalert(1)', ['referrer']],
    ['referrer=a.example%2Fpath', ['referrer']],
    [`referrer=${'h'.repeat(254)}`, ['referrer']],
    [`referrer=${'h'.repeat(2049)}`, ['referrer']],
    ['referrer=a.example&referrer=b.example', ['referrer']],
    [`utm_source=${'u'.repeat(257)}`, ['utm_source']],
    [`utm_campaign=${'u'.repeat(513)}`, ['metadata.utm_campaign']],
    ['utm_term=a&utm_term=b', ['metadata.utm_term']],
    ['url=javascript%3Ax&referrer=%2F%2F', ['url', 'referrer']],
  ])('when the attribution is %j, then it is refused naming %j', (qs, fields) => {
    expect(fieldsOf(() => parse(`owner_id=1&name=a&${qs}`)).sort()).toEqual([...fields].sort());
  });

  test('when metadata names are unsafe for MongoDB, then they are escaped', () => {
    expect(parse('owner_id=1&name=a&%24set=1&a.b=2&__proto__=3').metadata).toEqual({
      '%24set': '1',
      'a%2Eb': '2',
      '%5F_proto__': '3',
    });
  });

  test('when a parameter has no name, then it is ignored', () => {
    expect(parse('owner_id=1&name=a&=x&&').metadata).toEqual({});
  });

  test('when escapes are malformed, then the text is kept as it came', () => {
    expect(parse('owner_id=1&name=%ZZ').name).toBe('%ZZ');
  });

  test('when values are at the limits, then they are accepted', () => {
    const meta = Array.from(
      { length: 20 },
      (_, i) => `${'k'.repeat(62)}${String(i).padStart(2, '0')}=${'v'.repeat(512)}`,
    ).join('&');
    const url = encodeURIComponent(`https://a.example/${'u'.repeat(2048 - 'https://a.example/'.length)}`);
    const event = parse(
      `owner_id=${'9'.repeat(32)}&name=${'n'.repeat(128)}&content_id=${'c'.repeat(256)}&url=${url}&${meta}`,
    );
    expect(event.url).toHaveLength(2048);
    expect(Object.keys(event.metadata)).toHaveLength(20);
  });

  test.each([
    ['', ['owner_id', 'name']],
    ['owner_id=1', ['name']],
    ['name=a', ['owner_id']],
    ['owner_id=&name=a', ['owner_id']],
    ['owner_id=1&name=', ['name']],
    ['owner_id=-1&name=a', ['owner_id']],
    [`owner_id=${'9'.repeat(33)}&name=a`, ['owner_id']],
    [`owner_id=1&name=${'n'.repeat(129)}`, ['name']],
    [`owner_id=1&name=a&content_id=${'c'.repeat(257)}`, ['content_id']],
    [`owner_id=1&name=a&url=${'u'.repeat(2049)}`, ['url']],
    ['owner_id=1&owner_id=2&name=a', ['owner_id']],
    ['owner_id=1&name=a&tag=x&tag=y', ['metadata.tag']],
    [`owner_id=1&name=a&note=${'v'.repeat(513)}`, ['metadata.note']],
    [`owner_id=1&name=a&${'k'.repeat(65)}=v`, [`metadata.${'k'.repeat(65)}`]],
    // escaping counts: 22 dots become 66 characters
    [`owner_id=1&name=a&${'.'.repeat(22)}=v`, [`metadata.${'%2E'.repeat(22)}`]],
    [`owner_id=1&name=a&${Array.from({ length: 21 }, (_, i) => `m${i}=v`).join('&')}`, ['metadata']],
  ])('when the query is %j, then it is refused naming %j', (qs, fields) => {
    expect(fieldsOf(() => parse(qs)).sort()).toEqual([...fields].sort());
  });

  test('when a parameter is repeated, then the message says so', () => {
    try {
      parse('owner_id=1&name=a&name=b');
    } catch (err) {
      expect((err as ValidationError).details).toEqual([{ field: 'name', message: 'name must be given once' }]);
    }
    expect.assertions(1);
  });

  test('when vid is given, then it is carried apart from the event fields and never becomes metadata', () => {
    const event = parse(`owner_id=1&name=a&vid=${'v'.repeat(128)}`);
    expect(event.vid).toBe('v'.repeat(128));
    expect(event.metadata).toEqual({});
    expect(parse('owner_id=1&name=a').vid).toBeUndefined();
  });

  test.each([
    ['too long', `vid=${'v'.repeat(129)}`, 'vid must be at most 128 characters'],
    ['repeated', 'vid=a&vid=b', 'vid must be given once'],
    ['empty', 'vid=', 'vid must not be empty'],
  ])('when vid is %s, then it is refused naming vid without echoing it', (_what, qs, message) => {
    try {
      parse(`owner_id=1&name=a&${qs}`);
    } catch (err) {
      expect((err as ValidationError).details).toEqual([{ field: 'vid', message }]);
    }
    expect.assertions(1);
  });

  test('when a beacon body is merged onto the query, then a name in both counts as repeated', () => {
    const params = parseParams('name=b', parseParams('owner_id=1&name=a'));
    expect(params.get('name')).toEqual(['a', 'b']);
  });
});

describe('the fast limit check', () => {
  // deterministic pseudo-random inputs around every limit, so the test is the same on every run
  let seed = 42;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const around = (limit: number) => [0, 1, limit - 1, limit, limit + 1][rand(5)]!;
  const pick = <T>(xs: T[]): T => xs[rand(xs.length)]!;
  const value = (limit: number): unknown =>
    pick<unknown>(['x'.repeat(Math.max(0, around(limit))), undefined, ['a', 'b'], '']);

  test('when thousands of inputs near the limits are checked, then it never accepts what Joi refuses, and accepts typical valid hits', () => {
    let agreedValid = 0;
    let agreedInvalid = 0;
    for (let i = 0; i < 5000; i++) {
      const params = new Map<string, string | string[]>();
      const put = (k: string, v: unknown) => {
        if (typeof v === 'string' || Array.isArray(v)) params.set(k, v as string | string[]);
      };
      put('owner_id', pick<unknown>(['1', '42', '9'.repeat(around(32)), 'abc', '', undefined, ['1', '2']]));
      put('name', value(128));
      put('url', value(2048));
      put('content_id', value(256));
      put('vid', value(128));
      put('referrer', value(2048));
      const metaCount = around(20);
      for (let m = 0; m < metaCount; m++) put(`${'k'.repeat(Math.max(1, around(64) - 2))}${m}`, value(512));
      const input: Record<string, unknown> = {};
      const entries: [string, unknown][] = [];
      for (const [k, v] of params) {
        if (['owner_id', 'name', 'url', 'content_id', 'vid', 'referrer'].includes(k)) input[k] = v;
        else entries.push([k, v]);
      }
      const fast = withinLimits(input, entries);
      const joi = eventSchema.validate({ ...input, metadata: Object.fromEntries(entries) }).error === undefined;
      if (fast) expect(joi).toBe(true);
      if (fast && joi) agreedValid++;
      if (!fast && !joi) agreedInvalid++;
    }
    expect(agreedValid).toBeGreaterThan(50);
    expect(agreedInvalid).toBeGreaterThan(50);
  });
});
