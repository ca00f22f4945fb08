#!/usr/bin/env node
// `pnpm bench:sketch-reads`: how the sketch part of a 30-day report grows with traffic, without a
// database, past the sizes the MongoDB stand-in can hold. For each size in BENCH_SIZES (default
// 1M, 5M, 25M events) it generates `bench:report`'s data (report-data.mjs, the same seed), keeps
// the reported owner's non-bot events, and builds what the rollup cells of a 30-day range hold
// for the two reports whose 5M/1M ratios are over 1.3: the quantile sketches of engaged time per
// (unit, content, device) and the visitor sketches (over all devices) per (unit, name, url), in
// the five units the planner reads for that range (1, 8, 16, 4 and 1 days), stored as the cells
// store them (JSON text of base64url sketches). Then it times the report's own code on them
// (services/events/dist: the side field's JSON.parse, the stored parts, the group merge, the
// answer), BENCH_RUNS (15) times, and prints p50 ms, the bytes read, and the ratios between sizes.
// Progress on stderr, the table on stdout.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventBatches, OWNERS } from './report-data.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const dist = (p) => require(path.join(root, 'services/events/dist', p));
const { quantilesOf, quantileAt } = dist('sketches/quantile-sketch');
const { quantilesAggregate, storedQuantiles, mergeAllQuantileParts, emptyQuantileStates } = dist(
  'rollups/aggregates/quantiles-aggregate',
);
const { sketchOfHashes, encodeSketch, emptySketch, mergeStoredInto, mergeInto, sketchCount } =
  dist('sketches/distinct-sketch');

const SIZES = (process.env.BENCH_SIZES ?? '1000000,5000000,25000000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const DAYS = 30;
const URLS = 2000;
// the epoch-aligned units of bench:report's 30-day range: 1, 8, 16, 4 and 1 days
const UNIT_ENDS = [1, 9, 25, 29, 30];
const DEVICES = ['desktop', 'mobile', 'tablet'];
const say = (s) => process.stderr.write(`[sketch-reads] ${s}\n`);

/** The owner's non-bot events of one size, as (unit, url, device, name, visitor, engaged_ms). */
function collect(total) {
  const firstDay = Date.UTC(2026, 0, 1);
  const views = new Map(); // unit|page|device -> engaged values
  const visitors = new Map(); // unit|name|page -> visitor hashes
  let events = 0;
  for (const batch of eventBatches({ total, days: DAYS, firstDay, urls: URLS, batch: 500 }, new Map())) {
    for (const e of batch) {
      if (e.owner_id !== OWNERS[0] || e.bot) continue;
      events++;
      const day = Math.floor((e.created.getTime() - firstDay) / 86_400_000);
      const unit = UNIT_ENDS.findIndex((end) => day < end);
      const page = e.url.slice(e.url.lastIndexOf('/') + 1);
      const vk = `${unit}|${e.name}|${page}`;
      let set = visitors.get(vk);
      if (!set) visitors.set(vk, (set = []));
      set.push(e.visitor);
      if (e.name === 'view') {
        const qk = `${unit}|${page}|${DEVICES.indexOf(e.device_type)}`;
        let values = views.get(qk);
        if (!values) views.set(qk, (values = []));
        values.push(e.measures.engaged_ms);
      }
    }
  }
  return { events, views, visitors };
}

/**
 * Per unit: the `q` side text of the view cells (entries by page, per device [engaged, 0, 0]); with
 * `folded`, one sketch over all devices per entry instead (a layout this build does not store:
 * what such a field would cost to read).
 */
function quantileCells({ views }, folded = false) {
  return UNIT_ENDS.map((_, unit) => {
    const entries = [];
    for (let page = 0; page < URLS; page++) {
      const of = (d) => views.get(`${unit}|${page}|${d}`);
      const states = DEVICES.map((_, d) => {
        const values = folded ? (d === 0 ? DEVICES.flatMap((_, e) => of(e) ?? []) : []) : (of(d) ?? []);
        return values.length > 0 ? [quantilesOf(values), quantilesOf([]), quantilesOf([])] : emptyQuantileStates();
      });
      if (states.some((s) => s !== emptyQuantileStates())) entries.push({ page, q: quantilesAggregate.encode(states) });
    }
    return { pages: entries.map((e) => e.page), text: JSON.stringify(entries.map((e) => e.q)) };
  });
}

/** Per unit and name: the `v` side text (one all-device visitor sketch per page). */
function visitorCells({ visitors }) {
  const cells = [];
  for (let unit = 0; unit < UNIT_ENDS.length; unit++)
    for (const name of ['impression', 'click', 'view', 'share']) {
      const pages = [];
      const stored = [];
      for (let page = 0; page < URLS; page++) {
        const hashes = visitors.get(`${unit}|${name}|${page}`);
        if (!hashes) continue;
        pages.push(page);
        stored.push(encodeSketch(sketchOfHashes(hashes)));
      }
      cells.push({ name, pages, text: JSON.stringify(stored) });
    }
  return cells;
}

/** The p90 report's sketch part: parse, stored parts per group, one merge per group, the answer. */
function p90Report(cells) {
  const groups = new Map();
  for (const cell of cells) {
    const side = JSON.parse(cell.text);
    for (let i = 0; i < side.length; i++) {
      const page = cell.pages[i];
      const parts = groups.get(page);
      const part = storedQuantiles(side[i], [0, 1, 2], [0]);
      if (parts) parts.push(part);
      else groups.set(page, [part]);
    }
  }
  let sum = 0;
  for (const parts of groups.values()) sum += quantileAt(mergeAllQuantileParts(parts)[0], 0.9);
  return sum;
}

/** The uniques-by-url report's sketch part: parse, each stored sketch merged into its group's own. */
function uniquesReport(cells) {
  const groups = new Map();
  for (const cell of cells) {
    const side = JSON.parse(cell.text);
    for (let i = 0; i < side.length; i++) {
      const key = `${cell.name}|${cell.pages[i]}`;
      const seen = groups.get(key);
      const part = mergeStoredInto(emptySketch(), side[i]);
      groups.set(key, seen ? mergeInto(seen, part) : part);
    }
  }
  let sum = 0;
  for (const s of groups.values()) sum += sketchCount(s).value;
  return sum;
}

// Variant (an experiment, not what reports do): a group's stored exact sets decoded into one
// array and counted with one open-addressing table per group (the hashes are uniformly random, so
// their low bits index it), instead of a sorted union per part. Groups with a HyperLogLog part or
// more than 4,096 visitors take the reports' path. What one pass per group could save.
const BYTES = Buffer.allocUnsafe(64 * 1024);
let HASHES = new Float64Array(1 << 16);
let TABLE = new Float64Array(1 << 16);

function storedByGroup(cells) {
  const groups = new Map();
  for (const cell of cells) {
    const side = JSON.parse(cell.text);
    for (let i = 0; i < side.length; i++) {
      const key = `${cell.name}|${cell.pages[i]}`;
      const seen = groups.get(key);
      if (seen) seen.push(side[i]);
      else groups.set(key, [side[i]]);
    }
  }
  return groups;
}

function reportsPath(parts) {
  let s = emptySketch();
  for (const p of parts) s = mergeStoredInto(s, p);
  return sketchCount(s).value;
}

function hashesOf(parts) {
  let n = 0;
  for (const p of parts) {
    if (typeof p !== 'string') continue;
    const len = BYTES.write(p.slice(3), 0, 'base64url');
    if (n + len / 7 > HASHES.length) {
      const grown = new Float64Array(2 * (n + len / 7));
      grown.set(HASHES.subarray(0, n));
      HASHES = grown;
    }
    for (let o = 0; o < len; o += 7)
      HASHES[n++] = ((BYTES[o] << 16) | (BYTES[o + 1] << 8) | BYTES[o + 2]) * 2 ** 32 + BYTES.readUInt32BE(o + 3);
  }
  return n;
}

function distinctOf(n) {
  let size = 16;
  while (size < 2 * n) size *= 2;
  if (TABLE.length < size) TABLE = new Float64Array(size);
  const table = TABLE;
  table.fill(-1, 0, size);
  const mask = size - 1;
  let distinct = 0;
  for (let i = 0; i < n; i++) {
    const h = HASHES[i];
    let at = (h % 4294967296) & mask;
    while (table[at] !== -1 && table[at] !== h) at = (at + 1) & mask;
    if (table[at] === -1) {
      table[at] = h;
      distinct++;
    }
  }
  return distinct;
}

function uniquesOneTable(cells) {
  let sum = 0;
  for (const parts of storedByGroup(cells).values()) {
    if (parts.some((p) => typeof p === 'string' && !p.startsWith('e1:'))) {
      sum += reportsPath(parts);
      continue;
    }
    const distinct = distinctOf(hashesOf(parts));
    sum += distinct <= 4096 ? distinct : reportsPath(parts);
  }
  return sum;
}

/** The floor of reading the bytes at all: the side field's JSON.parse and the base64 decoding. */
function parseAndBase64(cells) {
  let n = 0;
  for (const c of cells)
    for (const t of JSON.parse(c.text)) if (typeof t === 'string') n += BYTES.write(t.slice(3), 0, 'base64url');
  return n;
}

function p50(work) {
  const times = [];
  for (let r = 0; r < RUNS + 2; r++) {
    const t0 = process.hrtime.bigint();
    work();
    if (r >= 2) times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const rows = [];
for (const size of SIZES) {
  const t0 = Date.now();
  const data = collect(size);
  const q = quantileCells(data);
  const qFolded = quantileCells(data, true);
  const v = visitorCells(data);
  say(
    `${size.toLocaleString('en')}: ${data.events.toLocaleString('en')} events of the owner, cells built in ${((Date.now() - t0) / 1000).toFixed(0)} s`,
  );
  if (uniquesReport(v) !== uniquesOneTable(v)) throw new Error('the one-table variant counted differently');
  const text = (cells) => cells.reduce((n, c) => n + c.text.length, 0);
  rows.push({
    size,
    views: [...data.views.values()].reduce((n, xs) => n + xs.length, 0),
    visitors: [...data.visitors.values()].reduce((n, xs) => n + xs.length, 0),
    q: text(q),
    qFolded: text(qFolded),
    v: text(v),
    p90: p50(() => p90Report(q)),
    p90Folded: p50(() => p90Report(qFolded)),
    uniques: p50(() => uniquesReport(v)),
    oneTable: p50(() => uniquesOneTable(v)),
    floor: p50(() => parseAndBase64(v)),
  });
}

const mb = (b) => `${(b / 1e6).toFixed(2)} MB`;
const ms = (x) => x.toFixed(1);
const size = (r) => `${r.size / 1e6}M`;
console.log(
  '\nQuantile sketches read by "30 days, p90 engaged time, group_by content_id" (sketch part only, p50 ms)\n',
);
console.log(
  '| events | views in range | q text | p90: sketch part | devices folded: q text | devices folded: sketch part |',
);
console.log('|---|---|---|---|---|---|');
for (const r of rows)
  console.log(
    `| ${size(r)} | ${r.views.toLocaleString('en')} | ${mb(r.q)} | ${ms(r.p90)} | ${mb(r.qFolded)} | ${ms(r.p90Folded)} |`,
  );
console.log('\nVisitor sketches read by "30 days, uniques, group_by url" (sketch part only, p50 ms)\n');
console.log(
  '| events | visitor-events in range | v text | uniques: sketch part | one table per group | JSON.parse + base64 only |',
);
console.log('|---|---|---|---|---|---|');
for (const r of rows)
  console.log(
    `| ${size(r)} | ${r.visitors.toLocaleString('en')} | ${mb(r.v)} | ${ms(r.uniques)} | ${ms(r.oneTable)} | ${ms(r.floor)} |`,
  );
console.log('\nGrowth between sizes\n');
console.log(
  '| sizes | q text | p90 sketch part | folded: q text / sketch part | v text | uniques sketch part | one table | parse + base64 |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (let i = 1; i < rows.length; i++) {
  const [a, b] = [rows[i - 1], rows[i]];
  const x = (k) => (b[k] / a[k]).toFixed(2);
  console.log(
    `| ${size(b)} / ${size(a)} | ${x('q')} | ${x('p90')} | ${x('qFolded')} / ${x('p90Folded')} | ${x('v')} | ${x('uniques')} | ${x('oneTable')} | ${x('floor')} |`,
  );
}
