import { seededHashes } from './seeded-hashes';

/**
 * Reproducible non-negative integer samples of the shapes reports see (engaged ms, scroll depth,
 * conversion values in cents), for the quantile-sketch tests. scripts/bench/quantile-accuracy.mjs
 * draws the same way.
 */
export type Distribution = { name: string; draw: (n: number, seed: number) => number[] };

function uniforms(seed: number): () => number {
  const next = seededHashes(seed);
  // in (0, 1): never 0, so a logarithm of it is finite
  return () => (next() + 0.5) / 2 ** 52;
}

function normals(seed: number): () => number {
  const u = uniforms(seed);
  return () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
}

const logNormal = (median: number, sigma: number, cap: number) => (n: number, seed: number) => {
  const z = normals(seed);
  return Array.from({ length: n }, () => Math.min(cap, Math.floor(median * Math.exp(sigma * z()))));
};

export const DISTRIBUTIONS: readonly Distribution[] = [
  {
    name: 'uniform engaged ms 0..3.6M',
    draw: (n, seed) =>
      Array.from(
        { length: n },
        (
          (u) => () =>
            Math.floor(u() * 3_600_001)
        )(uniforms(seed)),
      ),
  },
  {
    name: 'uniform scroll depth 0..100',
    draw: (n, seed) =>
      Array.from(
        { length: n },
        (
          (u) => () =>
            Math.floor(u() * 101)
        )(uniforms(seed)),
      ),
  },
  { name: 'log-normal engaged ms (median 30 s)', draw: logNormal(30_000, 1.2, 3_600_000) },
  {
    name: 'heavy tail: Pareto 1.1 cents from 100, to 10^12',
    draw: (n, seed) => {
      const u = uniforms(seed);
      return Array.from({ length: n }, () => Math.min(1e12, Math.floor(100 / u() ** (1 / 1.1))));
    },
  },
  {
    name: 'log-uniform 1..10^12',
    draw: (n, seed) =>
      Array.from(
        { length: n },
        (
          (u) => () =>
            Math.floor(Math.exp(u() * Math.log(1e12)))
        )(uniforms(seed)),
      ),
  },
  { name: 'constant 4242', draw: (n) => new Array<number>(n).fill(4242) },
  {
    name: '40 % zeros, else log-normal',
    draw: (n, seed) => {
      const u = uniforms(seed + 7);
      return logNormal(30_000, 1.2, 3_600_000)(n, seed).map((v) => (u() < 0.4 ? 0 : v));
    },
  },
];

/** The exact nearest-rank quantile (rank ceil(q n), at least 1) of ascending values: what the sketch approximates. */
export function exactQuantile(sorted: readonly number[], q: number): number {
  return sorted[Math.max(1, Math.ceil(q * sorted.length - 1e-9)) - 1]!;
}
