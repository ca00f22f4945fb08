#!/usr/bin/env node
// `pnpm bench:sums`: what exact sums (numbers while safe, bigints past 2^53) cost a report against
// the plain-number sums they replaced, side by side in one run (A B A B). Two parts of a report
// that touch sums, without a store, on the report's own code (services/events/dist):
// - cells: BENCH_ENTRIES (200,000) stored entries of side field `s` (JSON text, three devices),
//   parsed, decoded, folded over the devices and merged into 2,000 groups;
// - raw: BENCH_ROWS (1,000,000) rows of the raw `$group` (one per distinct value, with its count)
//   turned into states and merged.
// Each BENCH_RUNS (15) times per variant, alternating which goes first; prints p50 ms and new / plain. BENCH_BIG=1 makes one sum
// in fifty pass 2^53, so the bigint path is timed too.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const dist = (p) => require(path.join(root, 'services/events/dist', p));
const { sumsAggregate, mergeSums } = dist('rollups/aggregates/sums-aggregate');
const { forEachMeasureOfRow } = dist('rollups/aggregates/measure-rows');

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 200_000);
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const BIG = process.env.BENCH_BIG === '1';
const GROUPS = 2000;
const WIDTH = 6;

// the plain-number sums as they were before sums were exact (the reference)
const EMPTY = Object.freeze(new Array(WIDTH).fill(0));
const plain = {
  empty: EMPTY,
  merge(a, b) {
    if (a === EMPTY) return b;
    if (b === EMPTY) return a;
    const out = new Array(WIDTH);
    for (let i = 0; i < WIDTH; i++) out[i] = a[i] + b[i];
    return out;
  },
  decode(stored) {
    if (!Array.isArray(stored)) return [EMPTY, EMPTY, EMPTY];
    return stored.map((s) => (Array.isArray(s) && s.length === WIDTH ? s : EMPTY));
  },
  fromGroup(row) {
    let out;
    forEachMeasureOfRow(row, (i, value, events) => {
      const sums = (out ??= new Array(WIDTH).fill(0));
      sums[2 * i] = sums[2 * i] + events;
      sums[2 * i + 1] = sums[2 * i + 1] + value * events;
    });
    return out ?? EMPTY;
  },
};
const exact = {
  empty: sumsAggregate.empty(),
  merge: mergeSums,
  decode: (stored) => sumsAggregate.decode(stored),
  fromGroup: (row) => sumsAggregate.fromGroup(row),
};

let seed = 42;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const bigSum = () => (BIG && random() < 0.02 ? '9100000000000000003' : Math.floor(random() * 1e12));
const device = () => (random() < 0.3 ? 0 : [Math.floor(random() * 9), Math.floor(random() * 4e6), 1, 50, 1, bigSum()]);
const text = JSON.stringify(Array.from({ length: ENTRIES }, () => [device(), device(), device()]));
const rows = Array.from({ length: ROWS }, () => ({
  _id: { mv: Math.floor(random() * 1e12) },
  mc: 1 + Math.floor(random() * 20),
}));

function cells(v) {
  const groups = new Array(GROUPS).fill(v.empty);
  const stored = JSON.parse(text);
  for (let i = 0; i < stored.length; i++) {
    const [a, b, c] = v.decode(stored[i]);
    groups[i % GROUPS] = v.merge(groups[i % GROUPS], v.merge(v.merge(a, b), c));
  }
  return groups;
}

function raw(v) {
  const groups = new Array(GROUPS).fill(v.empty);
  for (let i = 0; i < rows.length; i++) groups[i % GROUPS] = v.merge(groups[i % GROUPS], v.fromGroup(rows[i]));
  return groups;
}

const p50 = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const table = [];
for (const [part, run] of [
  ['cells', cells],
  ['raw', raw],
]) {
  const times = { plain: [], exact: [] };
  const variants = [
    ['plain', plain],
    ['exact', exact],
  ];
  for (let r = 0; r < RUNS; r++) {
    // A B, then B A: neither always runs after the other's garbage
    for (const [name, v] of r % 2 === 0 ? variants : [...variants].reverse()) {
      const t = process.hrtime.bigint();
      run(v);
      times[name].push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }
  const [a, b] = [p50(times.plain), p50(times.exact)];
  table.push(`| ${part} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(2)} |`);
}
console.log(`entries ${ENTRIES}, rows ${ROWS}, runs ${RUNS}, sums past 2^53: ${BIG ? '1 in 50 cell sums' : 'none'}`);
console.log('| part | plain p50 ms | exact p50 ms | exact / plain |');
console.log('| ---- | ------------ | ------------ | ------------- |');
for (const line of table) console.log(line);
