/**
 * Reproducible uniform 52-bit hashes (sfc32, a small fast generator that passes PractRand), the
 * stand-in for visitor hashes in the sketch tests: a failing run can be replayed from its seed.
 * The accuracy benches draw the same way (scripts/bench/seeded-hashes.mjs).
 */
export function seededHashes(seed: number): () => number {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 15; i++) next();
  return () => (next() >>> 12) * 2 ** 32 + next();
}

/** `n` hashes from one generator, as an iterable (no array of millions). */
export function* hashStream(next: () => number, n: number): Generator<number> {
  for (let i = 0; i < n; i++) yield next();
}
