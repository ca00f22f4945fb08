import { generateApiKey, hashApiKey, looksLikeApiKey } from './api-key-secret';

describe('api key secrets', () => {
  test('when keys are generated, then they are distinct, URL-safe and recognisable', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a).not.toBe(b);
    expect(a).toMatch(/^ek_[A-Za-z0-9_-]{43}$/);
    expect(looksLikeApiKey(a)).toBe(true);
  });

  test('when a key is hashed, then the hash is stable SHA-256 hex and does not contain the key', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
  });

  test.each([undefined, '', 'ek_short', ['ek_x'], 'x'.repeat(46), `ek_${'a'.repeat(42)}!`])(
    'when %j is given, then it does not look like a key',
    (v) => {
      expect(looksLikeApiKey(v)).toBe(false);
    },
  );
});
