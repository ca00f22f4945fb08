import { seededHashes } from '../../test/support/seeded-hashes';
import {
  addHash,
  decodeSketch,
  DISTINCT_SKETCH,
  emptySketch,
  encodeSketch,
  mergeInto,
  mergeSketches,
  mergeStoredInto,
  sketchBytes,
  sketchCount,
  sketchOfHashes,
  type DistinctSketch,
} from './distinct-sketch';

const LIMIT = DISTINCT_SKETCH.exactLimit;

function expectSame(x: DistinctSketch, y: DistinctSketch): void {
  expect(x.kind).toBe(y.kind);
  if (x.kind === 'exact' && y.kind === 'exact') expect(x.hashes).toEqual(y.hashes);
  if (x.kind === 'hll' && y.kind === 'hll') expect(Buffer.compare(x.registers, y.registers)).toBe(0);
}

/** Three overlapping random sets whose sizes and unions land on both sides of the exact limit. */
function randomSets(trial: number): [number[], number[], number[]] {
  const next = seededHashes(1000 + trial);
  const pool = Array.from({ length: 3 * LIMIT }, next);
  const sizes = [0, 1, 2, LIMIT / 2, LIMIT / 2 + 1, LIMIT - 1, LIMIT, LIMIT + 1, 5000, 7000];
  const pick = (): number[] => {
    const size = next() % 3 === 0 ? sizes[next() % sizes.length]! : next() % 6000;
    const start = next() % (pool.length - size + 1);
    return pool.slice(start, start + size);
  };
  return [pick(), pick(), pick()];
}

const union = (...sets: number[][]): number[] => [...new Set(sets.flat())];

describe('distinct sketch laws', () => {
  test('when random sets across the exact/HLL boundary are merged, then merging is commutative, associative and idempotent, empty is neutral, and the merge of two sketches is the sketch of the union', () => {
    for (let trial = 0; trial < 60; trial++) {
      const [A, B, C] = randomSets(trial);
      const [a, b, c] = [sketchOfHashes(A), sketchOfHashes(B), sketchOfHashes(C)];
      const stored = [a, b, c].map(encodeSketch);

      const ab = mergeSketches(a, b);
      expectSame(ab, sketchOfHashes(union(A, B)));
      expectSame(ab, mergeSketches(b, a));
      expectSame(mergeSketches(ab, c), mergeSketches(a, mergeSketches(b, c)));
      expectSame(mergeSketches(a, a), a);
      expectSame(mergeSketches(a, emptySketch()), a);
      expectSame(mergeSketches(emptySketch(), a), a);

      const size = union(A, B, C).length;
      const abc = mergeInto(mergeInto(mergeInto(emptySketch(), a), b), c);
      expectSame(abc, sketchOfHashes(union(A, B, C)));
      expect(abc.kind).toBe(size <= LIMIT ? 'exact' : 'hll');
      if (size <= LIMIT) expect(sketchCount(abc)).toEqual({ value: size, exact: true });

      // neither the pure merge nor the owned one touched an argument
      expect([a, b, c].map(encodeSketch)).toEqual(stored);
      expect(emptySketch()).toEqual({ kind: 'exact', hashes: [] });
    }
  });

  test('when hashes are added one by one, with repeats, then the sketch is the one built from the whole set and each step leaves the previous sketch unchanged', () => {
    for (let trial = 0; trial < 4; trial++) {
      const [A, B] = randomSets(100 + trial);
      let s = sketchOfHashes(A);
      const before = encodeSketch(s);
      const first = s;
      for (const hash of [...B, ...B.slice(0, 50)]) s = addHash(s, hash);
      expectSame(s, sketchOfHashes(union(A, B)));
      expect(encodeSketch(first)).toBe(before);
    }
  });

  test('when a set grows from the limit to one more, then it turns into registers and never back', () => {
    const next = seededHashes(7);
    const hashes = Array.from({ length: LIMIT + 1 }, next);
    const atLimit = sketchOfHashes(hashes.slice(0, LIMIT));
    expect(sketchCount(atLimit)).toEqual({ value: LIMIT, exact: true });
    const over = addHash(atLimit, hashes[LIMIT]!);
    expect(over.kind).toBe('hll');
    expectSame(over, sketchOfHashes(hashes));
    expect(sketchCount(over).exact).toBe(false);
    expect(Math.abs(sketchCount(over).value / (LIMIT + 1) - 1)).toBeLessThan(0.03);
    // a duplicate or an empty merge keeps the registers
    expect(mergeSketches(over, sketchOfHashes([hashes[0]!])).kind).toBe('hll');
  });

  test('when the owned merge starts from the shared empty sketch and an HLL sketch, then later merges into the result never reach the HLL sketch it copied', () => {
    const next = seededHashes(8);
    const shared = sketchOfHashes(Array.from({ length: 5000 }, next));
    const before = encodeSketch(shared);
    let target = mergeInto(emptySketch(), shared);
    target = mergeInto(target, sketchOfHashes(Array.from({ length: 20000 }, next)));
    expect(encodeSketch(shared)).toBe(before);
    expect(sketchCount(target).value).toBeGreaterThan(sketchCount(shared).value);
  });

  test('when single visitors (raw rows) merge one by one into an owned set, then it is the sketch of them all, past the exact limit too, and no input changes', () => {
    const next = seededHashes(9);
    const hashes = Array.from({ length: DISTINCT_SKETCH.exactLimit + 500 }, () => next());
    const singles = hashes.map((h) => sketchOfHashes([h]));
    const first = singles[0]!;
    let target = mergeInto(emptySketch(), first);
    for (const one of [...singles, ...singles.slice(0, 100)]) target = mergeInto(target, one);
    expect(target).toEqual(sketchOfHashes(hashes));
    // the shared inputs: the first single the target started from, and every other single
    expect(first).toEqual(sketchOfHashes([hashes[0]!]));
    expect(singles.every((s, i) => s.kind === 'exact' && s.hashes.length === 1 && s.hashes[0] === hashes[i])).toBe(
      true,
    );
  });

  test('when small sets (cell entries of a few visitors) merge one by one into an owned set, overlapping, then it is the sketch of them all, past the exact limit too, and no input changes', () => {
    const next = seededHashes(77);
    const pool = Array.from({ length: LIMIT + 600 }, next);
    const parts = Array.from({ length: 2500 }, (_, i) => {
      const size = 1 + (i % 9);
      const start = next() % (pool.length - size);
      return pool.slice(start, start + size).sort((a, b) => a - b);
    });
    const sketches = parts.map((p) => sketchOfHashes(p));
    const copies = sketches.map((s) => (s.kind === 'exact' ? [...s.hashes] : []));
    let target = mergeInto(emptySketch(), sketches[0]!);
    for (const part of sketches.slice(1)) target = mergeInto(target, part);
    expectSame(target, sketchOfHashes(union(...parts)));
    sketches.forEach((s, i) => expect(s.kind === 'exact' ? s.hashes : []).toEqual(copies[i]));
  });

  test('when larger sets (cell entries of many visitors) merge into an owned set, overlapping it, inside it, around it and past the exact limit, then it is the sketch of them all, and no input changes', () => {
    const next = seededHashes(91);
    const pool = Array.from({ length: LIMIT + 900 }, next).sort((a, b) => a - b);
    const parts = Array.from({ length: 400 }, (_, i) => {
      const size = 9 + ((i * 37) % 300);
      const start = next() % (pool.length - size);
      // runs of the sorted pool (each inside, around or beside the union so far), and scattered picks
      return i % 2 === 0
        ? pool.slice(start, start + size)
        : [...new Set(Array.from({ length: size }, () => pool[next() % pool.length]!))].sort((a, b) => a - b);
    });
    const sketches = parts.map((p) => sketchOfHashes(p));
    const copies = sketches.map((s) => (s.kind === 'exact' ? [...s.hashes] : []));
    let target = mergeInto(emptySketch(), sketches[0]!);
    let seen = new Set(parts[0]);
    for (const [i, part] of sketches.slice(1).entries()) {
      target = mergeInto(target, part);
      seen = new Set([...seen, ...parts[i + 1]!]);
      // every step equals the union so far: sorted, unique, exact up to the limit
      expectSame(target, sketchOfHashes(seen));
    }
    expect(target.kind).toBe('hll');
    sketches.forEach((s, i) => expect(s.kind === 'exact' ? s.hashes : []).toEqual(copies[i]));
  });

  test('when the pure merge meets a single visitor, then the exact set it was given is unchanged', () => {
    const a = sketchOfHashes([5, 9, 12]);
    expect(mergeSketches(a, sketchOfHashes([7]))).toEqual(sketchOfHashes([5, 7, 9, 12]));
    expect(a).toEqual(sketchOfHashes([5, 9, 12]));
  });

  test('when a hash is not an integer in [0, 2^52), then it is refused', () => {
    for (const bad of [-1, 2 ** 52, 1.5, Number.NaN, Infinity]) {
      expect(() => sketchOfHashes([bad])).toThrow(RangeError);
      expect(() => addHash(emptySketch(), bad)).toThrow(RangeError);
    }
  });

  test('when sketches are stored and read back, then every kind comes back equal', () => {
    const next = seededHashes(9);
    for (const n of [0, 1, 4096, 4097, 50_000]) {
      const s = sketchOfHashes(Array.from({ length: n }, next));
      expect(decodeSketch(encodeSketch(s))).toEqual(s);
    }
  });

  test('when the memory of a sketch is estimated, then it grows with an exact set and is bounded for registers', () => {
    const next = seededHashes(10);
    expect(sketchBytes(sketchOfHashes([1, 2]))).toBeLessThan(sketchBytes(sketchOfHashes([1, 2, 3])));
    expect(sketchBytes(sketchOfHashes(Array.from({ length: 100_000 }, next)))).toBeLessThan(17_000);
  });
});

describe('mergeStoredInto', () => {
  test('when a stored sketch of any kind is merged into a sketch of any kind, then the result is the merge of the two decoded, and the stored text is untouched', () => {
    for (let trial = 0; trial < 20; trial++) {
      const [a, b, c] = randomSets(trial).map((set) => sketchOfHashes(set));
      const dense = sketchOfHashes(union(randomSets(trial + 50).flat(), randomSets(trial + 60).flat()));
      for (const [x, y] of [
        [a!, b!],
        [b!, c!],
        [mergeSketches(a!, c!), dense],
        [dense, a!],
        [emptySketch(), dense],
        [dense, emptySketch()],
      ] as Array<[DistinctSketch, DistinctSketch]>) {
        const stored = encodeSketch(y);
        const owned = decodeSketch(encodeSketch(x)); // a copy the test owns
        expectSame(mergeStoredInto(owned, stored), mergeSketches(x, y));
        expect(encodeSketch(decodeSketch(stored))).toBe(stored);
      }
    }
  });

  test('when a stored HyperLogLog is damaged, then merging it throws instead of counting wrongly', () => {
    const target = decodeSketch(encodeSketch(sketchOfHashes(union(...randomSets(3), ...randomSets(4)))));
    expect(target.kind).toBe('hll');
    expect(() => mergeStoredInto(target, 'd1:AAAA')).toThrow();
    expect(() => mergeStoredInto(target, 'x1:AAAA')).toThrow();
  });
});
