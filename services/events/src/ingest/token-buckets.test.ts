import { TokenBuckets } from './token-buckets';

describe('token buckets', () => {
  test('when a key sends its burst at once, then the next hit is refused until time refills a token', () => {
    const buckets = new TokenBuckets({ perSecond: 10, burst: 5 });
    const t = 1_000_000;
    for (let i = 0; i < 5; i++) expect(buckets.take('1.2.3.4', t)).toBe(true);
    expect(buckets.take('1.2.3.4', t)).toBe(false);
    expect(buckets.take('1.2.3.4', t + 99)).toBe(false);
    expect(buckets.take('1.2.3.4', t + 100)).toBe(true);
  });

  test('when one key is exhausted, then another key is served normally', () => {
    const buckets = new TokenBuckets({ perSecond: 1, burst: 2 });
    expect([buckets.take('a', 0), buckets.take('a', 0), buckets.take('a', 0)]).toEqual([true, true, false]);
    expect(buckets.take('b', 0)).toBe(true);
  });

  test('when a key stays at the sustained rate, then every hit passes; above it, the excess is refused', () => {
    const buckets = new TokenBuckets({ perSecond: 100, burst: 10 });
    let allowed = 0;
    // 200 hits a second for 10 s: 100/s sustained plus the burst pass
    for (let ms = 0; ms < 10_000; ms += 5) if (buckets.take('k', ms)) allowed++;
    expect(allowed).toBeGreaterThanOrEqual(1000);
    expect(allowed).toBeLessThanOrEqual(1011);
  });

  test('when more keys than the bound arrive, then memory stays bounded and old keys simply start full again', () => {
    const buckets = new TokenBuckets({ perSecond: 1, burst: 1 }, 100);
    expect(buckets.take('first', 0)).toBe(true);
    expect(buckets.take('first', 0)).toBe(false);
    for (let i = 0; i < 250; i++) buckets.take(`k${i}`, 0);
    const maps = buckets as unknown as { current: Map<string, unknown>; previous: Map<string, unknown> };
    expect(maps.current.size + maps.previous.size).toBeLessThanOrEqual(200);
    expect(buckets.take('first', 0)).toBe(true);
  });

  test('when the rate is 0, then the buckets report themselves disabled', () => {
    expect(new TokenBuckets({ perSecond: 0, burst: 0 }).enabled).toBe(false);
    expect(new TokenBuckets({ perSecond: 1, burst: 1 }).enabled).toBe(true);
  });
});
