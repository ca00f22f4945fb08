import { scryptSync } from 'node:crypto';
import { hashPassword, randomDigits, randomToken } from './secrets';

/** Checks a password against the stored `scrypt$N$r$p$salt$hash` form, as any later verifier must read it. */
function matches(password: string, stored: string): boolean {
  const [, n, r, p, salt, hash] = stored.split('$');
  const expected = Buffer.from(hash!, 'base64url');
  const key = scryptSync(password, Buffer.from(salt!, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return key.equals(expected);
}

describe('randomToken', () => {
  test('when drawn, then it is URL-safe and carries at least 128 bits', () => {
    const t = randomToken();
    expect(t).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(t, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
  });

  test('when drawn many times, then no two are equal', () => {
    const seen = new Set(Array.from({ length: 1000 }, () => randomToken()));
    expect(seen.size).toBe(1000);
  });
});

describe('randomDigits', () => {
  test('when drawn, then it is 15 digits without a leading zero and exact as a JSON number', () => {
    for (let i = 0; i < 200; i++) {
      const d = randomDigits();
      expect(d).toMatch(/^[1-9]\d{14}$/);
      expect(String(Number(d))).toBe(d);
    }
  });
});

describe('password hashing', () => {
  test('when a password is hashed, then the hash is scrypt with salt and verifies only the same password', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(hash).not.toContain('correct horse');
    expect(matches('correct horse battery', hash)).toBe(true);
    expect(matches('wrong horse battery', hash)).toBe(false);
  });

  test('when the same password is hashed twice, then the salts differ', async () => {
    expect(await hashPassword('same password')).not.toBe(await hashPassword('same password'));
  });
});
