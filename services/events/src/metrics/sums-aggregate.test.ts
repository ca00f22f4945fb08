import { Binary } from 'mongodb';
import { ByteReader, ByteWriter } from './byte-codec';
import { sumsAggregate, type SumsState } from './sums-aggregate';

// A sum is a JSON-safe number while it is a safe integer and a bigint beyond (one form for each
// total, so states compare equal), exact at any size: value sums pass 2^53 after about 9,008 hits
// at the largest value (10^12 cents).
const MAX_VALUE = 1_000_000_000_000;
const valueRow = (value: number, events: number) => ({ _id: { mv: value }, mc: events });
const valueSum = (s: SumsState) => s[5];

function roundTrip(s: SumsState): SumsState {
  const w = new ByteWriter();
  sumsAggregate.write(w, s);
  return sumsAggregate.read(new ByteReader(w.bytes()));
}

describe('the sums aggregate past 2^53', () => {
  test('when sums pass 2^53 in a merge, then the result is the exact bigint, and below it a number', () => {
    const a: SumsState = [0, 0, 0, 0, 9_008, 9_008_000_000_000_000];
    const b: SumsState = [0, 0, 0, 0, 1, 1];
    expect(valueSum(sumsAggregate.merge(a, b))).toBe(9_008_000_000_000_001n);
    expect(valueSum(sumsAggregate.merge([0, 0, 0, 0, 1, 5], b))).toBe(6);
  });

  test('when one value was seen by many events, then its product is exact', () => {
    const state = sumsAggregate.fromRow(valueRow(MAX_VALUE - 3, 9_013));
    expect(valueSum(state)).toBe(BigInt(MAX_VALUE - 3) * 9_013n);
    const more = sumsAggregate.merge(state, sumsAggregate.fromRow(valueRow(7, 1)));
    expect(valueSum(more)).toBe(BigInt(MAX_VALUE - 3) * 9_013n + 7n);
  });

  test('when a bigint sum is merged with numbers in any order or grouping, in place or not, then the result is the same', () => {
    const states: SumsState[] = [
      [1, 3, 0, 0, 9_000, 9_000_000_000_000_000],
      [0, 0, 2, 150, 8, 8_000_000_000_000],
      sumsAggregate.fromRow(valueRow(MAX_VALUE, 9_100)),
      [0, 0, 0, 0, 1, 1],
    ];
    const reference = states.reduce((x, y) => sumsAggregate.merge(x, y));
    for (let i = 0; i < states.length; i++) {
      const rotated = [...states.slice(i), ...states.slice(0, i)];
      expect(rotated.reduce((x, y) => sumsAggregate.merge(x, y))).toEqual(reference);
      expect(rotated.reduce((x, y) => sumsAggregate.mergeInto(x, y), sumsAggregate.own(sumsAggregate.empty()))).toEqual(
        reference,
      );
    }
    expect(valueSum(reference)).toBe(9_000_000_000_000_000n + 8_000_000_000_000n + 9_100n * 10n ** 12n + 1n);
  });

  test('when a state past 2^53 is stored, then its sum reads back exactly', () => {
    const big = sumsAggregate.fromRow(valueRow(MAX_VALUE, 10_000));
    expect(roundTrip(big)).toEqual([0, 0, 0, 0, 10_000, 10_000_000_000_000_000n]);
    expect(roundTrip([1, 2, 0, 0, 0, 0])).toEqual([1, 2, 0, 0, 0, 0]);
    expect(roundTrip(sumsAggregate.empty())).toEqual(sumsAggregate.empty());
  });

  test('when a stored sum is damaged (not digits, a leading zero, a safe integer as digits), then reading it throws instead of answering a wrong sum', () => {
    for (const bad of ['12a', '-5', '', '1e20', ' 7', '0900719925474099300', '42']) {
      const w = new ByteWriter();
      w.byte(0b100100); // value carried, its sum past 2^53
      w.uint(1);
      w.string(bad);
      expect(() => sumsAggregate.read(new ByteReader(w.bytes()))).toThrow(/stored measure sum/);
    }
    expect(() => sumsAggregate.read(new ByteReader(new Binary(Buffer.from([0x40])).buffer))).toThrow(/unknown measure/);
  });
});
