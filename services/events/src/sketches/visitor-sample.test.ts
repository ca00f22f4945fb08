import { seededHashes } from '../../test/support/seeded-hashes';
import { plain, randomRows, referenceSample, sampleOfRows, visitorsOf } from '../../test/support/visitor-rows';
import {
  addVisitor,
  emptySample,
  encodeSample,
  mergeSampleInto,
  mergeSamples,
  sampleBytes,
  VISITOR_SAMPLE,
  type VisitorSample,
} from './visitor-sample';

const K = VISITOR_SAMPLE.k;
const copy = (s: VisitorSample): VisitorSample => mergeSamples(emptySample(), s);
/** Sizes (rows) around K, with a pool of 1.5 K visitors so that sets overlap and unions pass K. */
const SIZES = [0, 1, 2, 50, K / 2, K - 1, K, K + 1, 2 * K, 3 * K];

function randomParts(
  trial: number,
): [ReturnType<typeof randomRows>, ReturnType<typeof randomRows>, ReturnType<typeof randomRows>] {
  const next = seededHashes(500 + trial);
  const size = (): number => SIZES[next() % SIZES.length]!;
  const pool = next() % 2 === 0 ? (3 * K) / 2 : 4 * K;
  return [
    randomRows(3 * trial, size(), pool),
    randomRows(3 * trial + 1, size(), pool),
    randomRows(3 * trial + 2, size(), pool),
  ];
}

describe('visitor sample: building and merging', () => {
  test.each(SIZES)(
    'when %i raw rows are added one by one, then the sample is every visitor while at most K, else the K smallest hashes, each with its whole count and countries',
    (n) => {
      const rows = randomRows(n, n, 2 * K);
      expect(plain(sampleOfRows(rows))).toEqual(referenceSample(rows));
    },
  );

  test('when random samples across the exact/sampled boundary are merged, then merging is commutative and associative, empty is neutral, the merge of two samples is the sample of all their rows, and no argument changes', () => {
    for (let trial = 0; trial < 8; trial++) {
      const [A, B, C] = randomParts(trial);
      const [a, b, c] = [A, B, C].map(sampleOfRows) as [VisitorSample, VisitorSample, VisitorSample];
      const stored = [a, b, c].map(encodeSample);

      const ab = mergeSamples(a, b);
      expect(plain(ab)).toEqual(referenceSample([...A, ...B]));
      expect(plain(mergeSamples(b, a))).toEqual(plain(ab));
      expect(plain(mergeSamples(ab, c))).toEqual(plain(mergeSamples(a, mergeSamples(b, c))));
      expect(plain(mergeSamples(ab, c))).toEqual(referenceSample([...A, ...B, ...C]));
      expect(plain(mergeSamples(a, emptySample()))).toEqual(plain(a));
      expect(plain(mergeSamples(emptySample(), a))).toEqual(plain(a));

      expect([a, b, c].map(encodeSample)).toEqual(stored);
      expect(plain(emptySample())).toEqual({ sampled: false, events: 0, visitors: '' });
    }
  });

  test('when parts of every size are merged in place into one owned target, then it equals the pure merge at every step and the parts are unchanged', () => {
    for (let trial = 0; trial < 4; trial++) {
      const next = seededHashes(900 + trial);
      const parts = Array.from({ length: 16 }, (_, i) => {
        const n = [1, 3, 20, 200, K / 4, K, 2 * K][next() % 7]!;
        return sampleOfRows(randomRows(trial * 100 + i, n, 6 * K));
      });
      const stored = parts.map(encodeSample);
      let pure = emptySample();
      const target = emptySample();
      for (const part of parts) {
        pure = mergeSamples(pure, part);
        expect(mergeSampleInto(target, part)).toBe(target);
        expect(plain(target)).toEqual(plain(pure));
      }
      expect(parts.map(encodeSample)).toEqual(stored);
    }
  });

  test('when a sample is merged into itself, then every count doubles, as merging it with a copy does', () => {
    const a = sampleOfRows(randomRows(1, 3 * K, 2 * K));
    const expected = plain(mergeSamples(a, copy(a)));
    expect(plain(mergeSampleInto(a, a))).toEqual(expected);
  });

  test('when raw rows are added, or merged in as samples of one row each, then the samples agree, past K too', () => {
    const rows = randomRows(7, 2 * K, 3 * K);
    const added = emptySample();
    const merged = emptySample();
    for (const row of rows) {
      addVisitor(added, row.hash, row.events, row.country);
      mergeSampleInto(merged, addVisitor(emptySample(), row.hash, row.events, row.country));
    }
    expect(plain(added)).toEqual(plain(merged));
    expect(plain(added)).toEqual(referenceSample(rows));
  });

  test('when many cells are merged in any order, then a visitor in the merged sample was kept by every cell that saw it and has its exact total count and countries', () => {
    const next = seededHashes(31);
    // 6 cells of about 5,300 distinct visitors each: every cell is itself a sample
    const rows = randomRows(31, 40_000, 12 * K);
    const cells = Array.from({ length: 6 }, (): typeof rows => []);
    for (const row of rows) cells[next() % 6]!.push(row);
    const samples = cells.map(sampleOfRows);
    expect(samples.every((s) => s.sampled)).toBe(true);
    const order = [3, 0, 5, 1, 4, 2];
    const merged = emptySample();
    for (const i of order) mergeSampleInto(merged, samples[i]!);

    const truth = referenceSample(rows);
    expect(plain(merged)).toEqual(truth);
    const seen = cells.map((cell) => new Set(cell.map((row) => row.hash)));
    const kept = samples.map((s) => new Set(s.hashes.subarray(0, s.size)));
    for (const [hash] of visitorsOf(truth)) {
      for (let i = 0; i < cells.length; i++) if (seen[i]!.has(hash)) expect(kept[i]!.has(hash)).toBe(true);
    }
    // the tree of a rollup (cells into pairs into ...) gives the same sample
    let level = samples;
    while (level.length > 1)
      level = level.flatMap((s, i) => (i % 2 === 0 ? [mergeSamples(s, level[i + 1] ?? emptySample())] : []));
    expect(plain(level[0]!)).toEqual(truth);
  });

  test('when a visitor had more than 4 countries, then it keeps the 4 smallest codes and a mark, in any order of rows', () => {
    const countries = ['PL', 'DE', 'ZA', 'AT', 'FR', 'BE'];
    const forward = emptySample();
    const backward = emptySample();
    countries.forEach((c) => addVisitor(forward, 42, 1, c));
    [...countries].reverse().forEach((c) => addVisitor(backward, 42, 2, c));
    expect(visitorsOf(plain(forward))).toEqual([[42, 6, 'AT,BE,DE,FR', true]]);
    expect(visitorsOf(plain(backward))).toEqual([[42, 12, 'AT,BE,DE,FR', true]]);
    const four = emptySample();
    ['DE', 'AT', 'FR', 'BE', 'DE'].forEach((c) => addVisitor(four, 42, 1, c));
    addVisitor(four, 42, 1); // unknown country adds no country
    expect(visitorsOf(plain(four))).toEqual([[42, 6, 'AT,BE,DE,FR', false]]);
  });

  test("when a visitor's count passes 2^32 - 1, then it stays there while the events total stays exact", () => {
    const s = emptySample();
    addVisitor(s, 1, VISITOR_SAMPLE.maxCount);
    addVisitor(s, 1, 5);
    mergeSampleInto(s, copy(s));
    expect(visitorsOf(plain(s))).toEqual([[1, VISITOR_SAMPLE.maxCount, '', false]]);
    expect(s.events).toBe(2 * (VISITOR_SAMPLE.maxCount + 5));
  });

  test('when input is hostile (a hash, events or country of the wrong kind), then it is refused and the sample is unchanged', () => {
    const s = sampleOfRows(randomRows(3, 10, 100));
    const before = plain(s);
    const bad: Array<[unknown, unknown, unknown]> = [
      [-1, 1, 'FR'],
      [2 ** 52, 1, 'FR'],
      [1.5, 1, 'FR'],
      ['12', 1, 'FR'],
      [Number.NaN, 1, 'FR'],
      [7, 0, 'FR'],
      [7, 1.5, 'FR'],
      [7, 2 ** 53, 'FR'],
      [7, '3', 'FR'],
      [7, 1, 'fr'],
      [7, 1, 'FRA'],
      [7, 1, ''],
      [7, 1, '$gt'],
      [7, 1, 'É'],
      [7, 1, { $ne: 1 }],
    ];
    for (const [hash, events, country] of bad) {
      expect(() => addVisitor(s, hash as number, events as number, country as string)).toThrow(RangeError);
    }
    expect(plain(s)).toEqual(before);
    const huge = emptySample();
    addVisitor(huge, 9, Number.MAX_SAFE_INTEGER - 1);
    expect(() => addVisitor(huge, 9, 2)).toThrow(RangeError);
    expect(() => mergeSampleInto(huge, huge)).toThrow(RangeError);
    expect(plain(huge).events).toBe(Number.MAX_SAFE_INTEGER - 1);
  });

  test('when the memory of a sample is estimated, then it grows with its visitors and stops at K', () => {
    const small = sampleOfRows(randomRows(1, 10, 100));
    const full = sampleOfRows(randomRows(2, 3 * K, 10 * K));
    const more = mergeSamples(full, sampleOfRows(randomRows(3, 3 * K, 10 * K, 2)));
    expect(sampleBytes(emptySample())).toBeLessThan(sampleBytes(small));
    expect(sampleBytes(small)).toBeLessThan(sampleBytes(full));
    expect(sampleBytes(more)).toBe(sampleBytes(full));
    expect(sampleBytes(more)).toBeLessThan(90_000);
  });
});
