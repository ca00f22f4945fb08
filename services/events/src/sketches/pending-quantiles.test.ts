import { seededHashes } from '../../test/support/seeded-hashes';
import { DISTRIBUTIONS } from '../../test/support/value-distributions';
import { DenseQuantileBins } from './dense-quantile-bins';
import { PendingQuantiles } from './pending-quantiles';
import { encodeQuantiles, quantileAnswer, quantilesOf, shareAnswer, type QuantileSketch } from './quantile-sketch';

const hex = (s: QuantileSketch): string => Buffer.from(encodeQuantiles(s)).toString('hex');
const QS = [0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1];

/** A part as a report group meets it: empty, zeros, one value, edge values, or a few of one shape. */
function randomPart(next: () => number): number[] {
  const pick = next() % 10;
  if (pick === 0) return [];
  if (pick === 1) return Array.from({ length: 1 + (next() % 3) }, () => 0);
  if (pick === 2) return [[1, 128, 129, 1_000_000_000, 2 ** 53 - 1][next() % 5]!];
  const distribution = DISTRIBUTIONS[next() % DISTRIBUTIONS.length]!;
  return distribution.draw([1, 3, 8, 40, 200][next() % 5]!, next() % 100_000);
}

/** Parts held as they are, as the report's merge holds them: the first two make it, the rest are added. */
function pendingOf(sketches: QuantileSketch[]): PendingQuantiles | DenseQuantileBins {
  let state: PendingQuantiles | DenseQuantileBins = new PendingQuantiles(sketches.slice(0, 2));
  for (const s of sketches.slice(2)) state = state instanceof PendingQuantiles ? state.add(s) : (state.add(s), state);
  return state;
}

describe('PendingQuantiles', () => {
  test('when random parts are held, then every percentile equals the merged sketch`s, and so does its sketch', () => {
    for (let trial = 0; trial < 600; trial++) {
      const next = seededHashes(9100 + trial);
      const parts = Array.from({ length: 2 + (next() % 14) }, () => randomPart(next));
      const pending = new PendingQuantiles(parts.map((p) => quantilesOf(p)));
      const merged = quantilesOf(parts.flat());
      for (const q of QS) expect(pending.quantileAnswer(q)).toEqual(quantileAnswer(merged, q));
      expect(pending.count).toBe(merged.count);
      expect(hex(pending.toSketch())).toBe(hex(merged));
      for (const t of [0, 1, 100, 129, 30_000, 1e9])
        expect(shareAnswer(pending.toSketch(), t)).toEqual(shareAnswer(merged, t));
    }
  });

  test('when parts pass the bounds, then they are folded into dense bins of the same sketch, which take the rest', () => {
    const next = seededHashes(77);
    for (let trial = 0; trial < 40; trial++) {
      const values = Array.from({ length: 3 + (next() % 60) }, () => randomPart(next));
      const parts = values.map((v) => quantilesOf(v));
      const state = pendingOf(parts);
      const merged = quantilesOf(values.flat());
      expect(hex(state.toSketch())).toBe(hex(merged));
      const nonEmpty = parts.filter((p) => p.count > 0);
      const bins = nonEmpty.reduce((n, p) => n + p.keys.length, 0);
      expect(state instanceof PendingQuantiles).toBe(PendingQuantiles.holds(nonEmpty.length, bins));
    }
  });

  test('when 17 parts of one value arrive, then the 17th folds them: a group never holds more than 16 parts', () => {
    let state: PendingQuantiles | DenseQuantileBins = new PendingQuantiles([quantilesOf([5]), quantilesOf([6])]);
    for (let i = 0; i < 14; i++) state = (state as PendingQuantiles).add(quantilesOf([7 + i]));
    expect(state).toBeInstanceOf(PendingQuantiles);
    state = (state as PendingQuantiles).add(quantilesOf([1_000]));
    expect(state).toBeInstanceOf(DenseQuantileBins);
    expect(quantileAnswer(state.toSketch(), 1)).toEqual({ value: 1_000, exact: true });
  });

  test('when it is made of more parts than it may hold, then it refuses them', () => {
    expect(() => new PendingQuantiles(Array.from({ length: 17 }, (_, i) => quantilesOf([i + 1])))).toThrow(RangeError);
  });

  test('when a sketch is taken, a later part leaves it as it was', () => {
    const pending = new PendingQuantiles([quantilesOf([5, 500]), quantilesOf([9])]);
    const before = pending.toSketch();
    const copy = hex(before);
    pending.add(quantilesOf([7_000]));
    expect(hex(before)).toBe(copy);
    expect(hex(pending.toSketch())).toBe(hex(quantilesOf([5, 500, 9, 7_000])));
  });

  test('when parts are held, then its bytes count every part it keeps alive, by its bins', () => {
    const parts = [quantilesOf([1, 2, 3]), quantilesOf([1_000, 2_000])];
    const pending = new PendingQuantiles(parts);
    const one = new PendingQuantiles([parts[0]!, quantilesOf([])]);
    expect(pending.bytes()).toBeGreaterThan(one.bytes());
    expect(pending.bytes()).toBeGreaterThanOrEqual(2 * 8 + 10 * (3 + 2));
    // the most it holds before folding: about a dense window over the mapping's keys (13.8 kB)
    const widest = new PendingQuantiles([
      quantilesOf(Array.from({ length: 1_024 }, (_, i) => Math.round(1.0202 ** i))),
    ]);
    expect(widest.bytes()).toBeLessThan(16 * 1_024);
  });

  test('when counts pass 2^53 - 1, then it refuses them as the dense bins do', () => {
    const big: QuantileSketch = {
      count: 2 ** 53 - 2,
      zeros: 0,
      min: 5,
      max: 5,
      keys: Uint16Array.of(4),
      counts: Float64Array.of(2 ** 53 - 2),
    };
    const pending = new PendingQuantiles([big]);
    expect(() => pending.add(quantilesOf([5, 5]))).toThrow(RangeError);
  });
});
