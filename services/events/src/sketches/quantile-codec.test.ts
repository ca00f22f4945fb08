import { keyOf } from './quantile-mapping';
import { decodeQuantiles, emptyQuantiles, encodeQuantiles, QuantileFormatError, quantilesOf } from './quantile-sketch';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const bytes = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text.replace(/ /g, ''), 'hex'));

describe('stored quantile sketch v2', () => {
  test('when the sketch is empty, then it is stored as three bytes: version 2, no zeros, no bins', () => {
    expect(hex(encodeQuantiles(emptyQuantiles()))).toBe('020000');
    expect(decodeQuantiles(bytes('020000'))).toBe(emptyQuantiles());
  });

  test('when values are stored, then the bytes are the version, zeros, bin count, min, max and per bin the key gap and count, as LEB128 varints', () => {
    // 0 twice; 1 is key 0, 3 key 2 (gap 1), 1,000,000 key 576 (gap 573: two varint bytes); min 0, max 1,000,000 (three)
    expect([keyOf(1), keyOf(3), keyOf(1_000_000)]).toEqual([0, 2, 576]);
    const s = quantilesOf([0, 3, 1, 0, 1_000_000, 3, 3]);
    expect(hex(encodeQuantiles(s))).toBe(
      '02' + '02' + '03' + '00' + 'c0843d' + '00' + '01' + '01' + '03' + 'bd04' + '01',
    );
    expect(decodeQuantiles(encodeQuantiles(s))).toEqual(s);
  });

  test('when the version byte is neither 1 nor 2, then decoding names the version instead of guessing', () => {
    expect(() => decodeQuantiles(bytes('030000'))).toThrow(QuantileFormatError);
    expect(() => decodeQuantiles(bytes('030000'))).toThrow(/unknown quantile-sketch format version 3/);
    expect(() => decodeQuantiles(bytes('000000'))).toThrow(/unknown quantile-sketch format version 0/);
    expect(() => decodeQuantiles(new Uint8Array(0))).toThrow(QuantileFormatError);
  });

  test('when stored bytes are damaged, then decoding throws instead of answering wrong quantiles', () => {
    const good = hex(encodeQuantiles(quantilesOf([0, 3, 1, 0, 1_000_000, 3, 3])));
    const damaged = [
      good.slice(0, -2), // truncated
      good + '00', // trailing byte
      '02 00 01 05 05 0000', // a bin with count 0
      '02 00 01 05 05 ff0f 01', // a key past the largest
      '02 00 01 06 05 3701', // min above max
      '02 00 01 03 03 0301', // min/max not in their bin (3 is key 2, not 3)
      '02 00 02 03 03 0201 0001', // max not in the last bin
      '02 01 00 01 00', // zeros but min not 0
      '02 8000 00', // a padded varint
      '02 ffffffffffffffff01 00', // a varint longer than 8 bytes
      '02 00 01 01 01 00 ffffffffffffff1f', // a number past 2^53
      '02 01 01 00 01 00 ffffffffffffff0f', // 1 zero + 2^53 - 1 ones: a total past 2^53
    ];
    for (const text of damaged) expect(() => decodeQuantiles(bytes(text))).toThrow(QuantileFormatError);
    expect(() => decodeQuantiles('0200' as unknown as Uint8Array)).toThrow(QuantileFormatError);
  });
});

// Version 1 named two layouts on main: first one with logarithmic bins only and no min and max
// (`01 zeros bins (gap count)*`, gaps from the previous bin index, at least 1), then today's layout,
// which now has version 2. The two are told apart by their number of varints.
describe('stored quantile sketch v1', () => {
  test("when a value of today's layout carries version 1, then it is read as the same sketch as version 2", () => {
    const s = quantilesOf([0, 3, 1, 0, 1_000_000, 3, 3]);
    const v1 = bytes('01 02 03 00 c0843d 00 01 01 03 bd04 01');
    expect(decodeQuantiles(v1)).toEqual(s);
    expect(hex(encodeQuantiles(decodeQuantiles(v1)))).toBe('02' + hex(v1).slice(2));
    expect(decodeQuantiles(bytes('01 00 00'))).toBe(emptyQuantiles());
    const one = quantilesOf([42_000]);
    expect(decodeQuantiles(bytes('01' + hex(encodeQuantiles(one)).slice(2)))).toEqual(one);
  });

  test('when a value of the first layout is read, then it is refused by name (its bins cannot be mapped to exact ones)', () => {
    const firstLayout = [
      '01 02 02 01 05 8c01 02', // two zeros, bins 0 and 140
      '01 00 01 c906 01', // one value in bin 841
      '01 05 00', // five zeros, no bins
    ];
    for (const text of firstLayout) {
      expect(() => decodeQuantiles(bytes(text))).toThrow(QuantileFormatError);
      expect(() => decodeQuantiles(bytes(text))).toThrow(/first layout of version 1/);
    }
    // damaged bytes are still just damaged
    expect(() => decodeQuantiles(bytes('01 00 01 05'))).toThrow(/truncated/);
  });
});
