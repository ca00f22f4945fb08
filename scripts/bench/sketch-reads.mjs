#!/usr/bin/env node
// `pnpm bench:sketch-reads`: how the rollup side of the two sketch-heavy 30-day reports grows with
// traffic, without a database, past the sizes the MongoDB stand-in can hold. For each size in
// BENCH_SIZES (default 1M, 5M, 25M events) it generates `bench:report`'s data (report-data.mjs,
// the same seed, 30 days from 2026-01-01), keeps the reported owner's events, and builds the pages
// its units of the 30-day range hold in the pages family (the units the planner reads when all are
// built: 2, 8, 16 and 4 days), as the builder builds them (cell-pages.mjs: its rows merged into a
// FamilyTable, stored by the real page writer). Then it times the report's own read of those pages
// (readCells: page decode, entries filtered and merged into the groups; then toReportRows) for
// "30 days, p90 engaged time, group_by content_id" and "30 days, uniques, group_by url",
// BENCH_RUNS (15) times after two warm-ups, and prints p50 ms with every page decoded again, p50
// ms from a decoded-page cache holding them (the merge alone), the bytes read, and the ratios
// between sizes. BENCH_COMPARE_DIST=<another checkout's services/events/dist> of a build before
// pages (its side fields: JSON text of base64url sketches) times that build's code on its own
// stored form of the same units side by side, run by run alternating (the figures of the earlier
// runs of this bench). Progress on stderr, the tables on stdout.
import { p50Alternating } from './alternating-runs.mjs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { eventBatches, OWNERS } from './report-data.mjs';
import { cellReport, checkRows, columnBytes, ownerPages, rangeUnits } from './cell-pages.mjs';

const require = createRequire(import.meta.url);
const SIZES = (process.env.BENCH_SIZES ?? '1000000,5000000,25000000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const COMPARE = process.env.BENCH_COMPARE_DIST;
const DAYS = 30;
const URLS = 2000;
const FIRST_DAY = Date.UTC(2026, 0, 1);
const say = (s) => process.stderr.write(`[sketch-reads] ${s}\n`);
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

const day = (n) => new Date(FIRST_DAY + n * 86_400_000).toISOString().slice(0, 10);
const MONTH = { owner_id: OWNERS[0], created__gte: `${day(0)} 00:00:00`, created__lte: `${day(DAYS - 1)} 23:59:59` };
const P90 = { ...MONTH, name: 'view', group_by: 'content_id', metrics: 'count,engaged_ms_p90' };
const UNIQUES = { ...MONTH, group_by: 'url', metrics: 'count,uniques' };
const UNITS = rangeUnits(FIRST_DAY, FIRST_DAY + DAYS * 86_400_000);

/** The build before pages: its own code (side fields of JSON text) on its own stored form of the same units. */
function comparedBuild(distDir) {
  const req = (p) => require(path.resolve(distDir, p));
  const { quantilesOf, quantileAt } = req('sketches/quantile-sketch');
  const q = req('rollups/aggregates/quantiles-aggregate');
  const s = req('sketches/distinct-sketch');
  const DEVICES = ['desktop', 'mobile', 'tablet'];
  return {
    /** Per unit the `q` side text of its view cells (entries by page, per device [engaged, 0, 0]). */
    quantileCells(views) {
      return UNITS.map((_, unit) => {
        const pages = [];
        const stored = [];
        for (let page = 0; page < URLS; page++) {
          const states = DEVICES.map((_, d) => {
            const values = views.get(`${unit}|${page}|${d}`);
            return values ? [quantilesOf(values), quantilesOf([]), quantilesOf([])] : q.emptyQuantileStates();
          });
          if (!states.some((x) => x !== q.emptyQuantileStates())) continue;
          pages.push(page);
          stored.push(q.quantilesAggregate.encode(states));
        }
        return { pages, text: JSON.stringify(stored) };
      });
    },
    /** Per unit and name the `v` side text (one all-device visitor sketch per page). */
    visitorCells(visitors) {
      const cells = [];
      UNITS.forEach((_, unit) => {
        for (const name of ['impression', 'click', 'view', 'share']) {
          const pages = [];
          const stored = [];
          for (let page = 0; page < URLS; page++) {
            const hashes = visitors.get(`${unit}|${name}|${page}`);
            if (!hashes) continue;
            pages.push(page);
            stored.push(s.encodeSketch(s.sketchOfHashes(hashes)));
          }
          cells.push({ name, pages, text: JSON.stringify(stored) });
        }
      });
      return cells;
    },
    /** The p90 report's sketch part: parse, stored parts per group, one merge per group, the answer. */
    p90(cells) {
      const groups = new Map();
      for (const cell of cells) {
        const side = JSON.parse(cell.text);
        for (let i = 0; i < side.length; i++) {
          const parts = groups.get(cell.pages[i]);
          const part = q.storedQuantiles(side[i], [0, 1, 2], [0]);
          if (parts) parts.push(part);
          else groups.set(cell.pages[i], [part]);
        }
      }
      let sum = 0;
      for (const parts of groups.values()) sum += quantileAt(q.mergeAllQuantileParts(parts)[0], 0.9);
      return sum;
    },
    /** The uniques-by-url report's sketch part: parse, each stored sketch merged into its group's own. */
    uniques(cells) {
      const groups = new Map();
      for (const cell of cells) {
        const side = JSON.parse(cell.text);
        for (let i = 0; i < side.length; i++) {
          const key = `${cell.name}|${cell.pages[i]}`;
          const seen = groups.get(key);
          const part = s.mergeStoredInto(s.emptySketch(), side[i]);
          groups.set(key, seen ? s.mergeInto(seen, part) : part);
        }
      }
      let sum = 0;
      for (const x of groups.values()) sum += s.sketchCount(x).value;
      return sum;
    },
  };
}

/** The owner's pages of every unit; with a compared build, the values its stored form is made of. */
function collect(total, keepValues) {
  const builder = ownerPages(OWNERS[0], 'p', UNITS);
  const views = new Map(); // unit|page|device -> engaged values (compared build)
  const visitors = new Map(); // unit|name|page -> visitor hashes (compared build)
  let events = 0;
  let viewEvents = 0;
  const checked = [];
  for (const batch of eventBatches({ total, days: DAYS, firstDay: FIRST_DAY, urls: URLS, batch: 500 }, new Map())) {
    for (const e of batch) {
      if (e.owner_id !== OWNERS[0] || e.bot) continue;
      events++;
      if (e.name === 'view') viewEvents++;
      if (checked.length < 500) checked.push(e);
      builder.add(e);
      if (!keepValues) continue;
      const t = e.created.getTime();
      const unit = UNITS.findIndex((u) => t >= u.unit.start && t < u.end);
      const page = e.url.slice(e.url.lastIndexOf('/') + 1);
      const vk = `${unit}|${e.name}|${page}`;
      if (!visitors.has(vk)) visitors.set(vk, []);
      visitors.get(vk).push(e.visitor);
      if (e.name === 'view') {
        const qk = `${unit}|${page}|${['desktop', 'mobile', 'tablet'].indexOf(e.device_type)}`;
        if (!views.has(qk)) views.set(qk, []);
        views.get(qk).push(e.measures.engaged_ms);
      }
    }
  }
  checkRows(checked, 'p');
  return { events, viewEvents, pages: builder.pages(), views, visitors };
}

async function main() {
  const old = COMPARE ? comparedBuild(COMPARE) : undefined;
  say(
    `load average before: ${load()}; units ${UNITS.map((u) => (u.end - u.unit.start) / 86_400_000).join(', ')} days${COMPARE ? `; compared: ${COMPARE}` : ''}`,
  );
  const rows = [];
  for (const size of SIZES) {
    const t0 = Date.now();
    const data = collect(size, Boolean(old));
    const p90 = cellReport(P90, data.pages);
    const uniques = cellReport(UNIQUES, data.pages);
    // the answers checked once before timing: the p90 report has a row per content, uniques one per name and url
    const answers = [
      await p90.run(),
      await uniques.run(),
      await p90.run({ cached: true }),
      await uniques.run({ cached: true }),
    ];
    say(
      `${size.toLocaleString('en')}: ${data.events.toLocaleString('en')} events of the owner, ${data.pages.size} pages built in ${((Date.now() - t0) / 1000).toFixed(0)} s; rows ${answers[0].rows.length} / ${answers[1].rows.length}; group bytes ${(answers[0].groupBytes / 1e6).toFixed(1)} / ${(answers[1].groupBytes / 1e6).toFixed(1)} MB`,
    );
    const q = old?.quantileCells(data.views);
    const v = old?.visitorCells(data.visitors);
    const [p90Cold, p90Cached, p90Old] = await p50Alternating(
      [() => p90.run(), () => p90.run({ cached: true }), ...(old ? [() => old.p90(q)] : [])],
      RUNS,
    );
    const [uniquesCold, uniquesCached, uniquesOld] = await p50Alternating(
      [() => uniques.run(), () => uniques.run({ cached: true }), ...(old ? [() => old.uniques(v)] : [])],
      RUNS,
    );
    const text = (cells) => cells.reduce((n, c) => n + c.text.length, 0);
    rows.push({
      size,
      views: data.viewEvents,
      visitors: data.events,
      qBytes: columnBytes(data.pages, p90.plan.columns),
      qAlone: columnBytes(data.pages, ['q']) - columnBytes(data.pages, []),
      uBytes: columnBytes(data.pages, uniques.plan.columns),
      uAlone: columnBytes(data.pages, ['u']) - columnBytes(data.pages, []),
      p90Cold,
      p90Cached,
      uniquesCold,
      uniquesCached,
      ...(old ? { qText: text(q), vText: text(v), p90Old, uniquesOld } : {}),
    });
  }
  say(`load average after: ${load()}`);
  print(rows);
}

function print(rows) {
  const mb = (b) => `${(b / 1e6).toFixed(2)} MB`;
  const ms = (x) => x.toFixed(1);
  const size = (r) => `${r.size / 1e6}M`;
  const cmp = Boolean(COMPARE);
  console.log('\n"30 days, p90 engaged time, group_by content_id": rollup side (p50 ms)\n');
  console.log(
    `| events | views in range | bytes read: k, n, q (q alone) | p90: decode + merge + rows | pages cached: merge + rows |${cmp ? ' compared build: q text | compared build: sketch part | this / compared |' : ''}`,
  );
  console.log(`|---|---|---|---|---|${cmp ? '---|---|---|' : ''}`);
  for (const r of rows)
    console.log(
      `| ${size(r)} | ${r.views.toLocaleString('en')} | ${mb(r.qBytes)} (${mb(r.qAlone)}) | ${ms(r.p90Cold)} | ${ms(r.p90Cached)} |${cmp ? ` ${mb(r.qText)} | ${ms(r.p90Old)} | ${(r.p90Cold / r.p90Old).toFixed(2)} |` : ''}`,
    );
  console.log('\n"30 days, uniques, group_by url": rollup side (p50 ms)\n');
  console.log(
    `| events | visitor-events in range | bytes read: k, n, u (u alone) | uniques: decode + merge + rows | pages cached: merge + rows |${cmp ? ' compared build: v text | compared build: sketch part | this / compared |' : ''}`,
  );
  console.log(`|---|---|---|---|---|${cmp ? '---|---|---|' : ''}`);
  for (const r of rows)
    console.log(
      `| ${size(r)} | ${r.visitors.toLocaleString('en')} | ${mb(r.uBytes)} (${mb(r.uAlone)}) | ${ms(r.uniquesCold)} | ${ms(r.uniquesCached)} |${cmp ? ` ${mb(r.vText)} | ${ms(r.uniquesOld)} | ${(r.uniquesCold / r.uniquesOld).toFixed(2)} |` : ''}`,
    );
  if (rows.length < 2) return;
  console.log('\nGrowth between sizes\n');
  console.log(
    `| sizes | p90: bytes | p90: decode + merge | p90: cached | uniques: bytes | uniques: decode + merge | uniques: cached |${cmp ? ' compared: q text / p90 | compared: v text / uniques |' : ''}`,
  );
  console.log(`|---|---|---|---|---|---|---|${cmp ? '---|---|' : ''}`);
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1], rows[i]];
    const x = (k) => (b[k] / a[k]).toFixed(2);
    console.log(
      `| ${size(b)} / ${size(a)} | ${x('qBytes')} | ${x('p90Cold')} | ${x('p90Cached')} | ${x('uBytes')} | ${x('uniquesCold')} | ${x('uniquesCached')} |${cmp ? ` ${x('qText')} / ${x('p90Old')} | ${x('vText')} / ${x('uniquesOld')} |` : ''}`,
    );
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
