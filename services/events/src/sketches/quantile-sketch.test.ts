import { decodeQuantiles, encodeQuantiles, QuantileFormatError } from './quantile-codec';
import {
  addValue,
  emptyQuantiles,
  mergeQuantiles,
  QUANTILE_MAX_BINS,
  QUANTILE_RELATIVE_ACCURACY as ALPHA,
  quantileAt,
  quantileCount,
  shareAtLeast,
  type QuantileSketch,
} from './quantile-sketch';

/** mulberry32: seeded, so a failure names its inputs. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sketchOf = (values: readonly number[]): QuantileSketch =>
  values.reduce((s, v) => addValue(s, v), emptyQuantiles());

const random = prng(7);
const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
const DISTRIBUTIONS: Record<string, (n: number) => number[]> = {
  uniform: (n) => Array.from({ length: n }, () => Math.floor(random() * 600_000)),
  'log-normal': (n) =>
    Array.from({ length: n }, () => Math.min(3_600_000, Math.round(20_000 * Math.exp(1.2 * gaussian())))),
  'heavy tail': (n) => Array.from({ length: n }, () => Math.min(10 ** 12, Math.floor(100 / (1 - random()) ** 2))),
  constant: (n) => Array.from({ length: n }, () => 4242),
  'with zeros': (n) => Array.from({ length: n }, () => (random() < 0.4 ? 0 : Math.floor(random() * 101))),
  'small integers': (n) => Array.from({ length: n }, () => Math.floor(random() * 101)),
};

describe('the quantile sketch', () => {
  test.each(Object.keys(DISTRIBUTIONS).flatMap((d) => [1, 2, 7, 10, 1000, 20_000].map((n) => [d, n] as const)))(
    'when %s values (n = %i) are sketched, then p50, p75, p90, p99 are within the relative accuracy of the exact order statistics',
    (distribution, n) => {
      const values = DISTRIBUTIONS[distribution]!(n);
      const s = sketchOf(values);
      const sorted = [...values].sort((a, b) => a - b);
      expect(quantileCount(s)).toBe(n);
      for (const q of [0, 0.5, 0.75, 0.9, 0.99, 1]) {
        const got = quantileAt(s, q)!;
        const lo = sorted[Math.floor(q * (n - 1))]!;
        const hi = sorted[Math.ceil(q * (n - 1))]!;
        expect(got).toBeGreaterThanOrEqual(lo * (1 - ALPHA) - 1e-9);
        expect(got).toBeLessThanOrEqual(hi * (1 + ALPHA) + 1e-9);
      }
    },
  );

  test('when a share at or above a threshold is asked, then only values within the accuracy of the threshold may fall either way', () => {
    const values = DISTRIBUTIONS['log-normal']!(20_000);
    const s = sketchOf(values);
    for (const t of [0, 1, 999, 10_000, 20_000, 60_000, 3_600_000]) {
      const share = shareAtLeast(s, t)!;
      const surely = values.filter((v) => v >= t / (1 - ALPHA)).length / values.length;
      const maybe = values.filter((v) => v >= t / (1 + ALPHA)).length / values.length;
      expect(share).toBeGreaterThanOrEqual(surely);
      expect(share).toBeLessThanOrEqual(maybe);
    }
    expect(shareAtLeast(sketchOf([0, 0, 5]), 0)).toBe(1);
    expect(shareAtLeast(sketchOf([0, 0, 5]), 1)).toBeCloseTo(1 / 3);
  });

  test('when empty, then it answers null and merging it changes nothing', () => {
    expect(quantileAt(emptyQuantiles(), 0.5)).toBeNull();
    expect(shareAtLeast(emptyQuantiles(), 10)).toBeNull();
    const s = sketchOf([1, 2, 3]);
    expect(mergeQuantiles(s, emptyQuantiles())).toEqual(s);
    expect(mergeQuantiles(emptyQuantiles(), s)).toEqual(s);
  });

  test('when sketches merge, then the merge is associative and commutative and equals the sketch of the union', () => {
    for (let trial = 0; trial < 50; trial++) {
      const sets = [0, 1, 2].map(() => DISTRIBUTIONS['heavy tail']!(Math.floor(random() * 300)));
      const [a, b, c] = sets.map(sketchOf) as [QuantileSketch, QuantileSketch, QuantileSketch];
      expect(mergeQuantiles(mergeQuantiles(a, b), c)).toEqual(mergeQuantiles(a, mergeQuantiles(b, c)));
      expect(mergeQuantiles(a, b)).toEqual(mergeQuantiles(b, a));
      expect(mergeQuantiles(mergeQuantiles(a, b), c)).toEqual(sketchOf(sets.flat()));
    }
  });

  test('when every value from 0 to 10^12 in powers of 1.01 is added, then the bins stay within their bound', () => {
    let s = emptyQuantiles();
    for (let v = 1; v <= 10 ** 12; v = Math.ceil(v * 1.01)) s = addValue(s, v);
    s = addValue(addValue(s, 0), 10 ** 12);
    expect(s.indexes.length).toBeLessThanOrEqual(QUANTILE_MAX_BINS);
    expect(quantileAt(s, 1)! / 10 ** 12).toBeCloseTo(1, 1);
  });

  test.each([-1, 1.5, 10 ** 12 + 1, Number.NaN])('when %p is added, then it is refused', (v) => {
    expect(() => addValue(emptyQuantiles(), v)).toThrow(RangeError);
  });
});

describe('the stored quantile sketch', () => {
  test('when encoded and decoded, then it is the same sketch, counts past 2^32 included', () => {
    for (const s of [
      emptyQuantiles(),
      sketchOf([0]),
      sketchOf(DISTRIBUTIONS['heavy tail']!(5000)),
      addValue(addValue(emptyQuantiles(), 10 ** 12, 2 ** 40), 0, 2 ** 35),
    ])
      expect(decodeQuantiles(encodeQuantiles(s))).toEqual(s);
  });

  test('when the bytes are of an unknown version, truncated or damaged, then decoding refuses them', () => {
    const bytes = encodeQuantiles(sketchOf([1, 5, 900]));
    expect(() => decodeQuantiles(Uint8Array.of(2, ...bytes.subarray(1)))).toThrow(QuantileFormatError);
    expect(() => decodeQuantiles(bytes.subarray(0, bytes.length - 1))).toThrow(QuantileFormatError);
    expect(() => decodeQuantiles(Uint8Array.of(...bytes, 0))).toThrow(QuantileFormatError);
    expect(() => decodeQuantiles(Uint8Array.of(1, 0, 1, 0, 1))).toThrow(QuantileFormatError); // a bin that does not ascend
    expect(() => decodeQuantiles(Uint8Array.of())).toThrow(QuantileFormatError);
  });
});
