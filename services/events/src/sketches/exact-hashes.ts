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
