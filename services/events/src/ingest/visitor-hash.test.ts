import { createHmac } from 'node:crypto';
import { anonymousVisitorHash, VISITOR_HASH_BOUND, visitorIdHash } from './visitor-hash';

const KEY = Buffer.from('k'.repeat(32));
const SALT = Buffer.alloc(32, 7);
const UA = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0';

describe('visitor hashes', () => {
  test('when the same vid is hashed twice, then the hash is the same integer below 2^52', () => {
    const a = visitorIdHash(KEY, '42', 'user-1');
    expect(visitorIdHash(KEY, '42', 'user-1')).toBe(a);
    expect(Number.isSafeInteger(a)).toBe(true);
    expect(a).toBeGreaterThanOrEqual(0);
    expect(a).toBeLessThan(VISITOR_HASH_BOUND);
  });

  test('when the hash is computed, then it is the first 52 bits of HMAC-SHA256 over "vid\\0owner\\0vid"', () => {
    const digest = createHmac('sha256', KEY).update('vid\u000042\u0000user-1').digest('hex');
    expect(visitorIdHash(KEY, '42', 'user-1')).toBe(parseInt(digest.slice(0, 13), 16));
    const anon = createHmac('sha256', SALT).update(`anon\u000042\u0000203.0.113.9\u0000${UA}`).digest('hex');
    expect(anonymousVisitorHash(SALT, '42', '203.0.113.9', UA)).toBe(parseInt(anon.slice(0, 13), 16));
  });

  test('when the owner, the vid, the key or the salt differ, then the hash differs', () => {
    const base = visitorIdHash(KEY, '42', 'user-1');
    expect(visitorIdHash(KEY, '43', 'user-1')).not.toBe(base);
    expect(visitorIdHash(KEY, '42', 'user-2')).not.toBe(base);
    expect(visitorIdHash(Buffer.from('j'.repeat(32)), '42', 'user-1')).not.toBe(base);
    const anon = anonymousVisitorHash(SALT, '42', '203.0.113.9', UA);
    expect(anonymousVisitorHash(SALT, '43', '203.0.113.9', UA)).not.toBe(anon);
    expect(anonymousVisitorHash(SALT, '42', '203.0.113.10', UA)).not.toBe(anon);
    expect(anonymousVisitorHash(SALT, '42', '203.0.113.9', `${UA} x`)).not.toBe(anon);
    expect(anonymousVisitorHash(Buffer.alloc(32, 8), '42', '203.0.113.9', UA)).not.toBe(anon);
  });

  test('when a vid equals the text a cookieless hit would hash, then the two kinds still differ', () => {
    // the same key and the same parts: only the "vid"/"anon" prefix separates them
    expect(visitorIdHash(KEY, '42', `203.0.113.9\u0000${UA}`)).not.toBe(
      anonymousVisitorHash(KEY, '42', '203.0.113.9', UA),
    );
  });

  test('when many inputs are hashed, then every hash is an integer in [0, 2^52) and they spread over the range', () => {
    let max = 0;
    for (let i = 0; i < 2000; i++) {
      const h = visitorIdHash(KEY, '1', String(i));
      expect(Number.isInteger(h) && h >= 0 && h < VISITOR_HASH_BOUND).toBe(true);
      max = Math.max(max, h);
    }
    // the top bits are used: some hash lies in the upper half
    expect(max).toBeGreaterThan(VISITOR_HASH_BOUND / 2);
  });
});
