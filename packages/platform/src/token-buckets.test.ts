import { TokenBuckets } from './token-buckets';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}
const perMinute = (n: number, c = clock(), maxKeys?: number) =>
  new TokenBuckets({ perSecond: n / 60, burst: n, maxKeys, now: c.now });

describe('TokenBuckets', () => {
  test('when a key spends its burst at once, then the next take is refused with the seconds until one is back', () => {
    const c = clock();
    const buckets = perMinute(6, c);
    for (let i = 0; i < 6; i++) expect(buckets.take('k').allowed).toBe(true);
    expect(buckets.take('k')).toEqual({ allowed: false, retryAfterSeconds: 10 });
    c.advance(10_000);
    expect(buckets.take('k').allowed).toBe(true);
    expect(buckets.take('k').allowed).toBe(false);
  });

  test('when keys differ, then their buckets do not affect each other', () => {
    const buckets = perMinute(1);
    expect(buckets.take('a').allowed).toBe(true);
    expect(buckets.take('a').allowed).toBe(false);
    expect(buckets.take('b').allowed).toBe(true);
  });

  test('when a key only checks, then nothing is spent; an unknown key is allowed', () => {
    const c = clock();
    const buckets = perMinute(2, c);
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
    const buckets = perMinute(3, c);
    buckets.take('k');
    c.advance(3_600_000);
    for (let i = 0; i < 3; i++) expect(buckets.take('k').allowed).toBe(true);
    expect(buckets.take('k').allowed).toBe(false);
  });

  test('when a key stays at the sustained rate, then every hit passes; above it, the excess is refused', () => {
    const c = clock(0);
    const buckets = new TokenBuckets({ perSecond: 100, burst: 10, now: c.now });
    let allowed = 0;
    // 200 hits a second for 10 s: 100/s sustained plus the burst pass
    for (let ms = 0; ms < 10_000; ms += 5) {
      if (buckets.tryTake('k')) allowed++;
      c.advance(5);
    }
    expect(allowed).toBeGreaterThanOrEqual(1000);
    expect(allowed).toBeLessThanOrEqual(1011);
  });

  test('when more keys are seen than kept, then memory stays bounded and forgotten keys start full again', () => {
    const buckets = perMinute(1, clock(), 100);
    expect(buckets.take('first').allowed).toBe(true);
    expect(buckets.take('first').allowed).toBe(false);
    for (let i = 0; i < 250; i++) buckets.take(`k${i}`);
    const maps = buckets as unknown as { current: Map<string, unknown>; previous: Map<string, unknown> };
    expect(maps.current.size + maps.previous.size).toBeLessThanOrEqual(200);
    expect(buckets.take('first').allowed).toBe(true);
  });

  test('when the rate is 0, then the limit is off and everything is allowed', () => {
    const off = new TokenBuckets({ perSecond: 0, burst: 1 });
    expect(off.enabled).toBe(false);
    for (let i = 0; i < 5; i++) expect(off.take('k')).toEqual({ allowed: true });
    expect(off.check('k')).toEqual({ allowed: true });
  });
});
