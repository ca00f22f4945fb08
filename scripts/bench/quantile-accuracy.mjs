#!/usr/bin/env node
// `pnpm bench:quantile-accuracy`: accuracy of the quantile sketch (the built
// services/events/dist/sketches) against exact nearest-rank percentiles. For each distribution
// (the same draws as services/events/test/support/value-distributions.ts, sfc32 seeded with
// BENCH_SEED, default 1) and size, the values are sketched in cells of 1,000 merged into one, as a
// report merges rollup cells; printed: p50/p75/p90/p99, exact and sketch, the relative error and
// the stored bytes; then the share at or above the exact p90 (and 1 % above it). BENCH_SIZES
// (default 100,10000,1000000) picks the sizes. Progress goes to stderr, the tables to stdout.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededHashes } from './seeded-hashes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const sketches = require(path.join(root, 'services/events/dist/sketches/quantile-sketch'));
const { QUANTILE_SKETCH, emptyQuantiles, encodeQuantiles, mergeQuantiles, quantileAt, quantilesOf, shareAtLeast } =
  sketches;

const SEED = Number(process.env.BENCH_SEED ?? 1);
const SIZES = (process.env.BENCH_SIZES ?? '100,10000,1000000').split(',').map(Number);
const PERCENTILES = [0.5, 0.75, 0.9, 0.99];

function uniforms(seed) {
  const next = seededHashes(seed);
  return () => (next() + 0.5) / 2 ** 52;
}

function normals(seed) {
  const u = uniforms(seed);
  return () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
}

const logNormal = (median, sigma, cap) => (n, seed) => {
  const z = normals(seed);
  return Array.from({ length: n }, () => Math.min(cap, Math.floor(median * Math.exp(sigma * z()))));
};
const uniformInts = (span) => (n, seed) => {
  const u = uniforms(seed);
  return Array.from({ length: n }, () => Math.floor(u() * span));
};

const DISTRIBUTIONS = [
  ['uniform engaged ms 0..3.6M', uniformInts(3_600_001)],
  ['uniform scroll depth 0..100', uniformInts(101)],
  ['log-normal engaged ms (median 30 s)', logNormal(30_000, 1.2, 3_600_000)],
  [
    'heavy tail: Pareto 1.1 cents from 100, to 10^12',
    (n, seed) => {
      const u = uniforms(seed);
      return Array.from({ length: n }, () => Math.min(1e12, Math.floor(100 / u() ** (1 / 1.1))));
    },
  ],
  [
    'log-uniform 1..10^12',
    (n, seed) => {
      const u = uniforms(seed);
      return Array.from({ length: n }, () => Math.floor(Math.exp(u() * Math.log(1e12))));
    },
  ],
  ['constant 4242', (n) => new Array(n).fill(4242)],
  [
    '40 % zeros, else log-normal',
    (n, seed) => {
      const u = uniforms(seed + 7);
      return logNormal(30_000, 1.2, 3_600_000)(n, seed).map((v) => (u() < 0.4 ? 0 : v));
    },
  ],
];

const exactQuantile = (sorted, q) => sorted[Math.max(1, Math.ceil(q * sorted.length - 1e-9)) - 1];
const relative = (got, exact) => (exact === 0 ? (got === 0 ? 0 : Infinity) : Math.abs(got - exact) / exact);
const pct = (x) => `${(100 * x).toFixed(3)} %`;
const num = (x) =>
  Number.isInteger(x) ? x.toLocaleString('en') : x.toLocaleString('en', { maximumFractionDigits: 1 });

function cellSketch(values) {
  let s = emptyQuantiles();
  for (let i = 0; i < values.length; i += 1000) s = mergeQuantiles(s, quantilesOf(values.slice(i, i + 1000)));
  return s;
}

console.log(`relative accuracy ${pct(QUANTILE_SKETCH.relativeAccuracy)}, seed ${SEED}\n`);
console.log('| distribution | n | percentile | exact | sketch | relative error | stored bytes | bins |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
const shares = [];
let worst = 0;
for (const [name, draw] of DISTRIBUTIONS) {
  for (const n of SIZES) {
    const started = Date.now();
    const values = draw(n, SEED * 1_000_003 + n);
    const s = cellSketch(values);
    const sorted = Float64Array.from(values).sort();
    const bytes = encodeQuantiles(s).length;
    for (const q of PERCENTILES) {
      const exact = exactQuantile(sorted, q);
      const got = quantileAt(s, q);
      const error = relative(got, exact);
      worst = Math.max(worst, error);
      const row = [name, num(n), `p${100 * q}`, num(exact), num(got), pct(error), num(bytes), s.keys.length];
      console.log(`| ${row.join(' | ')} |`);
    }
    const p90 = exactQuantile(sorted, 0.9);
    for (const t of [p90, Math.ceil(p90 * 1.01)]) {
      let at = 0;
      for (const v of values) if (v >= t) at++;
      shares.push([name, num(n), num(t), pct(at / n), pct(shareAtLeast(s, t))]);
    }
    process.stderr.write(`${name} ${n}: ${Date.now() - started} ms\n`);
  }
}
console.log(`\nlargest relative error: ${pct(worst)}\n`);
console.log('| distribution | n | threshold | exact share >= threshold | sketch share |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const row of shares) console.log(`| ${row.join(' | ')} |`);
