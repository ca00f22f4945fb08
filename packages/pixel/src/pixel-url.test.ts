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
});
