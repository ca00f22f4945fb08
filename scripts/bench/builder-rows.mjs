#!/usr/bin/env node
// `pnpm bench:builder-rows`: what the rollup builder spends merging one row of the hour pipeline
// into its cells, per row shape, this build beside another (BENCH_COMPARE_DIST=<another checkout's
// services/events/dist>, optional), in one run.
//
// One hour of realistic hits (hour-events.mjs: Zipf pages with query strings, tracking parameters
// and click ids, IDN and upper-case hosts, visitors with sessions of several events, 1 % bots) is
// stored three times, once per row shape, into a MongoDB stand-in (MONGO_URL when set) through the
// consumer's BucketWriter:
// - count: hits without visitor or measures (events stored before visitors existed);
// - visitor: with their visitor (every hit ingest stores now);
// - visitor + 3 measures: with their visitor and engaged_ms, scroll_depth and value each.
// Each build's own hour pipeline (its rollups/hour-pipeline buildHourPipeline) is run once per
// shape and its rows kept as the driver returns them. Then, in memory, each build's row loop is
// timed on its own rows, as its builder runs it: this build's readHourRow and one FamilyTable.add
// per family (unit-builders.ts: the tables start again at every owner), a build with a CellTable
// its readHourRow and CellTable.addDeviceRow (one table for the hour). BENCH_RUNS (15) runs after
// two warm-ups, the builds alternating which goes first; p50 microseconds per row, and per hit
// (the builds split the same hits into different rows). Last, the memory each build's cells of
// one shape hold (JS heap and array buffers, after global.gc: run with --expose-gc), per distinct
// cell. BENCH_EVENTS (30,000) hits per shape over BENCH_OWNERS (3) owners. BENCH_CPU_PROF=<dir>:
// each build's loop profiled per shape too (five more runs), its top functions by self time on
// stderr and the .cpuprofile files in <dir>.
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { profiled } from './cpu-profile.mjs';
import { HOUR_MS, hourEvents } from './hour-events.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const platform = require(path.join(root, 'packages/platform/dist'));
const testkit = require(path.join(root, 'packages/testkit/dist'));
const THIS_DIST = path.join(root, 'services/events/dist');
const { BucketWriter } = require(path.join(THIS_DIST, 'consumer/bucket-writer'));

const EVENTS = Number(process.env.BENCH_EVENTS ?? 30_000);
const OWNERS = Array.from({ length: Number(process.env.BENCH_OWNERS ?? 3) }, (_, i) => `10000000000000${i + 1}`);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const WARMUP = 2;
const say = (s) => process.stderr.write(`[builder-rows] ${s}\n`);
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

const SHAPES = [
  { key: 'count', name: 'count only', visitors: false, measures: 'none' },
  { key: 'visitor', name: '+ visitor', visitors: true, measures: 'none' },
  { key: 'measures', name: '+ visitor and 3 measures', visitors: true, measures: 'all' },
];

/** A build's hour pipeline and row loop, whichever of the two cell tables it has. */
function builderOf(distDir, label) {
  const req = (p) => require(path.resolve(distDir, p));
  const { addHourRow, buildHourPipeline, readHourRow } = req('rollups/hour-pipeline');
  const tables = req('rollups/cell-table');
  if (tables.FamilyTable) {
    const { FAMILIES } = req('rollups/families');
    // the service's default ROLLUP_MAX_CELLS_PER_OWNER, from its configuration schema
    const { ROLLUP_MAX_CELLS_PER_OWNER } = req('config').loadEventsConfig({});
    const newTables = () => new Map(FAMILIES.map((f) => [f.id, new tables.FamilyTable(f, ROLLUP_MAX_CELLS_PER_OWNER)]));
    return {
      label,
      buildHourPipeline,
      /** unit-builders.ts buildHours: one owner's tables at a time (`keep`: every owner's kept, to weigh them). */
      loop(rows, keep = false) {
        const kept = [];
        let owner;
        let byHour = new Map();
        for (let i = 0; i < rows.length; i++) {
          const row = readHourRow(rows[i]);
          if (row.owner !== owner) {
            if (keep) kept.push(...byHour.values());
            byHour = new Map();
            owner = row.owner;
          }
          let byFamily = byHour.get(row.hour);
          if (!byFamily) byHour.set(row.hour, (byFamily = newTables()));
          // the builder's own step where the build has it (unit-builders.ts), else its loop as it was
          if (addHourRow) addHourRow(byFamily, row);
          else
            for (const family of FAMILIES)
              byFamily.get(family.id).add(
                row.name,
                family.dimensions.map((d) => row.dims[d]),
                row.value,
              );
        }
        if (keep) kept.push(...byHour.values());
        return kept;
      },
      cells(kept) {
        const byFamily = {};
        for (const tablesOf of kept)
          for (const t of tablesOf.values()) byFamily[t.family.id] = (byFamily[t.family.id] ?? 0) + t.size;
        return { all: Object.values(byFamily).reduce((a, b) => a + b, 0), detail: byFamily };
      },
    };
  }
  return {
    label,
    buildHourPipeline,
    /** The builder before families: one CellTable per hour, every owner's cells in it. */
    loop(rows) {
      const byHour = new Map();
      for (let i = 0; i < rows.length; i++) {
        const row = readHourRow(rows[i]);
        let table = byHour.get(row.hour);
        if (!table) byHour.set(row.hour, (table = new tables.CellTable()));
        table.addDeviceRow(row);
      }
      return [...byHour.values()];
    },
    cells(kept) {
      const all = kept.reduce((n, t) => n + t.size, 0);
      return { all, detail: { cells: all } };
    },
  };
}

const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Bytes the cells of `rows` hold once built (garbage collected before and after). */
async function heapOf(build, rows) {
  // typed arrays (visitor samples) keep their bytes outside the JS heap: counted too; their
  // backing stores are released after the collection, so it is run again on a later turn
  const used = async () => {
    for (let i = 0; i < 3; i++) {
      globalThis.gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const before = await used();
  const kept = build.loop(rows, true);
  const bytes = (await used()) - before;
  return { bytes, cells: build.cells(kept) };
}

async function main() {
  if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc (pnpm bench:builder-rows does)');
  const builds = [builderOf(THIS_DIST, 'this build')];
  if (process.env.BENCH_COMPARE_DIST) builds.push(builderOf(process.env.BENCH_COMPARE_DIST, 'compared build'));
  const ownStore = !process.env.MONGO_URL;
  const server = ownStore ? await testkit.startMongoStandIn({ heap: process.env.BENCH_HEAP ?? '2g' }) : undefined;
  const mongoUrl = process.env.MONGO_URL ?? server.url;
  const handle = await platform.connectMongo(mongoUrl, `bench_builder_rows_${process.pid}`);
  const logger = platform.createLogger({ service: 'bench-builder-rows', level: 'error' });
  const writer = new BucketWriter(handle.db, logger, { w: 1 });
  // a finished hour: where the builder reads from
  const hour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 30 * HOUR_MS;
  say(
    `load average before: ${load()}; ${EVENTS} hits per shape, ${OWNERS.length} owners, builds: ${builds.map((b) => b.label).join(', ')}`,
  );
  const results = [];
  try {
    for (const shape of SHAPES) {
      const docs = hourEvents({
        hour,
        events: EVENTS,
        owners: OWNERS,
        visitors: shape.visitors,
        measures: shape.measures,
      });
      const bucket = `bench_rows_${shape.key}`;
      for (let i = 0; i < docs.length; i += 1000) {
        const written = await writer.write(bucket, docs.slice(i, i + 1000));
        if (written.some((r) => r.status !== 'written')) throw new Error(`write to ${bucket} failed`);
      }
      const rows = [];
      for (const build of builds) {
        const pipeline = build.buildHourPipeline(new Date(hour), new Date(hour + HOUR_MS));
        rows.push(await handle.db.collection(bucket).aggregate(pipeline, { allowDiskUse: true }).toArray());
      }
      say(`${shape.name}: ${docs.length} hits, rows ${rows.map((r) => r.length).join(' / ')}`);
      const times = builds.map(() => []);
      for (let run = 0; run < WARMUP + RUNS; run++) {
        const order = run % 2 === 0 ? builds.map((_, i) => i) : builds.map((_, i) => i).reverse();
        for (const b of order) {
          const started = process.hrtime.bigint();
          builds[b].loop(rows[b]);
          const us = Number(process.hrtime.bigint() - started) / 1000;
          if (run >= WARMUP) times[b].push(us / rows[b].length);
        }
      }
      const heap = [];
      for (const [b, build] of builds.entries()) heap.push(await heapOf(build, rows[b]));
      if (process.env.BENCH_CPU_PROF)
        for (const [b, build] of builds.entries()) {
          const file = path.join(process.env.BENCH_CPU_PROF, `builder-rows-${shape.key}-${b}.cpuprofile`);
          const top = await profiled(async () => {
            for (let i = 0; i < 5; i++) build.loop(rows[b]);
          }, file);
          say(`${shape.name}, ${build.label}: self time (${file})\n${top}`);
        }
      results.push({ shape, rows: rows.map((r) => r.length), perRow: times.map(p50), heap });
    }
  } finally {
    await handle.db.dropDatabase().catch(() => undefined);
    await handle.close();
    await server?.stop();
  }
  say(`load average after: ${load()}`);
  print(builds, results);
}

function print(builds, results) {
  const us = (x) => (x >= 10 ? x.toFixed(1) : x.toFixed(2));
  const compare = builds.length > 1;
  console.log(`\nMerge cost per hour-pipeline row (p50 of ${RUNS} runs, us per row; ${EVENTS} hits per shape)\n`);
  // the builds' pipelines split the same hits into different numbers of rows: per hit too
  const perHit = (r, b) => (r.perRow[b] * r.rows[b]) / EVENTS;
  console.log(
    `| row shape | rows: this build${compare ? ' / compared' : ''} | this build us/row${compare ? ' | compared us/row | this / compared' : ''} | us per hit: this build${compare ? ' / compared' : ''} |`,
  );
  console.log(`|---|---|---${compare ? '|---|---' : ''}|---|`);
  for (const r of results)
    console.log(
      `| ${r.shape.name} | ${r.rows.join(' / ')} | ${us(r.perRow[0])}${compare ? ` | ${us(r.perRow[1])} | ${(r.perRow[0] / r.perRow[1]).toFixed(2)}` : ''} | ${builds.map((_, b) => us(perHit(r, b))).join(' / ')} |`,
    );
  console.log('\nMemory the cells of one shape hold once built (JS heap and array buffers, after global.gc)\n');
  console.log('| row shape | build | distinct cells | MB | bytes per cell | cells by family |');
  console.log('|---|---|---|---|---|---|');
  for (const r of results)
    builds.forEach((build, b) => {
      const { bytes, cells } = r.heap[b];
      const detail = Object.entries(cells.detail)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      console.log(
        `| ${r.shape.name} | ${build.label} | ${cells.all} | ${(bytes / 1e6).toFixed(1)} | ${Math.round(bytes / cells.all)} | ${detail} |`,
      );
    });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
