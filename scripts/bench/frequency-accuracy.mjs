#!/usr/bin/env node
// `pnpm bench:frequency-accuracy`: accuracy of the visitor sample (the built
// services/events/dist/sketches/visitor-sample): reach, the 2+/3+/5+/10+ frequency bins and
// on-target reach (targets holding about 10 % and 50 % of visitors) of seeded campaigns
// (./visitor-population.mjs: skewed frequencies, travellers, VPN hoppers) of 10k, 100k and 1M
// visitors whose events fall in 720 hourly cells, merged three ways (hour after hour; hours into
// days into the month; a shuffled order), which must give the same bytes. Printed: p50/p95/max of
// the relative error over the seeds, the median stated relative error and the share of answers
// within twice it; then what a smaller K would give (bottom-k samples nest: the k smallest of the
// 4,096 are the k-sample); then the cost per call (./frequency-costs.mjs). BENCH_SEED (1),
// BENCH_TRIALS_SCALE (1), BENCH_SIZES (10000,100000,1000000), BENCH_PARTS (accuracy,costs);
// BENCH_COMPARE_DIST (another build's services/events/dist) times both builds side by side, BENCH_ROUNDS
// (15) the rounds of each timing.
// Progress goes to stderr, the ready-to-paste tables to stdout.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureCosts } from './frequency-costs.mjs';
import { seededHashes } from './seeded-hashes.mjs';
import { fillCells, maskOf } from './visitor-population.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const api = require(path.join(root, 'services/events/dist/sketches/visitor-sample'));
const compareDist = process.env.BENCH_COMPARE_DIST;
const compare = compareDist ? require(path.resolve(compareDist, 'sketches/visitor-sample')) : null;
const { VISITOR_SAMPLE, emptySample, encodeSample, frequencyOf, mergeSampleInto, onTargetReachOf } = api;

const SEED = Number(process.env.BENCH_SEED ?? 1);
const SCALE = Number(process.env.BENCH_TRIALS_SCALE ?? 1);
const SIZES = (process.env.BENCH_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const PARTS = (process.env.BENCH_PARTS ?? 'accuracy,costs').split(',');
const TRIALS = { 10000: 200, 100000: 50, 1000000: 24 };
const HOURS = 720;
const TARGETS = [
  ['on target ~10 % (FR)', new Set(['FR'])],
  ['on target ~50 % (US, DE, GB)', new Set(['US', 'DE', 'GB'])],
];
const BINS = [2, 3, 5, 10];
const SMALLER_K = [1024, 2048, VISITOR_SAMPLE.k];

/** The 720 hourly cells merged hour after hour, as days of 24 into a month, and shuffled. */
function mergeThreeWays(cells, seed) {
  const sequential = emptySample();
  for (const cell of cells) mergeSampleInto(sequential, cell);
  const month = emptySample();
  for (let d = 0; d < HOURS / 24; d++) {
    const day = emptySample();
    for (let h = 0; h < 24; h++) mergeSampleInto(day, cells[d * 24 + h]);
    mergeSampleInto(month, day);
  }
  const next = seededHashes(seed);
  const order = cells.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = next() % (i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  const shuffled = emptySample();
  for (const i of order) mergeSampleInto(shuffled, cells[i]);
  const bytes = [sequential, month, shuffled].map((s) => Buffer.from(encodeSample(s)));
  return { sample: sequential, same: bytes[0].equals(bytes[1]) && bytes[0].equals(bytes[2]) };
}

/** The k smallest visitors of a sample: the sample a K of k would have kept. */
function truncated(s, k) {
  if (s.size <= k) return s;
  return { ...s, size: k, sampled: true };
}

/** Every answer of one sample against the truth: [name, relative error, stated relative error, true share]. */
function answers(s, truth) {
  const n = truth.events.length;
  const f = frequencyOf(s);
  const rows = [['reach', f.reach / n - 1, f.relativeError.reach, 1]];
  for (const bin of BINS) {
    let count = 0;
    for (let v = 0; v < n; v++) if (truth.events[v] >= bin) count++;
    rows.push([`${bin}+`, f.atLeast[bin] / count - 1, f.relativeError.atLeast[bin], count / n]);
  }
  for (const [name, targets] of TARGETS) {
    const mask = maskOf([...targets]);
    let count = 0;
    for (let v = 0; v < n; v++) if (truth.masks[v] & mask) count++;
    const a = onTargetReachOf(s, targets);
    rows.push([name, a.value / count - 1, a.relativeError, count / n]);
  }
  return rows;
}

const quantile = (sorted, q) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
const pct = (x) => `${(100 * x).toFixed(2)} %`;

function accuracy() {
  const table = [];
  const kTable = [];
  const agree = [];
  for (const n of SIZES) {
    const trials = Math.max(1, Math.round((TRIALS[n] ?? 10) * SCALE));
    const started = Date.now();
    const errors = new Map();
    const kErrors = new Map();
    let same = true;
    const stored = [];
    for (let trial = 0; trial < trials; trial++) {
      const seed = SEED * 1_000_003 + n * 7 + trial;
      const cells = Array.from({ length: HOURS }, emptySample);
      const truth = fillCells(api, seed, n, cells);
      const merged = mergeThreeWays(cells, seed);
      same &&= merged.same;
      for (const [name, error, stated, share] of answers(merged.sample, truth)) {
        const e = errors.get(name) ?? { abs: [], stated: [], within: 0, share: 0 };
        e.share += share / trials;
        e.abs.push(Math.abs(error));
        e.stated.push(stated);
        if (Math.abs(error) <= 2 * stated) e.within++;
        errors.set(name, e);
      }
      for (const k of SMALLER_K) {
        const s = truncated(merged.sample, k);
        const e = kErrors.get(k) ?? { byName: new Map(), bytes: 0 };
        e.bytes = Math.max(e.bytes, encodeSample(s).length);
        for (const [name, error] of answers(s, truth))
          e.byName.set(name, [...(e.byName.get(name) ?? []), Math.abs(error)]);
        kErrors.set(k, e);
      }
      stored.push(encodeSample(merged.sample).length);
    }
    for (const [name, e] of errors) {
      e.abs.sort((a, b) => a - b);
      e.stated.sort((a, b) => a - b);
      const row = [
        n.toLocaleString('en'),
        name,
        pct(e.share),
        trials,
        pct(quantile(e.abs, 0.5)),
        pct(quantile(e.abs, 0.95)),
      ];
      row.push(pct(e.abs[e.abs.length - 1]), pct(quantile(e.stated, 0.5)), pct(e.within / trials));
      table.push(row);
    }
    for (const [k, e] of kErrors) {
      const p95 = (name) =>
        pct(
          quantile(
            [...e.byName.get(name)].sort((a, b) => a - b),
            0.95,
          ),
        );
      kTable.push([
        k.toLocaleString('en'),
        n.toLocaleString('en'),
        e.bytes.toLocaleString('en'),
        ...['reach', '2+', '10+', TARGETS[0][0]].map(p95),
      ]);
    }
    const bytes = Math.max(...stored);
    process.stderr.write(
      `${n}: ${trials} trials in ${Date.now() - started} ms; orders agree: ${same}; stored up to ${bytes} bytes\n`,
    );
    agree.push(`${n.toLocaleString('en')}: ${same ? 'yes' : 'NO'}`);
  }
  console.log(`K = ${VISITOR_SAMPLE.k}, ${HOURS} hourly cells, seed ${SEED}\n`);
  console.log(
    '| visitors | answer | true share (mean) | seeds | p50 rel. error | p95 rel. error | max rel. error | stated error (median) | within 2 stated |',
  );
  console.log('| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const row of table) console.log(`| ${row.join(' | ')} |`);
  console.log(`\nthe three merge orders gave the same bytes in every trial: ${agree.join(', ')}`);
  console.log('\n| K | visitors | stored bytes (largest) | p95 reach | p95 2+ | p95 10+ | p95 on target ~10 % |');
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const row of kTable) console.log(`| ${row.join(' | ')} |`);
}

if (PARTS.includes('accuracy')) accuracy();
if (PARTS.includes('costs')) measureCosts(api, compare);
