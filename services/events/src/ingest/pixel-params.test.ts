import { ValidationError } from '@cm/platform';
import { parseParams, parsePixelEvent } from './pixel-params';

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
  test('when the named parameters are given, then they become the event and the rest is metadata', () => {
    expect(parse('owner_id=42&name=impression&url=https%3A%2F%2Fa.example%2F&content_id=c1&utm_source=mail&cb=123')).toEqual({
      owner_id: '42',
      name: 'impression',
      url: 'https://a.example/',
      content_id: 'c1',
      metadata: { utm_source: 'mail', cb: '123' },
    });
  });

  test('when r is present, then it is neither metadata nor part of the event', () => {
    expect(parse('owner_id=1&name=click&r=https%3A%2F%2Fx.example').metadata).toEqual({});
  });

  test('when url is missing or empty, then the Referer is used, truncated to 2048 characters', () => {
    expect(parse('owner_id=1&name=a', 'https://ref.example/').url).toBe('https://ref.example/');
    expect(parse('owner_id=1&name=a&url=', 'https://ref.example/').url).toBe('https://ref.example/');
    expect(parse('owner_id=1&name=a&url=https%3A%2F%2Fown.example', 'https://ref.example/').url).toBe('https://own.example');
    expect(parse('owner_id=1&name=a', `https://ref.example/${'x'.repeat(3000)}`).url).toHaveLength(2048);
    expect(parse('owner_id=1&name=a').url).toBe('');
  });

  test('when metadata names are unsafe for MongoDB, then they are escaped', () => {
    expect(parse('owner_id=1&name=a&%24set=1&a.b=2&__proto__=3').metadata).toEqual({ '%24set': '1', 'a%2Eb': '2', '%5F_proto__': '3' });
  });

  test('when a parameter has no name, then it is ignored', () => {
    expect(parse('owner_id=1&name=a&=x&&').metadata).toEqual({});
  });

  test('when escapes are malformed, then the text is kept as it came', () => {
    expect(parse('owner_id=1&name=%ZZ').name).toBe('%ZZ');
  });

  test('when values are at the limits, then they are accepted', () => {
    const meta = Array.from({ length: 20 }, (_, i) => `${'k'.repeat(62)}${String(i).padStart(2, '0')}=${'v'.repeat(512)}`).join('&');
    const event = parse(`owner_id=${'9'.repeat(32)}&name=${'n'.repeat(128)}&content_id=${'c'.repeat(256)}&url=${'u'.repeat(2048)}&${meta}`);
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

  test('when a beacon body is merged onto the query, then a name in both counts as repeated', () => {
    const params = parseParams('name=b', parseParams('owner_id=1&name=a'));
    expect(params.get('name')).toEqual(['a', 'b']);
  });
});
