import { parseEncryptionKeys, parseLookupKey, tokenKeyringFrom } from './token-keys';

const k32 = Buffer.alloc(32, 7).toString('base64');
const k32url = Buffer.alloc(32, 250).toString('base64url');

describe('parseEncryptionKeys', () => {
  test('when keys are listed as id:base64, then each is decoded in order, base64url accepted too', () => {
    const keys = parseEncryptionKeys(`k2:${k32}, k1:${k32url}`);
    expect(keys.map((k) => k.id)).toEqual(['k2', 'k1']);
    expect(keys[0]!.key).toEqual(Buffer.alloc(32, 7));
    expect(keys[1]!.key).toEqual(Buffer.alloc(32, 250));
  });

  test.each([
    ['empty', '', /at least one/],
    ['no id', k32, /key id/],
    ['bad id', `a b:${k32}`, /key id/],
    ['short key', `k1:${Buffer.alloc(16).toString('base64')}`, /32 bytes/],
    ['long key', `k1:${Buffer.alloc(33).toString('base64')}`, /32 bytes/],
    ['not base64', 'k1:***', /32 bytes/],
    ['duplicate ids', `k1:${k32},k1:${k32}`, /unique/],
  ])('when the value is %s, then it is refused with a message that names the problem', (_name, value, message) => {
    expect(() => parseEncryptionKeys(value)).toThrow(message);
  });

  test('when a key is refused, then the message does not contain the key material', () => {
    const secret = Buffer.alloc(20, 9).toString('base64');
    expect(() => parseEncryptionKeys(`k1:${secret}`)).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(secret) }),
    );
  });
});

describe('parseLookupKey', () => {
  test('when the key has at least 32 bytes, then it is decoded; shorter is refused', () => {
    expect(parseLookupKey(Buffer.alloc(48, 1).toString('base64'))).toHaveLength(48);
    expect(() => parseLookupKey(Buffer.alloc(31).toString('base64'))).toThrow(/at least 32 bytes/);
  });
});

describe('tokenKeyringFrom', () => {
  test('when both keys are set, then they are used and nothing is derived', () => {
    const ring = tokenKeyringFrom({ TOKEN_ENCRYPTION_KEYS: `k1:${k32}`, TOKEN_LOOKUP_KEY: k32url });
    expect(ring.derived).toBe(false);
    expect(ring.encryption[0]!.id).toBe('k1');
    expect(ring.lookup).toEqual(Buffer.alloc(32, 250));
    expect(ring.previousLookup).toBeUndefined();
  });

  test('when keys are unset, then stable development keys are derived and flagged', () => {
    const a = tokenKeyringFrom({});
    const b = tokenKeyringFrom({});
    expect(a.derived).toBe(true);
    expect(a.encryption[0]!.key).toEqual(b.encryption[0]!.key);
    expect(a.encryption[0]!.key).toHaveLength(32);
    expect(a.lookup).not.toEqual(a.encryption[0]!.key);
  });

  test('when a previous lookup key is set, then it is kept for the rotation', () => {
    expect(tokenKeyringFrom({ TOKEN_LOOKUP_KEY: k32, TOKEN_LOOKUP_KEY_PREVIOUS: k32url }).previousLookup).toEqual(
      Buffer.alloc(32, 250),
    );
  });
});
