import { tokenKeyringFrom } from './token-keys';
import { TokenDecryptError, TokenVault } from './token-vault';

const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');
const vaultWith = (encryptionKeys: string, lookup = key(9), previous?: string) =>
  new TokenVault(
    tokenKeyringFrom({
      TOKEN_ENCRYPTION_KEYS: encryptionKeys,
      TOKEN_LOOKUP_KEY: lookup,
      TOKEN_LOOKUP_KEY_PREVIOUS: previous,
    }),
  );

const TOKEN = 'q1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6j7k8l9z0x1c';

describe('TokenVault', () => {
  test('when a token is sealed and opened for the same user, then it comes back, and the stored form does not contain it', () => {
    const vault = vaultWith(`k1:${key(1)}`);
    const stored = vault.seal(TOKEN, '123');
    expect(stored.api_token_enc).toMatch(/^v1\.k1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(JSON.stringify(stored)).not.toContain(TOKEN);
    expect(vault.open(stored.api_token_enc, '123')).toBe(TOKEN);
    expect(stored.api_token_hash).toBe(vault.lookupHash(TOKEN));
    expect(stored.token_keys).toBe(vault.keysTag);
  });

  test('when the same token is sealed twice, then the ciphertexts differ (fresh IV) but the lookup hash is the same', () => {
    const vault = vaultWith(`k1:${key(1)}`);
    const [a, b] = [vault.seal(TOKEN, '1'), vault.seal(TOKEN, '1')];
    expect(a.api_token_enc).not.toBe(b.api_token_enc);
    expect(a.api_token_hash).toBe(b.api_token_hash);
  });

  test('when a sealed token is opened for another user, then it does not authenticate', () => {
    const vault = vaultWith(`k1:${key(1)}`);
    expect(() => vault.open(vault.seal(TOKEN, '123').api_token_enc, '124')).toThrow(TokenDecryptError);
  });

  test('when a new key is put first, then it seals, and tokens sealed with the old key still open until it is removed', () => {
    const old = vaultWith(`k1:${key(1)}`);
    const rotated = vaultWith(`k2:${key(2)},k1:${key(1)}`);
    const sealedByOld = old.seal(TOKEN, '7').api_token_enc;
    expect(rotated.open(sealedByOld, '7')).toBe(TOKEN);
    expect(rotated.seal(TOKEN, '7').api_token_enc.startsWith('v1.k2.')).toBe(true);
    expect(rotated.keysTag).not.toBe(old.keysTag);
    expect(() => vaultWith(`k2:${key(2)}`).open(sealedByOld, '7')).toThrow(/no longer lists/);
  });

  test.each([
    ['garbage', 'nonsense'],
    ['an unknown format', 'v9.k1.a.b.c'],
    ['extra parts', 'v1.k1.a.b.c.d'],
    ['a flipped ciphertext bit', 'flip'],
  ])('when the stored form is %s, then opening throws TokenDecryptError', (_name, value) => {
    const vault = vaultWith(`k1:${key(1)}`);
    const stored = vault.seal(TOKEN, '1').api_token_enc;
    const parts = stored.split('.');
    const tampered =
      value === 'flip'
        ? [...parts.slice(0, 3), `${parts[3]!.startsWith('A') ? 'B' : 'A'}${parts[3]!.slice(1)}`, parts[4]].join('.')
        : value;
    expect(() => vault.open(tampered, '1')).toThrow(TokenDecryptError);
  });

  test('when the lookup key changes, then the hash changes and the tag says so; the previous key still gives the old hash', () => {
    const before = vaultWith(`k1:${key(1)}`, key(9));
    const after = vaultWith(`k1:${key(1)}`, key(8), key(9));
    expect(after.lookupHash(TOKEN)).not.toBe(before.lookupHash(TOKEN));
    expect(after.previousLookupHash(TOKEN)).toBe(before.lookupHash(TOKEN));
    expect(after.keysTag).not.toBe(before.keysTag);
    expect(before.previousLookupHash(TOKEN)).toBeUndefined();
  });
});
