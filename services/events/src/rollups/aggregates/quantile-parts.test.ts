import { MEASURE_NAMES } from '@cm/contracts';
import { seededHashes } from '../../../test/support/seeded-hashes';
import { encodeQuantiles, mergeAllQuantiles, quantilesOf, type QuantileSketch } from '../../sketches/quantile-sketch';
import type { PerDevice } from './aggregate';
import {
  emptyQuantileStates,
  mergeAllQuantileParts,
  quantilePartsBytes,
  quantilesAggregate,
  storedQuantiles,
  type QuantilesState,
} from './quantiles-aggregate';

const hex = (s: QuantileSketch): string => Buffer.from(encodeQuantiles(s)).toString('hex');

/** A stored cell entry (as `q` holds it, through JSON) and the states it was made of. */
function randomEntry(next: () => number): { stored: unknown; states: PerDevice<QuantilesState> } {
  const state = (): QuantilesState =>
    next() % 4 === 0
      ? emptyQuantileStates()
      : MEASURE_NAMES.map(() => quantilesOf(Array.from({ length: next() % 30 }, () => next() % 100_000)));
  const states: PerDevice<QuantilesState> = [state(), state(), state()];
  return { stored: JSON.parse(JSON.stringify(quantilesAggregate.encode(states))) as unknown, states };
}

describe('mergeAllQuantileParts', () => {
  test('when stored entries and decoded states are merged, then each selected measure is the merge of the selected devices, decoded or not', () => {
    const next = seededHashes(77);
    for (let trial = 0; trial < 30; trial++) {
      const devices = [[0, 1, 2], [1], [0, 2]][trial % 3]!;
      const measures = [[0], [0, 1], [2]][trial % 3]!;
      const entries = Array.from({ length: 1 + (next() % 8) }, () => randomEntry(next));
      const raw = MEASURE_NAMES.map(() => quantilesOf(Array.from({ length: next() % 10 }, () => next() % 5000)));
      const merged = mergeAllQuantileParts([...entries.map((e) => storedQuantiles(e.stored, devices, measures)), raw]);
      for (const m of measures) {
        const expected = mergeAllQuantiles([
          ...entries.flatMap((e) => devices.map((d) => e.states[d]![m] ?? quantilesOf([]))),
          raw[m]!,
        ]);
        expect(hex(merged[m]!)).toBe(hex(expected));
      }
    }
  });

  test('when a part is not a stored entry (a cell from before measures), then it adds nothing, and a single decoded state is returned as it is', () => {
    const raw = MEASURE_NAMES.map(() => quantilesOf([1, 2, 3]));
    expect(mergeAllQuantileParts([storedQuantiles(0, [0], [0])])).toBe(emptyQuantileStates());
    expect(mergeAllQuantileParts([raw])).toBe(raw);
    expect(quantilePartsBytes(storedQuantiles(undefined, [0], [0]))).toBe(0);
  });

  test('when a stored sketch is damaged, then the merge throws and the next merge starts clean', () => {
    const good = randomEntry(seededHashes(5));
    const damaged = storedQuantiles([[Buffer.from([1, 0, 1, 5, 5]).toString('base64url'), 0, 0], 0, 0], [0], [0]);
    const before = mergeAllQuantileParts([storedQuantiles(good.stored, [0, 1, 2], [0])]);
    expect(() => mergeAllQuantileParts([storedQuantiles(good.stored, [0, 1, 2], [0]), damaged])).toThrow(/quantile/);
    const after = mergeAllQuantileParts([storedQuantiles(good.stored, [0, 1, 2], [0])]);
    expect(hex(after[0]!)).toBe(hex(before[0]!));
    expect(quantilePartsBytes(storedQuantiles(good.stored, [0, 1, 2], [0]))).toBeGreaterThan(64);
  });
});
