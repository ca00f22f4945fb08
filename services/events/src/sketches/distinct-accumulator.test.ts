import { seededHashes } from '../../test/support/seeded-hashes';
import { countOf, sketchOf, uniquesAggregate } from '../metrics/uniques-aggregate';
import { DistinctAccumulator } from './distinct-accumulator';
import {
  DISTINCT_SKETCH,
  emptySketch,
  mergeSketches,
  sketchCount,
  sketchOfHashes,
  type DistinctSketch,
} from './distinct-sketch';

const LIMIT = DISTINCT_SKETCH.exactLimit;
const { reportOwn, reportMergeInto } = uniquesAggregate as Required<typeof uniquesAggregate>;

/** A small generator of part sizes and pool picks (the hashes themselves come from seededHashes). */
function picks(seed: number): (n: number) => number {
  const next = seededHashes(seed);
  return (n) => next() % n;
}

/**
 * Parts as a report meets them: visitors drawn from a pool (so parts overlap, as returning
 * visitors do), hashes alike in their low 32 bits, the hash 0, sets past the exact limit.
 */
function randomParts(seed: number): DistinctSketch[] {
  const pick = picks(seed);
  const fresh = seededHashes(seed + 1);
  const poolSize = [20, 500, 3000, 9000][pick(4)]!;
  const pool = Array.from({ length: poolSize }, (_, i) => (i % 17 === 0 ? (i + 1) * 2 ** 32 : i === 1 ? 0 : fresh()));
  return Array.from({ length: 1 + pick(24) }, () => {
    const size = [0, 1, 3, 30, 700, LIMIT + 50][pick(6)]!;
    return sketchOfHashes(Array.from({ length: size }, () => pool[pick(pool.length)]!));
  });
}

/**
 * Many small parts of a pool (a campaign's group over hundreds of referrers' entries): enough
 * pending hashes to fold them several times; exact parts only, so a union past the limit is made
 * of hashes alone.
 */
function manyParts(seed: number): DistinctSketch[] {
  const pick = picks(seed);
  const fresh = seededHashes(seed + 1);
  const pool = Array.from({ length: [10, 400, 2500, 6000][pick(4)]! }, fresh);
  return Array.from({ length: 50 + pick(700) }, () =>
    sketchOfHashes(Array.from({ length: [1, 5, 40, 200][pick(4)]! }, () => pool[pick(pool.length)]!)),
  );
}

const view = (s: DistinctSketch) => (s.kind === 'exact' ? { exact: [...s.hashes] } : { hll: [...s.registers] });
const pureUnion = (parts: readonly DistinctSketch[]) => parts.reduce((a, b) => mergeSketches(a, b), emptySketch());

/** What a report asks of a group between its merges, which must change nothing of its union. */
function ask(acc: DistinctAccumulator, pick: (n: number) => number): void {
  const what = pick(6);
  if (what === 0) acc.count();
  else if (what === 1) acc.sketch();
  else if (what === 2) acc.isEmpty();
}

describe('a report group merging visitor sets with the accumulator', () => {
  it('when 200 random mixes of parts are merged, then the count and the union equal the pure merge of the sketches', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const parts = randomParts(seed);
      const pure = parts.reduce((a, b) => mergeSketches(a, b), emptySketch());
      let state = reportOwn(parts[0]!);
      for (const part of parts.slice(1)) state = reportMergeInto(state, part);
      expect({ seed, count: countOf(state) }).toEqual({ seed, count: sketchCount(pure) });
      expect(view(sketchOf(state))).toEqual(view(pure));
    }
  });

  it('when accumulators are merged into each other (groups into a total), then the union is the same as from the parts', () => {
    for (let seed = 400; seed < 450; seed++) {
      const parts = randomParts(seed);
      const half = Math.ceil(parts.length / 2);
      const [a, b] = [new DistinctAccumulator(parts[0]!), new DistinctAccumulator(emptySketch())];
      parts.slice(1, half).forEach((p) => a.add(p));
      parts.slice(half).forEach((p) => b.add(p));
      a.add(b);
      const pure = parts.reduce((x, y) => mergeSketches(x, y), emptySketch());
      expect(view(a.sketch())).toEqual(view(pure));
    }
  });

  it('when groups of many parts are merged with counts and sketches asked between the merges, then the union is the pure merge of the sketches', () => {
    for (let seed = 600; seed < 660; seed++) {
      const parts = seed % 2 === 0 ? manyParts(seed) : randomParts(seed);
      const pick = picks(seed + 7);
      const acc = new DistinctAccumulator(parts[0]!);
      for (const part of parts.slice(1)) {
        acc.add(part);
        ask(acc, pick);
      }
      const pure = pureUnion(parts);
      expect({ seed, count: acc.count() }).toEqual({ seed, count: sketchCount(pure) });
      expect(view(acc.sketch())).toEqual(view(pure));
      // asked again, after more parts
      const more = randomParts(seed + 1000);
      more.forEach((p) => acc.add(p));
      const again = pureUnion([...parts, ...more]);
      expect({ seed, count: acc.count() }).toEqual({ seed, count: sketchCount(again) });
      expect(view(acc.sketch())).toEqual(view(again));
    }
  });

  it('when accumulators with parts pending are merged into one another and go on taking parts, then each union is the pure merge of its own parts', () => {
    for (let seed = 700; seed < 740; seed++) {
      const parts = seed % 2 === 0 ? manyParts(seed) : randomParts(seed);
      const stored = parts.map(view);
      const pick = picks(seed + 3);
      // three groups, the parts dealt among them, then merged as a total merges rows
      const own: DistinctSketch[][] = [[], [], []];
      const groups = [0, 1, 2].map(() => new DistinctAccumulator(emptySketch()));
      for (const part of parts) {
        const g = pick(3);
        groups[g]!.add(part);
        own[g]!.push(part);
        ask(groups[g]!, pick);
      }
      const total = uniquesAggregate.reportOwn!(groups[0]!) as DistinctAccumulator;
      total.add(groups[1]!);
      ask(total, pick);
      total.add(groups[2]!);
      // the groups go on taking parts of their own: the total is not changed by them, nor they by it
      const extra = sketchOfHashes([1, 2, 3, 2 ** 40]);
      groups.forEach((g, i) => {
        g.add(extra);
        own[i]!.push(extra);
      });
      total.add(sketchOfHashes([7]));
      expect({ seed, total: view(total.sketch()) }).toEqual({
        seed,
        total: view(pureUnion([...parts, sketchOfHashes([7])])),
      });
      groups.forEach((g, i) =>
        expect({ seed, i, group: view(g.sketch()) }).toEqual({ seed, i, group: view(pureUnion(own[i]!)) }),
      );
      expect(parts.map(view)).toEqual(stored);
    }
  });

  it('when an exact union passes the limit only when counted, then the count is the estimate of every hash, as the merged sketches give it', () => {
    const next = seededHashes(21);
    const parts = Array.from({ length: 3 }, () => sketchOfHashes(Array.from({ length: 1500 }, next)));
    const acc = new DistinctAccumulator(parts[0]!);
    parts.slice(1).forEach((p) => acc.add(p));
    const pure = pureUnion(parts);
    expect(pure.kind).toBe('hll');
    expect(acc.count()).toEqual(sketchCount(pure));
    expect(view(acc.sketch())).toEqual(view(pure));
  });

  it('when a group meets thousands of parts of the same few visitors, then what it holds stays bounded and counted', () => {
    const part = sketchOfHashes([3, 5, 8, 13, 21, 2 ** 33, 2 ** 45 + 1]);
    const acc = new DistinctAccumulator(emptySketch());
    let most = 0;
    for (let i = 0; i < 5000; i++) {
      acc.add(part);
      most = Math.max(most, acc.bytes());
    }
    // the pending lists are folded past 256 of them holding more than the union: never the
    // 35,000 hashes of every part, nor their 5,000 references
    expect(most).toBeLessThan(48 + 8 * (7 + 257 * 7 + 257));
    expect(most).toBeGreaterThan(8 * 256 * 7);
    expect(acc.count()).toEqual({ value: 7, exact: true });
    expect(view(acc.sketch())).toEqual(view(part));
  });

  it('when a group meets thousands of one-visitor parts (raw rows), then it holds a small multiple of its union', () => {
    const next = seededHashes(5);
    const visitors = Array.from({ length: 300 }, next);
    const acc = new DistinctAccumulator(emptySketch());
    let most = 0;
    // each visitor back on 20 days of a raw span: 6,000 parts of one hash each
    for (let day = 0; day < 20; day++)
      for (const v of visitors) {
        acc.add(sketchOfHashes([v]));
        most = Math.max(most, acc.bytes());
      }
    expect(acc.count()).toEqual({ value: 300, exact: true });
    expect(most).toBeLessThan(48 + 8 * 3 * 300 + 16 * 257);
    expect(view(acc.sketch())).toEqual(view(sketchOfHashes(visitors)));
  });

  it('when a group is merged into itself, then its union is what it was', () => {
    const acc = new DistinctAccumulator(sketchOfHashes([4, 6]));
    acc.add(sketchOfHashes([5]));
    acc.add(acc);
    expect(view(acc.sketch())).toEqual({ exact: [4, 5, 6] });
  });

  it('when an accumulator is asked whether it is empty, then it answers as the sketch of its union would', () => {
    const { isEmpty } = uniquesAggregate;
    expect(isEmpty(new DistinctAccumulator(emptySketch()))).toBe(true);
    expect(isEmpty(reportMergeInto(reportOwn(emptySketch()), emptySketch()))).toBe(true);
    expect(isEmpty(reportMergeInto(reportOwn(emptySketch()), sketchOfHashes([7])))).toBe(false);
  });

  it('when a group has one part, then it holds that part as it is and never writes it', () => {
    const part = sketchOfHashes([5, 9, 12]);
    const held = reportOwn(part);
    expect(held).toBe(part);
    const merged = reportMergeInto(held, sketchOfHashes([1, 2]));
    expect(view(part)).toEqual({ exact: [5, 9, 12] });
    expect(countOf(merged)).toEqual({ value: 5, exact: true });
  });

  it("when a group's accumulator is the first part of another group (a total over rows), then merging into that group leaves the row's as it was", () => {
    const row = reportMergeInto(reportOwn(sketchOfHashes([1, 2, 3])), sketchOfHashes([4]));
    expect(row).toBeInstanceOf(DistinctAccumulator);
    const total = reportMergeInto(reportOwn(row), sketchOfHashes([5, 6]));
    expect(countOf(total)).toEqual({ value: 6, exact: true });
    expect(countOf(row)).toEqual({ value: 4, exact: true });
  });

  it('when parts of thousands of hashes meet, then the group keeps an accumulator and a stored part is never written', () => {
    const next = seededHashes(7);
    const big = sketchOfHashes(Array.from({ length: 2000 }, next));
    const copy = view(big);
    const state = reportMergeInto(reportOwn(big), sketchOfHashes(Array.from({ length: 2000 }, next)));
    expect(state).toBeInstanceOf(DistinctAccumulator);
    expect(countOf(state)).toEqual({ value: 4000, exact: true });
    expect(view(big)).toEqual(copy);
    // past the exact limit: the estimate, as the sorted sets would give it
    const past = reportMergeInto(state, sketchOfHashes(Array.from({ length: 200 }, next)));
    expect(countOf(past).exact).toBe(false);
  });

  it("when an accumulator's memory is counted, then it grows with the hashes it holds and is bounded by the registers past the limit", () => {
    const next = seededHashes(11);
    const acc = new DistinctAccumulator(emptySketch());
    const small = acc.bytes();
    acc.add(sketchOfHashes(Array.from({ length: 1000 }, next)));
    expect(acc.bytes()).toBeGreaterThan(small);
    acc.add(sketchOfHashes(Array.from({ length: LIMIT }, next)));
    expect(acc.bytes()).toBe(160 + DISTINCT_SKETCH.registers);
  });
});
