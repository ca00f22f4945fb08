// TEMPORARY stand-in (exact sets only) until the real sketch lands; same API.
export const DISTINCT_SKETCH = {
  precision: 14,
  registers: 16384,
  exactLimit: 4096,
  relativeStandardError: 1.04 / Math.sqrt(16384),
} as const;
export type DistinctSketch = { kind: 'exact'; hashes: readonly number[] } | { kind: 'hll'; registers: Uint8Array };
const EMPTY: DistinctSketch = Object.freeze({ kind: 'exact', hashes: Object.freeze([]) as readonly number[] });
export function emptySketch(): DistinctSketch {
  return EMPTY;
}
export function sketchOfHashes(hashes: Iterable<number>): DistinctSketch {
  return { kind: 'exact', hashes: [...new Set(hashes)].sort((a, b) => a - b) };
}
export function addHash(s: DistinctSketch, hash: number): DistinctSketch {
  return mergeSketches(s, sketchOfHashes([hash]));
}
export function mergeSketches(a: DistinctSketch, b: DistinctSketch): DistinctSketch {
  if (a.kind !== 'exact' || b.kind !== 'exact') throw new Error('stub');
  return sketchOfHashes([...a.hashes, ...b.hashes]);
}
export function mergeInto(target: DistinctSketch, b: DistinctSketch): DistinctSketch {
  return mergeSketches(target, b);
}
export function sketchCount(s: DistinctSketch): { value: number; exact: boolean } {
  return s.kind === 'exact' ? { value: s.hashes.length, exact: true } : { value: 0, exact: false };
}
export function encodeSketch(s: DistinctSketch): 0 | string {
  return s.kind === 'exact' && s.hashes.length === 0
    ? 0
    : 'j:' + JSON.stringify((s as unknown as { hashes: number[] }).hashes);
}
export function decodeSketch(stored: unknown): DistinctSketch {
  if (stored === 0 || stored === undefined || stored === null) return EMPTY;
  return { kind: 'exact', hashes: JSON.parse(String(stored).slice(2)) as number[] };
}
export function sketchBytes(s: DistinctSketch): number {
  return s.kind === 'exact' ? 16 + 8 * s.hashes.length : 16_400;
}
