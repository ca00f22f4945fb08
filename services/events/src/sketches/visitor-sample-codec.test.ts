import { seededHashes } from '../../test/support/seeded-hashes';
import { visitorPopulation } from '../../test/support/visitor-population';
import { plain, randomRows, sampleOfRows } from '../../test/support/visitor-rows';
import {
  addVisitor,
  decodeSample,
  emptySample,
  encodeSample,
  encodeSampleWithoutHashes,
  mergeSampleInto,
  mergeSamples,
  mergeStoredSampleInto,
  needsKnownHashes,
  SampleFormatError,
  VISITOR_SAMPLE,
} from './visitor-sample';

const K = VISITOR_SAMPLE.k;
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const bytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/ /g, ''), 'hex'));
/** Unsigned LEB128, as the stored form writes its numbers. */
function varint(value: number): string {
  const out: number[] = [];
  for (let v = value; ; v = Math.floor(v / 128)) {
    if (v < 128) {
      out.push(v);
      break;
    }
    out.push((v % 128) | 0x80);
  }
  return Buffer.from(out).toString('hex');
}

/** Visitors 5 (1 event, FR), 300 (3 DE + 1 FR) and 1000 (2 events, country unknown). */
function small() {
  const s = emptySample();
  addVisitor(s, 5, 1, 'FR');
  addVisitor(s, 300, 3, 'DE');
  addVisitor(s, 300, 1, 'FR');
  addVisitor(s, 1000, 2);
  return s;
}
const SMALL = '01 00 03 07 02 4445 4652' + ' 05 01 01' + ' a702 1a 0001' + ' bc05 08';

describe('stored visitor sample v1', () => {
  test('when a sample is stored, then the bytes are the version, header, country table and visitors as documented', () => {
    expect(hex(encodeSample(emptySample()))).toBe('0100000000');
    expect(hex(encodeSample(small()))).toBe(SMALL.replace(/ /g, ''));
    // one country in the whole sample: its index is implied, no byte per visitor
    const one = emptySample();
    addVisitor(one, 7, 2, 'FR');
    addVisitor(one, 9, 1, 'FR');
    expect(hex(encodeSample(one))).toBe('0100020301' + '4652' + '07' + '09' + '02' + '01');
  });

  test('when samples of every shape are stored and read back, then they come back equal', () => {
    const next = seededHashes(4);
    const manyCountries = emptySample(); // more than 256 countries in its table: 2-byte indexes
    for (let i = 0; i < 2000; i++) {
      const code = next() % 676;
      addVisitor(
        manyCountries,
        next(),
        1 + (next() % 3),
        String.fromCharCode(65 + Math.floor(code / 26), 65 + (code % 26)),
      );
    }
    const samples = [
      emptySample(),
      small(),
      manyCountries,
      ...[1, 100, K, K + 1, 5 * K].map((n) => sampleOfRows(randomRows(n, n, n))),
    ];
    for (const s of samples) {
      const stored = encodeSample(s);
      const back = decodeSample(stored);
      expect(plain(back)).toEqual(plain(s));
      expect(hex(encodeSample(back))).toBe(hex(stored));
    }
    const big = addVisitor(emptySample(), 2 ** 52 - 1, VISITOR_SAMPLE.maxCount, 'ZZ');
    expect(plain(decodeSample(encodeSample(big)))).toEqual(plain(big));
  });

  test('when a full sample of a realistic campaign is stored, then it takes about 8 bytes a visitor, under 40 KB', () => {
    for (const n of [K, 100_000]) {
      const { cells } = visitorPopulation(n, n, 24);
      const s = cells.map(sampleOfRows).reduce(mergeSamples);
      expect(s.size).toBe(K);
      expect(encodeSample(s).length).toBeLessThan(36_000);
    }
  });

  test('when stored bytes are damaged or foreign, then reading them throws SampleFormatError', () => {
    const valid = encodeSample(sampleOfRows(randomRows(1, 300, 200)));
    for (let cut = 0; cut < valid.length; cut++) {
      expect(() => decodeSample(valid.subarray(0, cut))).toThrow(SampleFormatError);
    }
    const bad = [
      '00 00 03 07 02 4445 4652 0501 01 a702 1a 0001 bc05 08', // version 0
      '02' + SMALL.slice(2), // version 2: a newer writer
      SMALL + ' 00', // trailing byte
      SMALL.replace('01 00 03 07', '01 00 03 08'), // events do not match the counts
      SMALL.replace('01 00 03 07', '01 02 03 07'), // sampled must be 0 or 1
      SMALL.replace('01 00 03 07', '01 01 03 07'), // sampled with fewer than K visitors
      SMALL.replace('4445 4652', '6465 4652'), // table not capital letters
      SMALL.replace('4445 4652', '4652 4445'), // table out of order
      SMALL.replace('4445 4652', '4445 5b41'), // '[A' is no code
      SMALL.replace('a702', '00'), // zero gap: hashes not ascending
      SMALL.replace('1a 0001', '1a 0100'), // country indexes out of order
      SMALL.replace('1a 0001', '1a 0002'), // index past the table
      SMALL.replace('1a 0001', '1e 0001'), // tag 6
      SMALL.replace('1a 0001', '1d 0001'), // tag 5 needs four kept countries
      SMALL.replace('bc05 08', 'bc05 8800'), // padded varint
      '01 00 01 01 02 4445 4652 05 01 00', // table entry FR used by no visitor
      '01 00 01 01 00' + varint(2 ** 52) + '00', // hash past 2^52
      '01 00 01' + varint(2 ** 32) + '00 05' + varint(2 ** 32 * 8), // count past 2^32 - 1
      '01 00 01' + varint(2 ** 53) + '00 05 00', // events past 2^53
      '01 00' + varint(2 ** 40) + '00 00', // 2^40 visitors declared
      '01 00' + varint(K + 1) + '00 00' + '0000'.repeat(K + 1), // more than K visitors
      '01 01' + varint(K) + '00 00 0500', // K visitors declared, one there
      '01 00 00 00' + varint(1_000_000), // a million countries declared
      '01 00 00 00' + varint(677) + '4141'.repeat(677), // more countries than there are
      '01 00 01 01 00 ffffffffffffffffff 00', // varint of more than 8 bytes
    ];
    for (const h of bad) expect(() => decodeSample(bytes(h))).toThrow(SampleFormatError);
    for (const foreign of ['0100000000', [1, 0, 0, 0, 0], null, undefined, {}, 7]) {
      expect(() => decodeSample(foreign as Uint8Array)).toThrow(SampleFormatError);
    }
  });

  test('when a stored sample is merged straight into an owned target, then it equals merging the decoded sample, and damaged bytes leave the target as it was', () => {
    const parts = [1, 50, K, 3 * K].map((n) => sampleOfRows(randomRows(n + 7, n, 4 * K)));
    const target = emptySample();
    let expected = emptySample();
    for (const part of parts) {
      mergeStoredSampleInto(target, encodeSample(part));
      expected = mergeSamples(expected, part);
      expect(plain(target)).toEqual(plain(expected));
    }
    const before = plain(target);
    expect(() => mergeStoredSampleInto(target, bytes(SMALL + '00'))).toThrow(SampleFormatError);
    expect(plain(target)).toEqual(before);
    expect(plain(mergeSampleInto(emptySample(), target))).toEqual(before);
  });
});

describe('stored visitor sample v2 (its hashes stored elsewhere)', () => {
  // v1 of small() without the hash varints 05, a702 and bc05
  const SMALL_V2 = '02 00 03 07 02 4445 4652' + ' 01 01' + ' 1a 0001' + ' 08';

  test('when an exact sample is stored without its hashes, then the bytes are v1 without them, and it reads back equal given them', () => {
    expect(hex(encodeSampleWithoutHashes(small()))).toBe(SMALL_V2.replace(/ /g, ''));
    expect(plain(decodeSample(bytes(SMALL_V2), [5, 300, 1000]))).toEqual(plain(small()));
    expect(needsKnownHashes(bytes(SMALL_V2))).toBe(true);
    expect(needsKnownHashes(encodeSample(small()))).toBe(false);
  });

  test('when it is read without its hashes, with another number of them or out of order, or a sampled one is stored so, then that is refused', () => {
    expect(() => decodeSample(bytes(SMALL_V2))).toThrow(SampleFormatError);
    expect(() => decodeSample(bytes(SMALL_V2), [5, 300])).toThrow(SampleFormatError);
    expect(() => decodeSample(bytes(SMALL_V2), [5, 1000, 300])).toThrow(SampleFormatError);
    expect(() => decodeSample(bytes(SMALL_V2), [5, 300, 2 ** 52])).toThrow(SampleFormatError);
    const full = emptySample();
    for (let h = 0; h <= K; h++) addVisitor(full, h * 1000, 1);
    expect(full.sampled).toBe(true);
    expect(() => encodeSampleWithoutHashes(full)).toThrow(RangeError);
  });
});
