import { unionCountriesInto } from './visitor-countries';
import { SLOTS, VISITOR_SAMPLE, type VisitorSample } from './visitor-sample-model';

/* Moving visitors within and between samples: the building blocks of addVisitor and the merges. */

const MAX_COUNT = VISITOR_SAMPLE.maxCount;

/** Visitor w of t := visitor i of a (t itself) plus visitor j of p. */
export function combine(t: VisitorSample, w: number, a: VisitorSample, i: number, p: VisitorSample, j: number): void {
  const count = a.counts[i]! + p.counts[j]!;
  t.hashes[w] = a.hashes[i]!;
  t.counts[w] = count > MAX_COUNT ? MAX_COUNT : count;
  unionCountriesInto(t.countries, t.more, w, a.countries, a.more, i, p.countries, p.more, j);
}

export function copyVisitor(t: VisitorSample, w: number, s: VisitorSample, i: number): void {
  t.hashes[w] = s.hashes[i]!;
  t.counts[w] = s.counts[i]!;
  t.more[w] = s.more[i]!;
  const d = w * SLOTS;
  const o = i * SLOTS;
  for (let k = 0; k < SLOTS; k++) t.countries[d + k] = s.countries[o + k]!;
}

export function writeNew(t: VisitorSample, at: number, hash: number, count: number, code: number): void {
  t.hashes[at] = hash;
  t.counts[at] = count;
  t.more[at] = 0;
  const d = at * SLOTS;
  t.countries[d] = code;
  for (let k = 1; k < SLOTS; k++) t.countries[d + k] = 0;
}

/** Visitors [start, end) move to [dest, dest + end - start) (memmove, overlap allowed). */
export function moveBlock(t: VisitorSample, dest: number, start: number, end: number): void {
  if (end <= start) return;
  t.hashes.copyWithin(dest, start, end);
  t.counts.copyWithin(dest, start, end);
  t.more.copyWithin(dest, start, end);
  t.countries.copyWithin(dest * SLOTS, start * SLOTS, end * SLOTS);
}

/** The first index in [low, high) whose hash is >= hash (high when none). */
export function lowerBound(hashes: Float64Array, low: number, high: number, hash: number): number {
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (hashes[mid]! < hash) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** How many of the first n hashes are <= hash. */
export function upperBound(hashes: Float64Array, n: number, hash: number): number {
  let low = 0;
  let high = n;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (hashes[mid]! <= hash) low = mid + 1;
    else high = mid;
  }
  return low;
}
