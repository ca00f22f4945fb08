import { keyOf } from './quantile-mapping';
import { decodeQuantiles, emptyQuantiles, encodeQuantiles, QuantileFormatError, quantilesOf } from './quantile-sketch';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const bytes = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text.replace(/ /g, ''), 'hex'));

describe('stored quantile sketch v1', () => {
  test('when the sketch is empty, then it is stored as three bytes: version 1, no zeros, no bins', () => {
    expect(hex(encodeQuantiles(emptyQuantiles()))).toBe('010000');
    expect(decodeQuantiles(bytes('010000'))).toBe(emptyQuantiles());
  });

  test('when values are stored, then the bytes are the version, zeros, bin count, min, max and per bin the key gap and count, as LEB128 varints', () => {
    // 0 twice; 1 is key 0, 3 key 2 (gap 1), 1,000,000 key 576 (gap 573: two varint bytes); min 0, max 1,000,000 (three)
    expect([keyOf(1), keyOf(3), keyOf(1_000_000)]).toEqual([0, 2, 576]);
    const s = quantilesOf([0, 3, 1, 0, 1_000_000, 3, 3]);
    expect(hex(encodeQuantiles(s))).toBe(
      '01' + '02' + '03' + '00' + 'c0843d' + '00' + '01' + '01' + '03' + 'bd04' + '01',
    );
    expect(decodeQuantiles(encodeQuantiles(s))).toEqual(s);
  });

  test('when the version byte is not 1, then decoding names the version instead of guessing', () => {
    expect(() => decodeQuantiles(bytes('020000'))).toThrow(QuantileFormatError);
    expect(() => decodeQuantiles(bytes('020000'))).toThrow(/unknown quantile-sketch format version 2/);
    expect(() => decodeQuantiles(new Uint8Array(0))).toThrow(QuantileFormatError);
  });

  test('when stored bytes are damaged, then decoding throws instead of answering wrong quantiles', () => {
    const good = hex(encodeQuantiles(quantilesOf([0, 3, 1, 0, 1_000_000, 3, 3])));
    const damaged = [
      good.slice(0, -2), // truncated
      good + '00', // trailing byte
      '01 00 01 05 05 0000', // a bin with count 0
      '01 00 01 05 05 ff0f 01', // a key past the largest
      '01 00 01 06 05 3701', // min above max
      '01 00 01 03 03 0301', // min/max not in their bin (3 is key 2, not 3)
      '01 00 02 03 03 0201 0001', // max not in the last bin
      '01 01 00 01 00', // zeros but min not 0
      '01 8000 00', // a padded varint
      '01 ffffffffffffffff01 00', // a varint longer than 8 bytes
      '01 00 01 01 01 00 ffffffffffffff1f', // a number past 2^53
      '01 01 01 00 01 00 ffffffffffffff0f', // 1 zero + 2^53 - 1 ones: a total past 2^53
    ];
    for (const text of damaged) expect(() => decodeQuantiles(bytes(text))).toThrow(QuantileFormatError);
    expect(() => decodeQuantiles('0100' as unknown as Uint8Array)).toThrow(QuantileFormatError);
  });
});
