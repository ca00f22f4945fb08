import { TokenBuckets } from './token-buckets';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('TokenBuckets', () => {
  test('when a key spends a minute of tokens at once, then the next take is refused with the seconds until one is back', () => {
    const c = clock();
    const buckets = new TokenBuckets({ perMinute: 6, now: c.now });
    for (let i = 0; i < 6; i++) expect(buckets.take('k').allowed).toBe(true);
    expect(buckets.take('k')).toEqual({ allowed: false, retryAfterSeconds: 10 });
    c.advance(10_000);
    expect(buckets.take('k').allowed).toBe(true);
    expect(buckets.take('k').allowed).toBe(false);
  });

  test('when keys differ, then their buckets do not affect each other', () => {
    const buckets = new TokenBuckets({ perMinute: 1, now: clock().now });
    expect(buckets.take('a').allowed).toBe(true);
    expect(buckets.take('a').allowed).toBe(false);
    expect(buckets.take('b').allowed).toBe(true);
  });

  test('when a key only checks, then nothing is spent; an unknown key is allowed', () => {
    const c = clock();
    const buckets = new TokenBuckets({ perMinute: 2, now: c.now });
    expect(buckets.check('k')).toEqual({ allowed: true });
    buckets.take('k');
    buckets.take('k');
    expect(buckets.check('k')).toEqual({ allowed: false, retryAfterSeconds: 30 });
    expect(buckets.check('k')).toEqual({ allowed: false, retryAfterSeconds: 30 });
    c.advance(30_000);
    expect(buckets.check('k')).toEqual({ allowed: true });
  });

  test('when a key is idle for long, then its bucket is full again but never more than full', () => {
    const c = clock();
    const buckets = new TokenBuckets({ perMinute: 3, now: c.now });
    buckets.take('k');
    c.advance(3_600_000);
    for (let i = 0; i < 3; i++) expect(buckets.take('k').allowed).toBe(true);
    expect(buckets.take('k').allowed).toBe(false);
  });

  test('when more keys are seen than kept, then the least recently used start full again', () => {
    const buckets = new TokenBuckets({ perMinute: 1, maxKeys: 2, now: clock().now });
    buckets.take('a');
    buckets.take('b');
    buckets.take('c');
    expect(buckets.take('a').allowed).toBe(true);
  });
});
