#!/usr/bin/env node
// `pnpm bench:sums`: what exact sums (numbers while safe, bigints past 2^53) cost a report against
// plain-number sums, side by side in one run (variants alternating which goes first). Two parts of
// a report that touch sums, without a store, on the report's own code (services/events/dist):
// - cells: BENCH_ENTRIES (200,000) entries of the sums column `s` (three devices, 30 % of devices
//   without measures) in rollup pages written by the real page writer (2,000 entries a page, the
//   same 2,000 urls in each), decoded and merged per device into 2,000 groups: "exact" decodes
//   with the page reader (DecodedPage) and merges with the aggregate's mergeInto, "plain" reads
//   the same bytes as plain numbers and adds them with `+`; "report read" is the report's whole
//   read of those pages (readCells, group_by url, then its rows), for scale;
// - raw: BENCH_ROWS (1,000,000) rows of the raw `$group` (one per distinct value, with its count)
//   turned into states and merged into the 2,000 groups.
// BENCH_RUNS (15) runs per variant after two warm-ups; prints p50 ms and exact / plain.
// BENCH_BIG=1 makes one sum in fifty pass 2^53, so the bigint path is timed too.
// BENCH_COMPARE_DIST=<another checkout's services/events/dist> of a build before pages times that
// build's exact sums on its own stored form beside them (side field `s`: JSON text of the same
// entries, parsed, decoded, folded over the devices, merged).
import { p50Alternating } from './alternating-runs.mjs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cellReport } from './cell-pages.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const dist = (p) => require(path.join(root, 'services/events/dist', p));
const { sumsAggregate } = dist('metrics/sums-aggregate');
const { forEachMeasureOfRow } = dist('metrics/measure-rows');
const { ByteReader } = dist('metrics/byte-codec');
const { emptyCellValue } = dist('metrics/registry');
const { familyById } = dist('rollups/families');
const { writePages } = dist('rollups/page-writer');
const { DecodedPage } = dist('rollups/page-reader');
const { unitId } = dist('rollups/rollup-units');

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 200_000);
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const BIG = process.env.BENCH_BIG === '1';
const COMPARE = process.env.BENCH_COMPARE_DIST;
const GROUPS = 2000;
const WIDTH = 6;
const OWNER = '100000000000001';
const HOUR_MS = 3_600_000;
const FIRST_HOUR = Date.UTC(2026, 0, 1);
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

let seed = 42;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const bigSum = () => (BIG && random() < 0.02 ? 9_100_000_000_000_000_003n : Math.floor(random() * 1e12));
/** One device's sums [n0, sum0, n1, sum1, n2, sum2], or none (30 %). */
const device = () => (random() < 0.3 ? 0 : [Math.floor(random() * 9), Math.floor(random() * 4e6), 1, 50, 1, bigSum()]);
const entries = Array.from({ length: ENTRIES }, () => [device(), device(), device()]);
const rows = Array.from({ length: ROWS }, () => ({
  _id: { mv: Math.floor(random() * 1e12) },
  mc: 1 + Math.floor(random() * 20),
}));

// the entries in pages: hour u holds entries u * 2000 .. u * 2000 + 1999, one per url
const URLS = Array.from(
  { length: GROUPS },
  (_, i) => `https://publisher.example/article/${String(i).padStart(4, '0')}`,
);
const family = familyById('p');
const pages = new Map();
const units = [];
for (let u = 0; u * GROUPS < ENTRIES; u++) {
  const unit = { level: 0, start: FIRST_HOUR + u * HOUR_MS };
  const g = `${unitId(unit)}@1`;
  units.push({ unit, g });
  const list = [];
  for (let i = 0; i < GROUPS && u * GROUPS + i < ENTRIES; i++) {
    const value = emptyCellValue();
    entries[u * GROUPS + i].forEach((s, d) => {
      value.count[d] = 1;
      if (s !== 0) value.sums[d] = s;
    });
    list.push({ name: 'view', keys: ['', URLS[i]], value });
  }
  for (const doc of writePages(g, OWNER, family, list)) pages.set(doc._id, doc);
}

/** The groups as the report keeps them: a state of its own per group, the first part owned, later ones merged in. */
function exactCells() {
  const groups = new Array(GROUPS);
  for (const doc of pages.values()) {
    const page = new DecodedPage(doc);
    page.load('sums', true, doc, () => 0);
    for (let i = 0; i < page.count; i++)
      for (let d = 0; d < 3; d++) {
        if (!(page.mask[i] & (1 << d))) continue;
        const part = page.deviceState('sums', i, d);
        groups[i] = groups[i] === undefined ? sumsAggregate.own(part) : sumsAggregate.mergeInto(groups[i], part);
      }
  }
  return groups;
}

/** The same bytes read as plain numbers (a sum past 2^53 rounded), added with `+`. */
function plainCells() {
  const groups = Array.from({ length: GROUPS }, () => new Array(WIDTH).fill(0));
  for (const doc of pages.values()) {
    const page = new DecodedPage(doc);
    const r = new ByteReader(doc.s.buffer.subarray(0, doc.s.position));
    for (let n = r.uint(); n > 0; n--) r.string();
    for (let i = 0; i < page.count; i++)
      for (let d = 0; d < 3; d++) {
        if (!(page.mask[i] & (1 << d))) continue;
        const mask = r.byte();
        const sums = groups[i];
        for (let m = 0; m < 3; m++) {
          if (!(mask & (1 << m))) continue;
          sums[2 * m] += r.uint();
          sums[2 * m + 1] += mask & (1 << (m + 3)) ? Number(r.string()) : r.uint();
        }
      }
  }
  return groups;
}

const report = cellReport(
  {
    owner_id: OWNER,
    created__gte: new Date(FIRST_HOUR).toISOString().replace('T', ' ').slice(0, 19),
    created__lte: new Date(FIRST_HOUR + units.length * HOUR_MS - 1000).toISOString().replace('T', ' ').slice(0, 19),
    group_by: 'url',
    metrics: 'count,engaged_ms_sum,scroll_depth_sum,value_sum',
  },
  pages,
  units,
);

const exactRaw = () => {
  const groups = new Array(GROUPS);
  for (let i = 0; i < rows.length; i++) {
    const part = sumsAggregate.fromRow(rows[i]);
    const g = i % GROUPS;
    groups[g] = groups[g] === undefined ? sumsAggregate.own(part) : sumsAggregate.mergeInto(groups[g], part);
  }
  return groups;
};

const plainRaw = () => {
  const groups = Array.from({ length: GROUPS }, () => new Array(WIDTH).fill(0));
  for (let i = 0; i < rows.length; i++) {
    const sums = groups[i % GROUPS];
    forEachMeasureOfRow(rows[i], (m, value, events) => {
      sums[2 * m] += events;
      sums[2 * m + 1] += value * events;
    });
  }
  return groups;
};

/** The build before pages: its side field `s` (JSON, bigints as digits) and its own decode and merge. */
function compared(distDir) {
  const { sumsAggregate: old, mergeSums } = require(path.resolve(distDir, 'rollups/aggregates/sums-aggregate'));
  const text = JSON.stringify(entries, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
  return {
    cells() {
      const groups = new Array(GROUPS).fill(old.empty());
      const stored = JSON.parse(text);
      for (let i = 0; i < stored.length; i++) {
        const [a, b, c] = old.decode(stored[i]);
        groups[i % GROUPS] = mergeSums(groups[i % GROUPS], mergeSums(mergeSums(a, b), c));
      }
      return groups;
    },
    raw() {
      const groups = new Array(GROUPS).fill(old.empty());
      for (let i = 0; i < rows.length; i++) groups[i % GROUPS] = mergeSums(groups[i % GROUPS], old.fromGroup(rows[i]));
      return groups;
    },
  };
}

async function main() {
  const old = COMPARE ? compared(COMPARE) : undefined;
  // the two decodes agree (a sum past 2^53 aside, which plain numbers cannot hold)
  if (!BIG && JSON.stringify(exactCells()) !== JSON.stringify(plainCells()))
    throw new Error('exact and plain cells differ');
  const { rows: answer } = await report.run();
  if (answer.length !== GROUPS) throw new Error(`the report read ${answer.length} groups, not ${GROUPS}`);
  process.stderr.write(`[sums] load average before: ${load()}\n`);
  const [cellsPlain, cellsExact, cellsReport, cellsOld] = await p50Alternating(
    [plainCells, exactCells, () => report.run(), ...(old ? [old.cells] : [])],
    RUNS,
  );
  const [rawPlain, rawExact, rawOld] = await p50Alternating([plainRaw, exactRaw, ...(old ? [old.raw] : [])], RUNS);
  process.stderr.write(`[sums] load average after: ${load()}\n`);
  const bytes = [...pages.values()].reduce((n, d) => n + d.s.position, 0);
  const ms = (x) => (x === undefined ? '' : x.toFixed(1));
  console.log(
    `entries ${ENTRIES} in ${pages.size} pages (sums column ${(bytes / 1e6).toFixed(2)} MB), rows ${ROWS}, runs ${RUNS}, sums past 2^53: ${BIG ? '1 in 50 cell sums' : 'none'}`,
  );
  console.log(
    `| part | plain p50 ms | exact p50 ms | exact / plain | report read p50 ms |${old ? ' compared build: exact p50 ms | exact / compared |' : ''}`,
  );
  console.log(`| ---- | ---- | ---- | ---- | ---- |${old ? ' ---- | ---- |' : ''}`);
  for (const [part, plain, exact, whole, before] of [
    ['cells', cellsPlain, cellsExact, cellsReport, cellsOld],
    ['raw', rawPlain, rawExact, undefined, rawOld],
  ])
    console.log(
      `| ${part} | ${ms(plain)} | ${ms(exact)} | ${(exact / plain).toFixed(2)} | ${ms(whole)} |${old ? ` ${ms(before)} | ${(exact / before).toFixed(2)} |` : ''}`,
    );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
