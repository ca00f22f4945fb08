import { seededHashes } from '../../test/support/seeded-hashes';
import { DISTRIBUTIONS } from '../../test/support/value-distributions';
import {
  addStoredQuantiles,
  emptyQuantiles,
  encodeQuantiles,
  mergeQuantiles,
  QuantileFormatError,
  QuantileMerger,
  quantilesOf,
  type QuantileSketch,
} from './quantile-sketch';

const hex = (s: QuantileSketch): string => Buffer.from(encodeQuantiles(s)).toString('hex');

function randomSketches(trial: number): { values: number[][]; sketches: QuantileSketch[] } {
  const next = seededHashes(900 + trial);
  const values = Array.from({ length: 1 + (next() % 12) }, () =>
    DISTRIBUTIONS[next() % DISTRIBUTIONS.length]!.draw([0, 1, 3, 40, 700][next() % 5]!, next() % 1000),
  );
  return { values, sketches: values.map((v) => quantilesOf(v)) };
}

describe('QuantileMerger', () => {
  test('when decoded and stored sketches are added in any mix, then take() is the sketch of all their values and the pairwise merge', () => {
    const merger = new QuantileMerger();
    for (let trial = 0; trial < 40; trial++) {
      const { values, sketches } = randomSketches(trial);
      sketches.forEach((s, i) => {
        if (i % 2 === 0 || s.count === 0) merger.add(s);
        else {
          // stored bytes inside a larger reused buffer, as reports read them
          const bytes = encodeQuantiles(s);
          const buffer = new Uint8Array(bytes.length + 7).fill(0xff);
          buffer.set(bytes);
          addStoredQuantiles(merger, buffer, bytes.length);
        }
      });
      const merged = merger.take();
      expect(hex(merged)).toBe(hex(quantilesOf(values.flat())));
      expect(merged).toEqual(sketches.reduce(mergeQuantiles, emptyQuantiles()));
    }
  });

  test('when nothing or only empty sketches were added, then take() is the empty sketch', () => {
    const merger = new QuantileMerger();
    expect(merger.take()).toBe(emptyQuantiles());
    merger.add(emptyQuantiles());
    expect(merger.take()).toBe(emptyQuantiles());
  });

  test('when a stored part is damaged, then it throws before adding anything, and clear() empties a merge abandoned half-way', () => {
    const merger = new QuantileMerger();
    const good = quantilesOf([5, 500, 50_000]);
    merger.add(good);
    const bytes = encodeQuantiles(quantilesOf([7, 9000]));
    expect(() => addStoredQuantiles(merger, bytes, bytes.length - 1)).toThrow(QuantileFormatError);
    expect(() => addStoredQuantiles(merger, bytes, bytes.length + 1)).toThrow(QuantileFormatError);
    expect(() => addStoredQuantiles(merger, bytes, 0)).toThrow(QuantileFormatError);
    expect(hex(merger.take())).toBe(hex(good));
    merger.add(good);
    merger.clear();
    merger.add(quantilesOf([1]));
    expect(hex(merger.take())).toBe(hex(quantilesOf([1])));
  });
});
