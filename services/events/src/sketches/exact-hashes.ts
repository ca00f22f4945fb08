/**
 * The sorted union of two sorted unique hash lists, or null as soon as it would hold more than
 * `limit` hashes (the caller then switches to registers and the list is never finished).
 */
export function unionSorted(a: readonly number[], b: readonly number[], limit: number): number[] | null {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x < y) {
      out.push(x);
      i++;
    } else if (y < x) {
      out.push(y);
      j++;
    } else {
      out.push(x);
      i++;
      j++;
    }
    if (out.length > limit) return null;
  }
  if (out.length + (a.length - i) + (b.length - j) > limit) return null;
  for (; i < a.length; i++) out.push(a[i]!);
  for (; j < b.length; j++) out.push(b[j]!);
  return out;
}

/**
 * `b` merged into the sorted unique list `into` in place (`into` becomes their sorted union): the
 * list grows by b's length, is filled from its end, then closes the gap the shared hashes left.
 * No list is made per merge (a report merges thousands of sets into its groups' own).
 */
export function unionInto(into: number[], b: readonly number[]): void {
  const n = into.length;
  // pushed, not a longer length: the list stays packed doubles
  for (let k = 0; k < b.length; k++) into.push(0);
  let i = n - 1;
  let j = b.length - 1;
  let w = into.length - 1;
  while (j >= 0) {
    const y = b[j]!;
    if (i >= 0 && into[i]! > y) into[w--] = into[i--]!;
    else {
      if (i >= 0 && into[i] === y) i--;
      into[w--] = y;
      j--;
    }
  }
  // into[0..i] is in place; the merged tail starts at w + 1
  const gap = w - i;
  if (gap > 0) {
    // a plain loop: Array.prototype.copyWithin has no fast path for arrays of doubles
    for (let from = w + 1, to = i + 1; from < into.length; from++, to++) into[to] = into[from]!;
    into.length -= gap;
  }
}

/**
 * When at most one hash of `b` is missing from the sorted unique list `into`: that one inserted in
 * place, and true; else false and `into` unchanged (the caller unions them). A few binary searches
 * for a small `b` whose visitors mostly came back.
 */
export function insertedAtMostOne(into: number[], b: readonly number[]): boolean {
  let missing = -1;
  let at = 0;
  for (let i = 0; i < b.length; i++) {
    const point = insertionPoint(into, b[i]!);
    if (into[point] === b[i]) continue;
    if (missing >= 0) return false;
    missing = i;
    at = point;
  }
  if (missing >= 0) into.splice(at, 0, b[missing]!);
  return true;
}

/** Where `hash` is or would go in a sorted list. */
export function insertionPoint(hashes: readonly number[], hash: number): number {
  let low = 0;
  let high = hashes.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (hashes[mid]! < hash) low = mid + 1;
    else high = mid;
  }
  return low;
}
