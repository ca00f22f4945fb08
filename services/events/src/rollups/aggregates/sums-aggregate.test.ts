import { measureSum, sumsAggregate, type SumsState } from './sums-aggregate';

// A sum is a JSON-safe number while it is a safe integer and a bigint beyond (one form for each
// total, so states compare equal), exact at any size: value sums pass 2^53 after about 9,008 hits
// at the largest value (10^12 cents).
const MAX_VALUE = 1_000_000_000_000;
const valueRow = (value: number, events: number) => ({ _id: { mv: value }, mc: events });

describe('the sums aggregate past 2^53', () => {
  test('when sums pass 2^53 in a merge, then the result is the exact bigint, and below it a number', () => {
    const a: SumsState = [0, 0, 0, 0, 9_008, 9_008_000_000_000_000];
    const b: SumsState = [0, 0, 0, 0, 1, 1];
    const sum = measureSum(sumsAggregate.merge(a, b), 2);
    expect(sum).toEqual({ events: 9_009, sum: 9_008_000_000_000_001n });
    expect(measureSum(sumsAggregate.merge([0, 0, 0, 0, 1, 5], b), 2)).toEqual({ events: 2, sum: 6 });
  });

  test('when one value was seen by many events, then its product is exact', () => {
    const state = sumsAggregate.fromGroup(valueRow(MAX_VALUE - 3, 9_013));
    expect(measureSum(state, 2).sum).toBe(BigInt(MAX_VALUE - 3) * 9_013n);
    const more = sumsAggregate.merge(state, sumsAggregate.fromGroup(valueRow(7, 1)));
    expect(measureSum(more, 2).sum).toBe(BigInt(MAX_VALUE - 3) * 9_013n + 7n);
  });

  test('when a bigint sum is merged with numbers in any order or grouping, then the result is the same', () => {
    const states: SumsState[] = [
      [1, 3, 0, 0, 9_000, 9_000_000_000_000_000],
      [0, 0, 2, 150, 8, 8_000_000_000_000],
      sumsAggregate.fromGroup(valueRow(MAX_VALUE, 9_100)),
      [0, 0, 0, 0, 1, 1],
    ];
    const reference = states.reduce((x, y) => sumsAggregate.merge(x, y));
    for (let i = 0; i < states.length; i++) {
      const rotated = [...states.slice(i), ...states.slice(0, i)];
      expect(rotated.reduce((x, y) => sumsAggregate.merge(x, y))).toEqual(reference);
      expect(rotated.reduceRight((x, y) => sumsAggregate.merge(y, x))).toEqual(reference);
    }
    expect(measureSum(reference, 2).sum).toBe(9_000_000_000_000_000n + 8_000_000_000_000n + 9_100n * 10n ** 12n + 1n);
  });

  test('when a state past 2^53 is stored, then its sum is a decimal string and reads back exactly', () => {
    const big = sumsAggregate.fromGroup(valueRow(MAX_VALUE, 10_000));
    const stored = JSON.parse(JSON.stringify(sumsAggregate.encode([big, sumsAggregate.empty(), [1, 2, 0, 0, 0, 0]])));
    expect(stored).toEqual([[0, 0, 0, 0, 10_000, '10000000000000000'], 0, [1, 2, 0, 0, 0, 0]]);
    expect(sumsAggregate.decode(stored)).toEqual([big, sumsAggregate.empty(), [1, 2, 0, 0, 0, 0]]);
  });

  test('when cells written before are read (numbers only, a sum past 2^53 as the double it was), then they decode as before', () => {
    expect(sumsAggregate.decode([[2, 900, 1, 50, 0, 0], 0, 0])).toEqual([
      [2, 900, 1, 50, 0, 0],
      sumsAggregate.empty(),
      sumsAggregate.empty(),
    ]);
    // such a double was already rounded when it was written; it is read as the integer it is
    const [old] = sumsAggregate.decode([[0, 0, 0, 0, 9_100, 9_100_000_000_000_000], 0, 0]);
    expect(measureSum(old, 2).sum).toBe(9_100_000_000_000_000n);
    expect(sumsAggregate.decode(undefined)).toEqual([
      sumsAggregate.empty(),
      sumsAggregate.empty(),
      sumsAggregate.empty(),
    ]);
  });

  test('when a stored sum is damaged (not an integer, negative, not digits), then reading it throws instead of answering a wrong sum', () => {
    for (const bad of ['12a', '-5', '', '1e20', ' 7', 1.5, -1, null, { $gt: 0 }]) {
      expect(() => sumsAggregate.decode([[0, 0, 0, 0, 1, bad], 0, 0])).toThrow(/stored measure sum/);
    }
  });
});
