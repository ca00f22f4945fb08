#!/usr/bin/env node
// `pnpm bench:uniques-accuracy`: accuracy of the distinct-visitor sketch (the built
// services/events/dist/sketches), with more trials than its CI test. For each cardinality, random
// 52-bit hashes from a seeded generator (sfc32, as the test's seededHashes; BENCH_SEED, default 1)
// are sketched in shards of at most a million merged into one; printed: exact or not, trials, p50
// and p99 of the relative error, the mean error (bias), the stored bytes. Then the time per
// decode, merge and count of the shapes a report handles. BENCH_TRIALS_SCALE (1) multiplies the
// trials. Progress goes to stderr, the ready-to-paste tables to stdout.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededHashes } from './seeded-hashes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const sketches = require(path.join(root, 'services/events/dist/sketches/distinct-sketch'));
const { DISTINCT_SKETCH, decodeSketch, emptySketch, encodeSketch, mergeInto, sketchCount, sketchOfHashes } = sketches;

const SEED = Number(process.env.BENCH_SEED ?? 1);
const SCALE = Number(process.env.BENCH_TRIALS_SCALE ?? 1);
const CASES = [
  [1, 20],
  [10, 20],
  [100, 20],
  [1_000, 20],
  [4_096, 20],
  [4_097, 2000],
  [10_000, 1000],
  [40_960, 500],
  [100_000, 200],
  [1_000_000, 40],
  [10_000_000, 8],
];

function randomSketch(seed, n) {
  const next = seededHashes(seed);
  let s = emptySketch();
  for (let done = 0; done < n; done += 1_000_000) {
    const shard = Array.from({ length: Math.min(1_000_000, n - done) }, next);
    s = mergeInto(s, sketchOfHashes(shard));
  }
  return s;
}

const quantile = (sorted, q) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
const pct = (x) => `${(100 * x).toFixed(3)} %`;
const bytesOfStored = (stored) => (stored === 0 ? 1 : Buffer.byteLength(stored));

console.log(
  `relative standard error 1.04/sqrt(${DISTINCT_SKETCH.registers}) = ${pct(DISTINCT_SKETCH.relativeStandardError)}, seed ${SEED}\n`,
);
console.log('| cardinality | exact? | trials | p50 rel. error | p99 rel. error | mean error (bias) | stored bytes |');
console.log('| ---: | :---: | ---: | ---: | ---: | ---: | ---: |');
for (const [n, baseTrials] of CASES) {
  const trials = Math.max(1, Math.round(baseTrials * SCALE));
  const started = Date.now();
  const errors = [];
  let sum = 0;
  let exact = true;
  let stored = 0;
  for (let trial = 0; trial < trials; trial++) {
    const s = randomSketch(SEED * 1_000_003 + n * 7 + trial, n);
    const count = sketchCount(s);
    exact &&= count.exact;
    const error = count.value / n - 1;
    sum += error;
    errors.push(Math.abs(error));
    stored = Math.max(stored, bytesOfStored(encodeSketch(s)));
  }
  errors.sort((x, y) => x - y);
  const row = [
    n.toLocaleString('en'),
    exact ? 'yes' : 'no',
    trials,
    pct(quantile(errors, 0.5)),
    pct(quantile(errors, 0.99)),
  ];
  console.log(`| ${row.join(' | ')} | ${pct(sum / trials)} | ${stored.toLocaleString('en')} |`);
  process.stderr.write(`${n}: ${trials} trials in ${Date.now() - started} ms\n`);
}

/** Microseconds per call, the best of five rounds (the machine is shared). */
function timeIt(fn, calls) {
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) fn(i);
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1000 / calls);
  }
  return best.toFixed(1);
}

const dense = randomSketch(11, 1_000_000);
const sparse = randomSketch(12, 4_097);
const exactFull = randomSketch(13, 4_096);
const stored = { dense: encodeSketch(dense), sparse: encodeSketch(sparse), exact: encodeSketch(exactFull) };
let target = mergeInto(emptySketch(), dense);
const other = randomSketch(14, 100_000);
console.log('\n| operation | us per call (best of 5 rounds) |');
console.log('| --- | ---: |');
console.log(
  `| decode dense (\`d1:\`, ${stored.dense.length} chars) | ${timeIt(() => decodeSketch(stored.dense), 2000)} |`,
);
console.log(
  `| decode sparse (\`s1:\`, 4,097 hashes, ${stored.sparse.length} chars) | ${timeIt(() => decodeSketch(stored.sparse), 2000)} |`,
);
console.log(
  `| decode exact (\`e1:\`, 4,096 hashes, ${stored.exact.length} chars) | ${timeIt(() => decodeSketch(stored.exact), 2000)} |`,
);
console.log(`| encode dense | ${timeIt(() => encodeSketch(dense), 2000)} |`);
console.log(`| mergeInto: registers into registers | ${timeIt(() => (target = mergeInto(target, other)), 5000)} |`);
console.log(
  `| mergeInto: 4,096 exact hashes into registers | ${timeIt(() => (target = mergeInto(target, exactFull)), 2000)} |`,
);
console.log(`| sketchCount of registers (the estimator) | ${timeIt(() => sketchCount(target), 5000)} |`);
