import { eventQuery, isOwnerId, isRedirectTarget, pixelEndpoint } from './pixel-url';

const query = (name: unknown, params: Record<string, unknown> = {}) => {
  const reports: string[] = [];
  const text = eventQuery('123', name, params as never, (m) => reports.push(m));
  return { text, params: text === undefined ? undefined : Object.fromEntries(new URLSearchParams(text)), reports };
};

describe('pixelEndpoint', () => {
  test.each([
    ['https://ev.example', 'https://ev.example/v1/v.gif'],
    ['https://ev.example/', 'https://ev.example/v1/v.gif'],
    ['https://ev.example/events/', 'https://ev.example/events/v1/v.gif'],
    ['https://ev.example/v1/v.gif', 'https://ev.example/v1/v.gif'],
    ['https://ev.example/v1/v.gif?x=1#top', 'https://ev.example/v1/v.gif'],
    ['http://127.0.0.1:3001', 'http://127.0.0.1:3001/v1/v.gif'],
  ])('when the endpoint is %s, then the pixel is %s', (endpoint, pixel) => {
    expect(pixelEndpoint(endpoint)).toBe(pixel);
  });

  test('when the endpoint is relative, then it is resolved against the page', () => {
    expect(pixelEndpoint('/ev', 'https://pub.example/a/b')).toBe('https://pub.example/ev/v1/v.gif');
  });

  test.each([['javascript:alert(1)'], ['ftp://ev.example'], ['/relative'], [''], [42], [undefined]])(
    'when the endpoint is %p without a page, then there is none',
    (endpoint) => {
      expect(pixelEndpoint(endpoint)).toBe('');
    },
  );
});

describe('isOwnerId', () => {
  test('when the owner id is up to 32 digits, then it is accepted', () => {
    expect(isOwnerId('123456789012345')).toBe(true);
    expect(isOwnerId('1'.repeat(32))).toBe(true);
  });

  test.each([[''], ['12a'], ['1'.repeat(33)], [123], [null], [' 12']])(
    'when the owner id is %p, then it is refused',
    (id) => {
      expect(isOwnerId(id)).toBe(false);
    },
  );
});

describe('isRedirectTarget', () => {
  test.each([['https://shop.example/offer?x=1#y'], ['http://127.0.0.1:8080/'], ['HTTPS://SHOP.EXAMPLE']])(
    'when the target is %s, then it is accepted',
    (target) => {
      expect(isRedirectTarget(target)).toBe(true);
    },
  );

  test.each([
    ['javascript:alert(1)'],
    ['data:text/html,x'],
    ['/relative'],
    ['//shop.example'],
    ['https:\\\\evil.example'],
    ['https://shop.example/a b'],
    ['https://shop.example/\n'],
    ['https://user:pw@shop.example/'],
    [`https://shop.example/${'a'.repeat(2048)}`],
    [undefined],
  ])('when the target is %p, then it is refused as the ingest would', (target) => {
    expect(isRedirectTarget(target)).toBe(false);
  });
});

describe('eventQuery', () => {
  test('when url, content_id and metadata are given, then they are sent after owner_id and name', () => {
    const { text } = query('impression', {
      url: 'https://pub.example/a?b=1',
      content_id: 'article-42',
      campaign: 'spring & summer',
    });
    expect(text).toBe(
      'owner_id=123&name=impression&url=https%3A%2F%2Fpub.example%2Fa%3Fb%3D1&content_id=article-42&campaign=spring+%26+summer',
    );
  });

  test('when values are numbers or booleans, then they are sent as text; null and undefined are left out', () => {
    expect(query('e', { n: 3, yes: true, gone: null, none: undefined }).params).toEqual({
      owner_id: '123',
      name: 'e',
      n: '3',
      yes: 'true',
    });
  });

  test('when params try to set owner_id, name or r, or carry objects, then those are skipped and reported', () => {
    const { params, reports } = query('e', {
      owner_id: '999',
      name: 'other',
      r: 'https://evil.example',
      obj: { $gt: '' },
      list: ['a'],
      fn: () => 1,
      ok: 'yes',
    });
    expect(params).toEqual({ owner_id: '123', name: 'e', ok: 'yes' });
    expect(reports).toHaveLength(6);
  });

  test('when the page url is longer than the ingest accepts, then it is cut to 2048 characters', () => {
    expect(query('e', { url: `https://pub.example/${'a'.repeat(3000)}` }).params?.url).toHaveLength(2048);
  });

  test.each([[''], ['x'.repeat(129)], [undefined], [42]])(
    'when the name is %p, then nothing is built and the reason is reported',
    (name) => {
      const { text, reports } = query(name);
      expect(text).toBeUndefined();
      expect(reports).toEqual(['name: not 1..128 characters']);
    },
  );

  test('when a value is over the ingest limits, then nothing is built (a beacon would vanish with a 400)', () => {
    expect(query('e', { content_id: 'c'.repeat(257) }).text).toBeUndefined();
    expect(query('e', { k: 'v'.repeat(513) }).text).toBeUndefined();
    expect(query('e', { ['k'.repeat(65)]: 'v' }).text).toBeUndefined();
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    expect(query('e', many).text).toBeUndefined();
    expect(query('e', { ...many, k20: undefined }).text).toBeDefined();
  });

  // the ingest's own rule (services/events/src/ingest/pixel-params.ts): engaged_ms, scroll_depth
  // and value are measures, never metadata, so they do not count against the 20 metadata keys
  test('when 20 metadata keys come with all three measures, then the event is built as the ingest accepts it', () => {
    const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`utm_${i}`, 'v']));
    const { text, params, reports } = query('purchase', { ...twenty, engaged_ms: 5200, scroll_depth: 80, value: 1999 });
    expect(reports).toEqual([]);
    expect(text).toBeDefined();
    expect(params).toMatchObject({ engaged_ms: '5200', scroll_depth: '80', value: '1999', utm_19: 'v' });
    expect(query('purchase', { ...twenty, k20: 'one too many', value: 1999 }).text).toBeUndefined();
  });

  test.each([
    ['value', 12.5],
    ['value', -1],
    ['value', '007'],
    ['value', '1e3'],
    ['value', 1_000_000_000_001],
    ['scroll_depth', 101],
    ['engaged_ms', 3_600_001],
    ['engaged_ms', 'abc'],
    ['engaged_ms', ''],
  ])(
    'when the measure %s is %p, which the ingest refuses, then nothing is built and the reason is reported',
    (key, v) => {
      const { text, reports } = query('purchase', { [key]: v });
      expect(text).toBeUndefined();
      expect(reports).toEqual([expect.stringMatching(new RegExp(`^${key}: `))]);
    },
  );

  test('when measures are at their limits, then they are sent', () => {
    expect(query('e', { value: 1_000_000_000_000, scroll_depth: 0, engaged_ms: '3600000' }).params).toMatchObject({
      value: '1000000000000',
      scroll_depth: '0',
      engaged_ms: '3600000',
    });
  });

  test('when a metadata name is over 64 characters once escaped as the ingest stores it, then nothing is built', () => {
    // the ingest escapes "." as %2E and a leading "$" as %24 and counts the escaped name
    expect(query('e', { [`${'k'.repeat(62)}.`]: 'v' }).text).toBeUndefined();
    expect(query('e', { [`$${'k'.repeat(62)}`]: 'v' }).text).toBeUndefined();
    expect(query('e', { [`${'k'.repeat(61)}.`]: 'v' }).text).toBeDefined();
  });
});
