// Reproducible uniform 52-bit hashes (sfc32) for the accuracy benches: the same generator as the
// tests' services/events/test/support/seeded-hashes.ts (a plain .mjs script cannot import that
// TypeScript file), so a bench and a test with the same seed draw the same values.
export function seededHashes(seed) {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const next = () => {
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
