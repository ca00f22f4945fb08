import { encodeMetadataKey } from './metadata-key';

describe('metadata keys', () => {
  test.each([
    ['plain', 'plain'],
    ['utm_source', 'utm_source'],
    ['$where', '%24where'],
    ['a.b.c', 'a%2Eb%2Ec'],
    ['$gt.x', '%24gt%2Ex'],
    ['mid$dle', 'mid$dle'],
    ['nul\0byte', 'nul%00byte'],
    ['100%', '100%25'],
    ['%2E', '%252E'],
    ['__proto__', '%5F_proto__'],
    ['constructor', 'constructor'],
    ['ключ', 'ключ'],
  ])('when the key is %j, then it is stored as %j', (key, stored) => {
    expect(encodeMetadataKey(key)).toBe(stored);
  });

  test('when keys that differ only in escaped characters are encoded, then no two are stored under the same name', () => {
    const keys = [
      'a.b',
      'a_b',
      'a%2Eb',
      'a%252Eb',
      '$x',
      '%24x',
      '__proto__',
      '%5F_proto__',
      '_%5F_proto__',
      '.$.%\0',
      '',
      '%',
      '%25',
    ];
    const stored = keys.map(encodeMetadataKey);
    expect(new Set(stored).size).toBe(keys.length);
  });

  test('when any key is encoded, then the result is a legal MongoDB field name', () => {
    for (const key of ['$', '$$', '.', '..', '\0', 'a.$b', '$.']) {
      const stored = encodeMetadataKey(key);
      expect(stored).not.toMatch(/^\$|\.|\0/);
    }
  });
});
