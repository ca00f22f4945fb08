import { seededHashes } from '../../test/support/seeded-hashes';
import { ByteReader, ByteWriter, StoredFormatError } from '../metrics/byte-codec';
import { sketchOfHashes, type DistinctSketch } from './distinct-sketch';
import { eliasFanoBytes, lowWidth, readEliasFano, writeEliasFano } from './elias-fano';
import { DISTINCT_SKETCH } from './sketch-model';
import { readSketch, skipSketch, writeSketch } from './sketch-binary';
import { readVisitorDictionary, visitorIndexOf, writeVisitorDictionary } from './visitor-dictionary';

const LIMIT = DISTINCT_SKETCH.exactLimit;
const HASHES = 2 ** 52;

function back(values: readonly number[], universe: number): number[] {
  const bytes = writeEliasFano(values, universe);
  expect(bytes.length).toBe(eliasFanoBytes(values.length, universe));
  const out = new Float64Array(values.length);
  readEliasFano(bytes, 0, values.length, universe, out);
  return [...out];
}

const sortedHashes = (n: number, seed: number) =>
  [...new Set(Array.from({ length: n }, seededHashes(seed)))].sort((a, b) => a - b);

describe('values in bits (Elias-Fano)', () => {
  test('when the low width is asked, then it is the largest L with n * 2^L <= u', () => {
    expect(lowWidth(1, HASHES)).toBe(52);
    expect(lowWidth(3, HASHES)).toBe(50);
    expect(lowWidth(5, 40)).toBe(3);
    expect(lowWidth(7, 7)).toBe(0);
    expect(lowWidth(1, 2 ** 40 + 1)).toBe(40);
    expect(lowWidth(2, 2 ** 33 - 1)).toBe(31);
  });

  test.each([
    ['one hash', [12345]],
    ['the ends of the hash range', [0, 1, HASHES - 2, HASHES - 1]],
    ['one hash at the top', [HASHES - 1]],
    ['one hash at zero', [0]],
    ['a gap across the whole range', [0, HASHES - 1]],
    ['neighbours', [2 ** 40, 2 ** 40 + 1, 2 ** 40 + 2]],
  ])('when %s is stored, then it reads back the same', (_what, values) => {
    expect(back(values, HASHES)).toEqual(values);
  });

  test.each([1, 2, LIMIT, LIMIT + 1, 50_000])('when %i random hashes are stored, then they read back the same', (n) => {
    const values = sortedHashes(n, n);
    expect(back(values, HASHES)).toEqual(values);
    // about 2 + log2(u / n) bits a value, where a varint gap takes whole bytes
    if (n > 100) expect(eliasFanoBytes(n, HASHES)).toBeLessThan((n * (4 + Math.log2(HASHES / n))) / 8);
  });

  test.each([
    ['every index', 1000, (_i: number) => true],
    ['every other index', 1000, (i: number) => i % 2 === 0],
    ['the first and the last', 100_000, (i: number) => i === 0 || i === 99_999],
    ['one in a thousand', 1_000_000, (i: number) => i % 1000 === 7],
  ])('when indexes (%s) are stored, then they read back the same', (_what, universe, keep) => {
    const values: number[] = [];
    for (let i = 0; i < universe && values.length < 5000; i++) if (keep(i)) values.push(i);
    expect(back(values, universe)).toEqual(values);
  });

  test('when 1, 5 and 19 below 20 are stored, then the bytes are the pinned layout', () => {
    // L = 2; the high parts 0, 1, 4 as ones at 0, 2, 6 of a bitmap of 3 + 19 >> 2 = 7 bits; then
    // the low parts 1, 1, 3 in two bits each from bit 7 on; three bits of zeros to the byte's end
    expect(Buffer.from(writeEliasFano([1, 5, 19], 20)).toString('hex')).toBe('c51a');
  });

  test.each([
    ['cut short', (b: Uint8Array) => b.subarray(0, b.length - 1)],
    ['a one too many', (b: Uint8Array) => Uint8Array.from(b, (x, i) => (i === 0 ? x | 0x80 : x))],
    ['ones cleared', (b: Uint8Array) => Uint8Array.from(b, () => 0)],
    ['every bit set', (b: Uint8Array) => Uint8Array.from(b, () => 0xff)],
  ])('when stored bits are %s, then reading them is damage, not a crash', (_what, damage) => {
    const values = [3, 9, 10, 200, 201, 999];
    const bytes = damage(writeEliasFano(values, 1000));
    expect(() => readEliasFano(bytes, 0, values.length, 1000, new Float64Array(values.length))).toThrow(
      StoredFormatError,
    );
  });

  test('when random bytes are read as values, then each reads ascending values or is damage, never anything else', () => {
    const next = seededHashes(77);
    for (let trial = 0; trial < 3000; trial++) {
      const universe = 1 + (next() % (trial % 2 === 0 ? 5000 : HASHES));
      const n = 1 + (next() % 20);
      const bytes = Uint8Array.from({ length: next() % 40 }, () => next() % 256);
      const out = new Float64Array(n);
      try {
        readEliasFano(bytes, 0, n, universe, out);
        expect(out.length).toBe(n);
        for (let i = 0; i < n; i++) expect(out[i]!).toBeLessThan(universe);
        for (let i = 1; i < n; i++) expect(out[i]!).toBeGreaterThan(out[i - 1]!);
      } catch (err) {
        expect(err).toBeInstanceOf(StoredFormatError);
      }
    }
  });
});

describe('visitor dictionaries in bits', () => {
  test.each([1, 2, LIMIT, LIMIT + 1, 20_000])(
    'when a dictionary of %i visitors is stored in bits, then it reads back the same, in fewer bytes than varints',
    (n) => {
      const hashes = Float64Array.from(sortedHashes(n, n + 1));
      const bits = writeVisitorDictionary(hashes);
      const gaps = writeVisitorDictionary(hashes, false);
      expect(bits[0]).toBe(0);
      expect(readVisitorDictionary(bits)).toEqual(hashes);
      expect(readVisitorDictionary(gaps)).toEqual(hashes);
      if (n > 100) expect(bits.length).toBeLessThan(0.92 * gaps.length);
    },
  );

  test('when the hashes are at the ends of their range, then they read back the same', () => {
    const hashes = Float64Array.from([0, 1, HASHES - 2, HASHES - 1]);
    expect(readVisitorDictionary(writeVisitorDictionary(hashes))).toEqual(hashes);
  });

  test.each([
    ['a count of none', [0, 0, 0]],
    ['a count past the largest dictionary', [0, 0x81, 0xbd, 0x3d, 0]],
    ['bytes cut short', [...writeVisitorDictionary(Float64Array.from([5, 9, 2 ** 50])).subarray(0, 8)]],
    ['trailing bytes', [...writeVisitorDictionary(Float64Array.from([5, 9])), 0]],
  ])('when a stored dictionary in bits has %s, then reading it is damage, not a crash', (_what, bytes) => {
    expect(() => readVisitorDictionary(Uint8Array.from(bytes))).toThrow(StoredFormatError);
  });
});

describe('exact visitor sets as indexes in bits (kind 6)', () => {
  const pool = sortedHashes(3 * LIMIT, 41);
  const dictionary = Float64Array.from(pool);

  function roundTrip(s: DistinctSketch, bits = true): { kind: number; bytes: number; back: DistinctSketch } {
    const w = new ByteWriter();
    w.visitors = visitorIndexOf([dictionary])!.indexOf;
    w.visitorBits = bits;
    writeSketch(w, s);
    const bytes = w.bytes();
    const r = new ByteReader(bytes);
    r.visitors = dictionary;
    const read = readSketch(r);
    expect(r.done).toBe(true);
    const skipper = new ByteReader(bytes);
    skipper.visitors = () => dictionary;
    skipSketch(skipper);
    expect(skipper.done).toBe(true);
    return { kind: bytes[0]!, bytes: bytes.length, back: read };
  }

  test.each([
    [1, 4],
    // gaps of thousands: two bytes each as varints, about as many in bits
    [2, 4],
    [300, 6],
    [1000, 6],
    [2000, 6],
    // more than about an eighth of the dictionary: a bitmap over it
    [LIMIT, 5],
  ])(
    'when a set of %i visitors is in the dictionary, then it is stored as kind %i, in no more bytes than varint gaps, and reads back the same',
    (n, kind) => {
      // spread over the dictionary, as a page's or a campaign's visitors are over its unit's
      const step = Math.floor(pool.length / n);
      const set = sketchOfHashes(pool.filter((_, i) => i % step === 0).slice(0, n));
      const bits = roundTrip(set);
      const gaps = roundTrip(set, false);
      expect(bits.kind).toBe(kind);
      expect(bits.back).toEqual(set);
      expect(gaps.back).toEqual(set);
      expect(bits.bytes).toBeLessThanOrEqual(gaps.bytes);
      if (kind === 6) expect(bits.bytes).toBeLessThan(0.95 * gaps.bytes);
    },
  );

  test("when a set holds the dictionary's first and last visitors only, then it reads back the same", () => {
    const set = sketchOfHashes([pool[0]!, pool[pool.length - 1]!]);
    expect(roundTrip(set).back).toEqual(set);
  });

  test('when a set is a run of neighbours in a corner of the dictionary, then varint gaps of one byte stay (the shorter form)', () => {
    const set = sketchOfHashes(pool.filter((_, i) => i % 50 === 0).slice(0, 100));
    const out = roundTrip(set);
    expect(out.kind).toBe(4);
    expect(out.back).toEqual(set);
  });

  test.each([
    ['without a dictionary', [6, 1, 0], undefined],
    ['an empty set', [6, 0], 3],
    ['more visitors than an exact set holds', [6, 0x81, 0x20, ...new Array<number>(700).fill(0xff)], LIMIT + 5],
    ['bytes cut short', [6, 3, 0b00010101], 1000],
    ['ones past the count', [6, 2, 0b111], 4],
    ['indexes out of order (a repeat)', [6, 2, 0b011, 0], 4],
  ])('when stored indexes in bits are read %s, then it is damage, not a crash', (_what, bytes, size) => {
    const r = new ByteReader(Uint8Array.from(bytes));
    if (size !== undefined) r.visitors = Float64Array.from({ length: size }, (_, i) => i);
    expect(() => readSketch(r)).toThrow(StoredFormatError);
    const skipper = new ByteReader(Uint8Array.from(bytes));
    if (size !== undefined) skipper.visitors = Float64Array.from({ length: size }, (_, i) => i);
    try {
      skipSketch(skipper);
    } catch (err) {
      expect(err).toBeInstanceOf(StoredFormatError);
    }
  });
});
