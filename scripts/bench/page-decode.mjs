#!/usr/bin/env node
// `pnpm bench:page-decode`: what the damaged-page checks cost a page read, side by side in one run,
// without a store, on the service's own code (services/events/dist). Pages of the pages family
// (`p`) holding BENCH_ENTRIES (1, 100, 2000) entries, each fed BENCH_EVENTS_PER_ENTRY (20) events
// by the aggregates themselves. Per size, BENCH_RUNS (21) rounds alternating which goes first:
// - check: the page's own fields against its id (checkPageFields), alone;
// - report: a report's decode of one page (the keys and the count column), bare and inside
//   decodeOrDamaged (the closure and try a report now adds per page);
// - build: every column of the page as the builder merges it (forEachStoredEntry, which checks).
// Prints p50 microseconds per page and the check's share (per cent) of the report and build decodes.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const dist = (p) => require(path.join(root, 'services/events/dist', p));
const { AGGREGATE_NAMES, aggregateOf, emptyCellValue } = dist('metrics/registry');
const { FAMILIES } = dist('rollups/families');
const { writePages } = dist('rollups/page-writer');
const { DecodedPage, forEachStoredEntry } = dist('rollups/page-reader');
const { checkPageFields, decodeOrDamaged } = dist('rollups/damaged-pages');

const SIZES = (process.env.BENCH_ENTRIES ?? '1,100,2000').split(',').map(Number);
const PER_ENTRY = Number(process.env.BENCH_EVENTS_PER_ENTRY ?? 20);
const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const G = '4:1792454400000@mhx-0123456789ab';
const family = FAMILIES.find((f) => f.id === 'p');

let seed = 7;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};

function page(entries) {
  const out = [];
  for (let e = 0; e < entries; e++) {
    const value = emptyCellValue();
    for (let n = 0; n < PER_ENTRY; n++) {
      const device = Math.floor(random() * 3);
      const event = {
        _id: `01900000-0000-7000-8000-${String(e * PER_ENTRY + n).padStart(12, '0')}`,
        created: new Date(1_792_454_400_000 + n * 60_000),
        metadata: { campaign: n % 2 ? 'spring' : 'autumn' },
        visitor: Math.floor(random() * 2 ** 52),
        country: 'DE',
        measures: random() < 0.5 ? { engaged_ms: Math.floor(random() * 90_000) } : undefined,
      };
      for (const name of AGGREGATE_NAMES) value[name][device] = aggregateOf(name).add(value[name][device], event);
    }
    out.push({
      name: 'view',
      keys: [`c${e % 7}`, `https://a.example/${String(e).padStart(6, '0')}?utm_source=x`],
      value,
    });
  }
  out.sort((a, b) => (a.keys[1] < b.keys[1] ? -1 : 1));
  return writePages(G, '7001', family, out, 1e12)[0];
}

/** Median microseconds per call of `run` over enough calls to take about 20 ms. */
function time(run) {
  const start = process.hrtime.bigint();
  let calls = 0;
  while (process.hrtime.bigint() - start < 20_000_000n) {
    run();
    calls++;
  }
  return Number(process.hrtime.bigint() - start) / 1000 / calls;
}

const report = (doc) => {
  const p = new DecodedPage(doc);
  p.load('count', false, doc, () => 0);
};
const variants = {
  check: (doc) => checkPageFields(doc),
  report: (doc) => report(doc),
  'report in decodeOrDamaged': (doc) => decodeOrDamaged(doc._id, () => report(doc)),
  build: (doc) => forEachStoredEntry(doc, () => undefined),
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`| entries | ${Object.keys(variants).join(' | ')} | check, % of report | check, % of build |`);
console.log(
  `| --- | ${Object.keys(variants)
    .map(() => '---')
    .join(' | ')} | --- | --- |`,
);
for (const entries of SIZES) {
  const doc = page(entries);
  const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  const names = Object.keys(variants);
  for (let r = 0; r < RUNS; r++) {
    const order = r % 2 === 0 ? names : [...names].reverse();
    for (const name of order) samples[name].push(time(() => variants[name](doc)));
  }
  const p50 = Object.fromEntries(names.map((k) => [k, median(samples[k])]));
  const us = (x) => (x < 10 ? x.toFixed(2) : x.toFixed(0));
  const share = (part, whole) => (100 * (part / whole)).toPrecision(2);
  console.log(
    `| ${entries} | ${names.map((k) => us(p50[k])).join(' | ')} | ${share(p50.check, p50.report)} | ${share(p50.check, p50.build)} |`,
  );
}
