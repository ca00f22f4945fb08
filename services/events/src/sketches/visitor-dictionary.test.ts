import { seededHashes } from '../../test/support/seeded-hashes';
import { ByteReader, ByteWriter, StoredFormatError } from '../metrics/byte-codec';
import { sketchOfHashes, type DistinctSketch } from './distinct-sketch';
import { DISTINCT_SKETCH } from './sketch-model';
import { readSketch, skipSketch, writeSketch } from './sketch-binary';
import {
  MAX_DICTIONARY_VISITORS,
  readVisitorDictionary,
  visitorIndexOf,
  writeVisitorDictionary,
} from './visitor-dictionary';

const LIMIT = DISTINCT_SKETCH.exactLimit;
const pool = Array.from({ length: 3 * LIMIT }, seededHashes(41));

/** A sketch written with the writer's dictionary (none when undefined) and read back with the reader's. */
function roundTrip(s: DistinctSketch, hashes?: Float64Array): { kind: number; bytes: number; back: DistinctSketch } {
  const w = new ByteWriter();
  if (hashes) w.visitors = visitorIndexOf([hashes])!.indexOf;
  writeSketch(w, s);
  const bytes = w.bytes();
  const r = new ByteReader(bytes);
  if (hashes) r.visitors = visitorIndexOf([hashes])!.hashes;
  const back = readSketch(r);
  expect(r.done).toBe(true);
  const skipper = new ByteReader(bytes);
  skipper.visitors = r.visitors;
  skipSketch(skipper);
  expect(skipper.done).toBe(true);
  return { kind: bytes[0]!, bytes: bytes.length, back };
}

describe('visitor dictionary', () => {
  test('when lists overlap and repeat, then the dictionary is their sorted union and each hash knows its index', () => {
    const index = visitorIndexOf([[pool[2]!, pool[0]!], [pool[0]!, pool[1]!], []])!;
    const sorted = [pool[0]!, pool[1]!, pool[2]!].sort((a, b) => a - b);
    expect([...index.hashes]).toEqual(sorted);
    sorted.forEach((h, i) => expect(index.indexOf.get(h)).toBe(i));
  });

  test('when there are no visitors, then there is no dictionary, and an empty stored one reads back empty', () => {
    expect(visitorIndexOf([])).toBeUndefined();
    expect(visitorIndexOf([[], []])).toBeUndefined();
    expect(readVisitorDictionary(writeVisitorDictionary(new Float64Array(0)))).toEqual(new Float64Array(0));
  });

  test.each([1, 2, LIMIT, LIMIT + 1, 20_000])(
    'when a dictionary of %i visitors is stored, then it reads back the same',
    (n) => {
      const hashes = visitorIndexOf([Array.from({ length: n }, seededHashes(n))])!.hashes;
      expect(readVisitorDictionary(writeVisitorDictionary(hashes))).toEqual(hashes);
    },
  );

  test('when the hashes are at the ends of their range, then they read back the same', () => {
    const hashes = Float64Array.from([0, 1, 2 ** 52 - 2, 2 ** 52 - 1]);
    expect(readVisitorDictionary(writeVisitorDictionary(hashes))).toEqual(hashes);
  });

  test('when there are more visitors than a dictionary holds, then there is none', () => {
    const many = Float64Array.from({ length: MAX_DICTIONARY_VISITORS + 1 }, (_, i) => i * 7);
    expect(visitorIndexOf([many])).toBeUndefined();
  });

  test.each([
    ['a repeated hash', [2, 5, 0]],
    ['a hash past 2^52', [1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10]],
    ['a count larger than its bytes', [50, 1, 2]],
    ['bytes cut short', [3, 1, 2]],
    ['trailing bytes', [1, 5, 6]],
    ['a varint that never ends', [1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]],
  ])('when a stored dictionary has %s, then reading it is damage, not a crash', (_what, bytes) => {
    expect(() => readVisitorDictionary(Uint8Array.from(bytes))).toThrow(StoredFormatError);
  });

  test('when random bytes are read as a set with a dictionary, then each reads or is damage, never anything else', () => {
    const next = seededHashes(98);
    const visitors = Float64Array.from({ length: 50 }, (_, i) => i * 3);
    for (let trial = 0; trial < 2000; trial++) {
      const r = new ByteReader(
        Uint8Array.from([4 + (trial % 3), ...Array.from({ length: next() % 12 }, () => next() % 256)]),
      );
      r.visitors = visitors;
      try {
        const s = readSketch(r);
        expect(s.kind).toBe('exact');
      } catch (err) {
        expect(err).toBeInstanceOf(StoredFormatError);
      }
    }
  });

  test('when random bytes are read as a dictionary, then each reads or is damage, never anything else', () => {
    const next = seededHashes(99);
    for (let trial = 0; trial < 2000; trial++) {
      const bytes = Uint8Array.from({ length: next() % 40 }, () => next() % 256);
      try {
        const hashes = readVisitorDictionary(bytes);
        for (let i = 1; i < hashes.length; i++) expect(hashes[i]!).toBeGreaterThan(hashes[i - 1]!);
      } catch (err) {
        expect(err).toBeInstanceOf(StoredFormatError);
      }
    }
  });
});

describe('exact visitor sets as indexes into the dictionary (kind 4)', () => {
  const dictionary = visitorIndexOf([pool])!.hashes;

  test.each([
    [1, 4],
    [2, 4],
    [100, 4],
    [1000, 4],
    // more than an eighth of the dictionary: a bitmap over it
    [LIMIT, 5],
  ])(
    'when a set of %i visitors is in the dictionary, then it is stored as kind %i, in fewer bytes, and reads back the same',
    (n, kind) => {
      const set = sketchOfHashes(pool.filter((_, i) => i % 3 === 0).slice(0, n));
      const indexed = roundTrip(set, dictionary);
      const hashed = roundTrip(set);
      expect([indexed.kind, hashed.kind]).toEqual([kind, 1]);
      expect(indexed.back).toEqual(set);
      expect(hashed.back).toEqual(set);
      expect(indexed.bytes).toBeLessThan(hashed.bytes);
    },
  );

  test('when one visitor of a set is not in the dictionary, then the set keeps its hashes', () => {
    const set = sketchOfHashes([...pool.slice(0, 10), 2 ** 52 - 1]);
    const out = roundTrip(set, dictionary);
    expect(out.kind).toBe(1);
    expect(out.back).toEqual(set);
  });

  test('when a set has 4,097 visitors, then it is registers with or without a dictionary', () => {
    const set = sketchOfHashes(pool.slice(0, LIMIT + 1));
    expect(set.kind).toBe('hll');
    const out = roundTrip(set, dictionary);
    expect(out.kind === 2 || out.kind === 3).toBe(true);
    expect(out.back).toEqual(set);
  });

  test('when the empty set is written with a dictionary, then it is the empty kind', () => {
    expect(roundTrip(sketchOfHashes([]), dictionary)).toMatchObject({ kind: 0, bytes: 1 });
  });

  test.each([
    ['without a dictionary', [4, 1, 0], undefined],
    ['an index past the dictionary', [4, 1, 3], 3],
    ['indexes out of order', [4, 2, 1, 0], 3],
    ['an empty set', [4, 0], 3],
    ['more visitors than an exact set holds', [4, 0x81, 0x20, ...new Array<number>(LIMIT + 1).fill(1)], LIMIT + 5],
    ['bytes cut short', [4, 3, 0, 1], 3],
    ['a bitmap without a dictionary', [5, 1], undefined],
    ['an empty bitmap', [5, 0], 3],
    ['a bitmap bit past the dictionary', [5, 0b1001], 3],
    ['a bitmap cut short', [5, 1], 9],
    ['a bitmap of more visitors than an exact set holds', [5, ...new Array<number>(513).fill(0xff)], 4104],
  ])('when stored indexes are read %s, then it is damage, not a crash', (_what, bytes, size) => {
    const r = new ByteReader(Uint8Array.from(bytes));
    if (size !== undefined) r.visitors = Float64Array.from({ length: size }, (_, i) => i);
    expect(() => readSketch(r)).toThrow(StoredFormatError);
  });
});
