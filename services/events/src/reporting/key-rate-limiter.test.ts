import { KeyRateLimiter } from './key-rate-limiter';

describe('KeyRateLimiter', () => {
  test('when a key spends its burst, then the next call waits for one token and other keys are unaffected', () => {
    let now = 0;
    const limiter = new KeyRateLimiter({ perMinute: 3, now: () => now });
    expect([1, 2, 3].map(() => limiter.take('a').allowed)).toEqual([true, true, true]);
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 20 });
    expect(limiter.take('b').allowed).toBe(true);
    now = 19_000;
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now = 20_000;
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
  });

  test('when a key is idle long, then its bucket refills only up to the burst', () => {
    let now = 0;
    const limiter = new KeyRateLimiter({ perMinute: 2, now: () => now });
    limiter.take('a');
    now = 3_600_000;
    expect([1, 2, 3].map(() => limiter.take('a').allowed)).toEqual([true, true, false]);
  });

  test('when only asked how long to wait, then nothing is spent; once empty, the wait is named', () => {
    let now = 0;
    const limiter = new KeyRateLimiter({ perMinute: 2, now: () => now });
    expect(limiter.retryAfter('ip')).toBeUndefined();
    expect(limiter.retryAfter('ip')).toBeUndefined();
    limiter.take('ip');
    limiter.take('ip');
    expect(limiter.retryAfter('ip')).toBe(30);
    now = 30_000;
    expect(limiter.retryAfter('ip')).toBeUndefined();
  });
});
