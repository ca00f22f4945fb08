#!/usr/bin/env node
// `pnpm bench:series-merge`: the floor of today's design for a day series in a zone behind UTC
// (bench:report's "30 days, uniques, interval day, America/New_York"), without a store or HTTP.
// For each size in BENCH_SIZES (default 1M) it generates bench:report's data (report-data.mjs, the
// same seed, 30 days from 2026-01-01), keeps the reported owner's events and builds, as the builder
// builds them (cell-pages.mjs), the totals pages of two layouts of the same 28 whole New York days:
//   units  the rollup units the planner reads for them when every unit is built (hours and 4-hour
//          blocks at each end of a New York day, about 8 units a day), as today;
//   zone   one unit per New York day (what a builder keeping days in that zone would store).
// Then it times the report's own read of the cached pages (readCells: entries merged into the
// groups; then toReportRows), BENCH_RUNS (31) times each, alternating, and prints the p50 of each
// with the visitor-set merges of one report (how many, into what, how many hashes). The answers of
// both layouts must be the same rows (the run stops otherwise).
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { p50Alternating } from './alternating-runs.mjs';
import { eventBatches, OWNERS } from './report-data.mjs';
import { cellReport, ownerPages, rangeUnits } from './cell-pages.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const { uniquesAggregate } = require(path.join(root, 'services/events/dist/metrics/uniques-aggregate'));
const SIZES = (process.env.BENCH_SIZES ?? '1000000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 31);
const DAYS = 30;
const DAY = 86_400_000;
const FIRST_DAY = Date.UTC(2026, 0, 1);
// New York in January: UTC-5 all month (no change of offset in the range)
const NEW_YORK = 5 * 3_600_000;
const say = (s) => process.stderr.write(`[series-merge] ${s}\n`);
const day = (n) => new Date(FIRST_DAY + n * DAY).toISOString().slice(0, 10);
const BODY = {
  owner_id: OWNERS[0],
  created__gte: day(1),
  created__lte: day(DAYS - 1),
  interval: 'day',
  timezone: 'America/New_York',
  metrics: 'count,uniques',
};

/** The steps of both layouts: each New York day's units (today's), or the day as one unit. */
function layouts() {
  const units = [];
  const zone = [];
  for (let d = 1; d < DAYS - 1; d++) {
    const start = FIRST_DAY + d * DAY + NEW_YORK;
    for (const step of rangeUnits(start, start + DAY)) units.push({ ...step, time: start });
    zone.push({ unit: { level: 4, start }, g: `4:${start}@1`, end: start + DAY, time: start });
  }
  return { units, zone };
}

/** Counts the visitor-set merges of the runs inside `work` (the aggregate's own merge, wrapped). */
async function countingMerges(work) {
  const counts = { 'into a set, a part of <= 8': 0, 'into a set, a larger part': 0, 'into registers': 0, hashes: 0 };
  const mergeInto = uniquesAggregate.mergeInto;
  uniquesAggregate.mergeInto = (target, part) => {
    if (target.kind === 'hll') counts['into registers']++;
    else if (part.kind === 'exact' && part.hashes.length <= 8) counts['into a set, a part of <= 8']++;
    else counts['into a set, a larger part']++;
    if (part.kind === 'exact') counts.hashes += part.hashes.length;
    return mergeInto(target, part);
  };
  try {
    await work();
  } finally {
    uniquesAggregate.mergeInto = mergeInto;
  }
  return counts;
}

async function measure(size) {
  const { units, zone } = layouts();
  const built = { units: ownerPages(OWNERS[0], 't', units), zone: ownerPages(OWNERS[0], 't', zone) };
  let kept = 0;
  for (const batch of eventBatches({ total: size, days: DAYS, firstDay: FIRST_DAY, urls: 2000, batch: 500 }, new Map()))
    for (const e of batch) {
      if (e.owner_id !== OWNERS[0] || e.bot) continue;
      built.units.add(e);
      built.zone.add(e);
      kept++;
    }
  const reports = {
    units: cellReport(BODY, built.units.pages(), units),
    zone: cellReport(BODY, built.zone.pages(), zone),
  };
  // both layouts answer the same rows (the sketches are the same unions of the same visitors)
  const [a, b] = [await reports.units.run({ cached: true }), await reports.zone.run({ cached: true })];
  if (JSON.stringify(a.rows) !== JSON.stringify(b.rows)) throw new Error('the two layouts answer differently');
  const merges = {
    units: await countingMerges(() => reports.units.run({ cached: true })),
    zone: await countingMerges(() => reports.zone.run({ cached: true })),
  };
  const [unitsMs, zoneMs] = await p50Alternating(
    [() => reports.units.run({ cached: true }), () => reports.zone.run({ cached: true })],
    RUNS,
  );
  return {
    size,
    kept,
    rows: a.rows.length,
    steps: { units: units.length, zone: zone.length },
    unitsMs,
    zoneMs,
    merges,
  };
}

say(`sizes ${SIZES.join(', ')}; ${RUNS} runs each, alternating; load average ${os.loadavg()[0].toFixed(1)}`);
const results = [];
for (const size of SIZES) {
  const r = await measure(size);
  say(`${size.toLocaleString('en')}: ${r.kept.toLocaleString('en')} events of the owner, ${r.rows} rows`);
  results.push(r);
}
console.log(
  `\nA New York day series of uniques (28 whole days), the cached pages' merge alone (readCells + rows), p50 ms; load average ${os.loadavg()[0].toFixed(1)}\n`,
);
console.log(
  '| events | layout | units read | p50 ms | merges into a set (parts <= 8 / larger) | into registers | hashes merged |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of results)
  for (const [name, label, ms] of [
    ['units', "today's units", r.unitsMs],
    ['zone', 'one unit a zone day', r.zoneMs],
  ]) {
    const m = r.merges[name];
    console.log(
      `| ${r.size.toLocaleString('en')} | ${label} | ${r.steps[name]} | ${ms.toFixed(2)} | ${m['into a set, a part of <= 8']} / ${m['into a set, a larger part']} | ${m['into registers']} | ${m.hashes.toLocaleString('en')} |`,
    );
  }
