#!/usr/bin/env node
// `pnpm bench:flood-hour`: whether one tenant's flood of distinct urls in one hour can be built
// by a rollup builder limited to a small heap, and what it takes. For each cap in BENCH_FLOOD_CAPS
// (default: the builder's default ROLLUP_MAX_CELLS_PER_OWNER, then 1,000,000, so the flood's cells
// are really kept), in a fresh database:
// - one finished UTC hour is written through the consumer's BucketWriter with held rollup write
//   marks, as production writes it: BENCH_FLOOD_URLS (60,000) distinct short urls of one owner,
//   each hit once under every name of BENCH_FLOOD_NAMES (impression,click), and BENCH_FLOOD_OTHERS
//   (30,000) hits of three other owners' normal traffic (hour-events.mjs);
// - the real rollup builder runs in a child process (flood-hour-build.mjs) with
//   --max-old-space-size=BENCH_FLOOD_HEAP_MB (128) until a pass builds nothing; the peak heap is
//   read from --trace-gc (the heap before each collection, so synchronous peaks count too), per
//   unit level as well, beside the sampled heap and the child's maximum RSS.
// A child that runs out of heap leaves a heap snapshot taken near the limit
// (--heapsnapshot-near-heap-limit): its largest object kinds and largest single objects are
// printed, and the same build is run again with each heap of BENCH_FLOOD_RETRY_MB
// (192,256,384,512,768,1024) in turn until one builds: what it takes. The live heap is the
// largest heap left after a full collection (Mark-Compact); the peak, the largest before any.
// Then the flood owner's pages of the hour are read back: built or not, entries kept, `over`.
// Last, where the heap goes, measured in this process (run with --expose-gc): the flood owner's
// hour rows read from the hour pipeline's cursor into its family tables as the builder does,
// the tables' heap after a collection, and what its pages add while they are written.
// Data store: MONGO_URL when set, else a MongoDB stand-in (BENCH_HEAP, 4g). Progress on stderr,
// the tables on stdout.
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HOUR_MS, floodEvents, hourEvents } from './hour-events.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const require = createRequire(import.meta.url);
const dist = (p) => require(path.join(root, 'services/events/dist', p));
const platform = require(path.join(root, 'packages/platform/dist'));
const testkit = require(path.join(root, 'packages/testkit/dist'));
const { BucketWriter } = dist('consumer/bucket-writer');
const { RollupMarks } = dist('rollups/rollup-marks');
const { HeldMarks } = dist('rollups/held-marks');
const { bucketName } = dist('storage/bucket-naming');
const { markFromDocument } = dist('rollups/mark-document');
const { isBuilt } = dist('rollups/unit-mark');
const { unitId } = dist('rollups/rollup-units');
const { pageId } = dist('rollups/page-layout');
const { DecodedPage } = dist('rollups/page-reader');
// the service's default ROLLUP_MAX_CELLS_PER_OWNER, from its configuration schema
const DEFAULT_MAX_CELLS_PER_OWNER = dist('config').loadEventsConfig({}).ROLLUP_MAX_CELLS_PER_OWNER;
const { addHourRow, buildHourPipeline, readHourRow } = dist('rollups/hour-pipeline');
const { FamilyTable } = dist('rollups/cell-table');
const { FAMILIES } = dist('rollups/families');
const { writePages } = dist('rollups/page-writer');

const FLOOD_OWNER = '900000000000001';
const OTHERS = ['100000000000001', '100000000000002', '100000000000003'];
const URLS = Number(process.env.BENCH_FLOOD_URLS ?? 60_000);
const NAMES = (process.env.BENCH_FLOOD_NAMES ?? 'impression,click').split(',');
const OTHER_HITS = Number(process.env.BENCH_FLOOD_OTHERS ?? 30_000);
const CAPS = (process.env.BENCH_FLOOD_CAPS ?? `${DEFAULT_MAX_CELLS_PER_OWNER},1000000`).split(',').map(Number);
const HEAP_MB = Number(process.env.BENCH_FLOOD_HEAP_MB ?? 128);
const RETRY_MB = (process.env.BENCH_FLOOD_RETRY_MB ?? '192,256,384,512,768,1024').split(',').map(Number);
const LEVELS = ['1h', '2h', '4h', '8h', '1d', '2d', '4d', '8d', '16d', '32d'];
const say = (s) => process.stderr.write(`[flood-hour] ${s}\n`);
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const mib = (bytes) => (bytes / 2 ** 20).toFixed(1);

/** The hour's events, in time order: the flood and the other owners' traffic. */
function theHour(hour) {
  const flood = floodEvents({ hour, owner: FLOOD_OWNER, urls: URLS, names: NAMES });
  const others = hourEvents({ hour, events: OTHER_HITS, owners: OTHERS });
  return [...flood, ...others].sort((a, b) => a.created - b.created);
}

/** Written as the consumer writes: batches of 500 with held write marks, drained at the end. */
async function write(db, docs, logger) {
  const marks = new RollupMarks(db);
  await marks.init();
  const held = new HeldMarks(marks, { holdMs: 10_000, lingerMs: 1000 });
  const writer = new BucketWriter(db, logger, { w: 'majority', journal: true }, held);
  const bucket = bucketName('events', docs[0].created);
  for (let i = 0; i < docs.length; i += 500) {
    const results = await writer.write(bucket, docs.slice(i, i + 500));
    if (results.some((r) => r.status !== 'written')) throw new Error(`write to ${bucket} failed`);
  }
  await held.drain();
  return marks;
}

/** `--trace-gc` lines: the heap before each collection is the peak since the last one. */
const GC_LINE =
  /(Scavenge|Mark-Compact|Mark-sweep|Minor [A-Za-z-]+)[^\d]*([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB/;

/** Runs the builder child with a heap of `heapMb`; resolves with what it reported and saw. */
function runChild({ mongoUrl, dbName, cap, heapMb, snapshotDir }) {
  return new Promise((resolve) => {
    const execArgv = [`--max-old-space-size=${heapMb}`, '--trace-gc'];
    if (snapshotDir) execArgv.push('--heapsnapshot-near-heap-limit=1', `--diagnostic-dir=${snapshotDir}`);
    const child = fork(path.join(here, 'flood-hour-build.mjs'), [], {
      execArgv,
      env: { ...process.env, FLOOD_MONGO_URL: mongoUrl, FLOOD_DB: dbName, FLOOD_CAP: String(cap) },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let report;
    let level = 'setup';
    const peakByLevel = {};
    let peakGc = 0;
    let live = 0;
    let collections = 0;
    let tail = '';
    let stderr = '';
    child.on('message', (m) => (report = m));
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    child.stdout.on('data', (d) => {
      const lines = (tail + d).split('\n');
      tail = lines.pop();
      for (const line of lines) {
        const unit = /^@@unit (\d+) (start|end)/.exec(line);
        if (unit) {
          level = unit[2] === 'start' ? LEVELS[Number(unit[1])] : 'between units';
          continue;
        }
        const gc = GC_LINE.exec(line);
        if (!gc) continue;
        collections++;
        const before = Number(gc[2]) * 2 ** 20;
        peakGc = Math.max(peakGc, before);
        if (gc[1] === 'Mark-Compact') live = Math.max(live, Number(gc[4]) * 2 ** 20);
        peakByLevel[level] = Math.max(peakByLevel[level] ?? 0, before);
      }
    });
    child.on('exit', (code, signal) =>
      resolve({
        code,
        signal,
        report,
        peakGc,
        live,
        peakByLevel,
        collections,
        stderr: stderr.trim().split('\n').slice(-6).join('\n'),
      }),
    );
  });
}

/**
 * A heap snapshot's largest kinds of objects ([kind, count, self bytes], by bytes) and its largest
 * single objects, each with what holds it (two retainers up): which code the memory belongs to.
 */
function snapshotSummary(file, top = 14) {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const { node_fields: fields, edge_fields: edgeFields } = snap.snapshot.meta;
  const types = snap.snapshot.meta.node_types[0];
  const [T, N, S, E] = ['type', 'name', 'self_size', 'edge_count'].map((f) => fields.indexOf(f));
  const ET = edgeFields.indexOf('to_node');
  const width = fields.length;
  const { nodes, edges, strings } = snap;
  const label = (i) => {
    const type = types[nodes[i + T]];
    return type === 'object' || type === 'native' || type === 'closure'
      ? `${type} ${strings[nodes[i + N]].slice(0, 40)}`
      : type;
  };
  const kinds = new Map();
  let total = 0;
  const largest = [];
  for (let i = 0; i < nodes.length; i += width) {
    const kind = label(i);
    const size = nodes[i + S];
    total += size;
    const k = kinds.get(kind) ?? [0, 0];
    k[0]++;
    k[1] += size;
    kinds.set(kind, k);
    if (size > 1e6) largest.push(i);
  }
  largest.sort((a, b) => nodes[b + S] - nodes[a + S]).splice(5);
  // one pass over the edges: who points at the largest objects, and at those
  const holders = new Map();
  const wanted = new Set(largest);
  for (let round = 0; round < 2; round++) {
    for (let i = 0, e = 0; i < nodes.length; i += width) {
      for (let c = 0; c < nodes[i + E]; c++, e += edgeFields.length) {
        const to = edges[e + ET];
        if (wanted.has(to) && !holders.has(to)) holders.set(to, i);
      }
    }
    for (const i of largest) if (holders.has(i)) wanted.add(holders.get(i));
  }
  const chain = (i) => {
    const out = [];
    for (let at = holders.get(i), n = 0; at !== undefined && n < 2; at = holders.get(at), n++) out.push(label(at));
    return out.join(' <- ');
  };
  return {
    total,
    top: [...kinds].sort((a, b) => b[1][1] - a[1][1]).slice(0, top),
    largest: largest.map((i) => [label(i), nodes[i + S], chain(i)]),
  };
}

/**
 * Where the builder's heap goes for the flood owner's hour, in this process: its rows from the
 * hour pipeline's cursor into a FamilyTable per family (no cap) as unit-builders.ts adds them,
 * the tables' heap once collected, then what its pages (the real page writer) add while the
 * tables are still held, as at the builder's flush.
 */
async function breakdown(db, hour) {
  if (typeof globalThis.gc !== 'function') return undefined;
  // typed arrays (visitor samples) and the pages' bytes live outside the JS heap: counted too;
  // their backing stores are released after a collection, so it is run again on later turns
  const heap = async () => {
    for (let i = 0; i < 3; i++) {
      globalThis.gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    return { heapUsed, arrayBuffers, all: heapUsed + arrayBuffers };
  };
  const base = await heap();
  const tables = new Map(FAMILIES.map((f) => [f.id, new FamilyTable(f, Infinity)]));
  let rows = 0;
  const pipeline = buildHourPipeline(new Date(hour), new Date(hour + HOUR_MS));
  for await (const doc of db
    .collection(bucketName('events', new Date(hour)))
    .aggregate(pipeline, { allowDiskUse: true })) {
    const row = readHourRow(doc);
    if (row.owner !== FLOOD_OWNER) continue;
    rows++;
    addHourRow(tables, row);
  }
  const withTables = await heap();
  const g = `${unitId({ level: 0, start: hour })}@breakdown`;
  const pages = [...tables.values()].flatMap((t) => writePages(g, FLOOD_OWNER, t.family, t.sorted()));
  const withPages = await heap();
  const encoded = pages.reduce((n, d) => n + Object.values(d).reduce((m, v) => m + (v?.position ?? 0), 0), 0);
  const entries = Object.fromEntries([...tables].map(([id, t]) => [id, t.size]));
  const all = Object.values(entries).reduce((a, b) => a + b, 0);
  return {
    rows,
    entries,
    tables: withTables.all - base.all,
    // what --max-old-space-size bounds: the JS heap (array buffers are outside it)
    tablesHeap: withTables.heapUsed - base.heapUsed,
    perEntry: (withTables.all - base.all) / all,
    perEntryHeap: (withTables.heapUsed - base.heapUsed) / all,
    pages: withPages.all - withTables.all,
    encoded,
  };
}

/** The flood owner's pages of the hour: built or not, its entries per family, `over` families. */
async function floodPages(db, hour) {
  const doc = await db.collection('rollup_marks').findOne({ _id: unitId({ level: 0, start: hour }) });
  const mark = doc && markFromDocument(doc);
  if (!mark || !isBuilt(mark)) return { built: false };
  const g = mark.built.generation;
  const families = {};
  for (const f of FAMILIES.map((family) => family.id)) {
    const first = await db.collection('rollup_cells').findOne({ _id: pageId(g, FLOOD_OWNER, f, 0) });
    if (!first) continue;
    if (first.over) {
      families[f] = 'over';
      continue;
    }
    let entries = new DecodedPage(first).count;
    for (let p = 1; p < (first.x ?? 1); p++)
      entries += new DecodedPage(await db.collection('rollup_cells').findOne({ _id: pageId(g, FLOOD_OWNER, f, p) }))
        .count;
    families[f] = `${entries} entries on ${first.x ?? 1} pages`;
  }
  return { built: true, families };
}

async function measureCap(cap, mongoUrl, logger, hour, docs, first) {
  const dbName = `bench_flood_${process.pid}_${cap}`;
  const handle = await platform.connectMongo(mongoUrl, dbName);
  const snapshotDir = mkdtempSync(path.join(os.tmpdir(), 'flood-hour-'));
  try {
    const t0 = Date.now();
    await write(handle.db, docs, logger);
    say(
      `cap ${cap}: ${docs.length} events written in ${((Date.now() - t0) / 1000).toFixed(0)} s; building with ${HEAP_MB} MiB (load ${load()})`,
    );
    const runs = [{ heapMb: HEAP_MB, ...(await runChild({ mongoUrl, dbName, cap, heapMb: HEAP_MB, snapshotDir })) }];
    const snapshots = readdirSync(snapshotDir).filter((f) => f.endsWith('.heapsnapshot'));
    let summary;
    if (snapshots.length > 0) summary = snapshotSummary(path.join(snapshotDir, snapshots[0]));
    if (!runs[0].report) {
      say(`cap ${cap}: the ${HEAP_MB} MiB build died (${runs[0].code ?? runs[0].signal}): ${runs[0].stderr}`);
      for (const heapMb of RETRY_MB) {
        say(`cap ${cap}: again with ${heapMb} MiB to measure what it takes (load ${load()})`);
        runs.push({ heapMb, ...(await runChild({ mongoUrl, dbName, cap, heapMb })) });
        if (runs[runs.length - 1].report) break;
      }
    }
    return {
      cap,
      runs,
      summary,
      pages: await floodPages(handle.db, hour),
      breakdown: first ? await breakdown(handle.db, hour) : undefined,
    };
  } finally {
    rmSync(snapshotDir, { recursive: true, force: true });
    await handle.db.dropDatabase().catch(() => undefined);
    await handle.close();
  }
}

function print(results) {
  console.log(
    `\nOne hour: ${URLS.toLocaleString('en')} distinct urls of one owner x ${NAMES.join(', ')}, plus ${OTHER_HITS.toLocaleString('en')} hits of ${OTHERS.length} other owners\n`,
  );
  console.log(
    "| cap (cells per owner and family) | heap limit MiB | built | live heap MiB (after full GC) | peak heap MiB (before GC) | max RSS MiB | build s | flood owner's hour pages |",
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of results)
    for (const run of r.runs) {
      const rep = run.report;
      const built = rep
        ? rep.passes.some((p) => p.failed.length > 0)
          ? 'some units failed'
          : 'yes'
        : `no (${run.code ?? run.signal})`;
      const pages =
        rep && run === r.runs[r.runs.length - 1]
          ? r.pages.built
            ? JSON.stringify(r.pages.families)
            : 'hour not built'
          : '';
      console.log(
        `| ${r.cap.toLocaleString('en')} | ${run.heapMb} | ${built} | ${mib(run.live)} | ${mib(run.peakGc)} | ${rep ? mib(rep.maxRss) : ''} | ${rep ? rep.seconds.toFixed(0) : ''} | ${pages} |`,
      );
    }
  console.log('\nPeak heap before a collection, by the unit level being built (MiB)\n');
  console.log(`| cap | heap limit MiB | ${['setup', ...LEVELS.filter((_, i) => ![1, 3].includes(i))].join(' | ')} |`);
  console.log(`|---|---|${'---|'.repeat(9)}`);
  for (const r of results)
    for (const run of r.runs)
      console.log(
        `| ${r.cap.toLocaleString('en')} | ${run.heapMb} | ${['setup', ...LEVELS.filter((_, i) => ![1, 3].includes(i))].map((l) => (run.peakByLevel[l] ? mib(run.peakByLevel[l]) : '')).join(' | ')} |`,
      );
  for (const r of results) {
    if (!r.summary) continue;
    console.log(
      `\nHeap snapshot near the ${HEAP_MB} MiB limit, cap ${r.cap}: ${mib(r.summary.total)} MiB in all; largest kinds\n`,
    );
    console.log('| kind | count | self MiB |');
    console.log('|---|---|---|');
    for (const [kind, [count, size]] of r.summary.top)
      console.log(`| ${kind} | ${count.toLocaleString('en')} | ${mib(size)} |`);
    console.log('\n| largest objects | self MiB | held by |');
    console.log('|---|---|---|');
    for (const [kind, size, chain] of r.summary.largest) console.log(`| ${kind} | ${mib(size)} | ${chain} |`);
  }
  const b = results[0]?.breakdown;
  if (b) {
    console.log(
      `\nWhere the heap goes: the flood owner's ${b.rows.toLocaleString('en')} hour rows in its family tables (this process, after GC)\n`,
    );
    console.log(
      '| entries by family | tables MiB: heap + array buffers (heap alone) | bytes per entry (heap alone) | pages written: MiB more | pages: encoded MiB |',
    );
    console.log('|---|---|---|---|---|');
    console.log(
      `| ${Object.entries(b.entries)
        .map(([f, n]) => `${f} ${n}`)
        .join(
          ', ',
        )} | ${mib(b.tables)} (${mib(b.tablesHeap)}) | ${Math.round(b.perEntry)} (${Math.round(b.perEntryHeap)}) | ${mib(b.pages)} | ${mib(b.encoded)} |`,
    );
  }
}

async function main() {
  const ownStore = !process.env.MONGO_URL;
  const server = ownStore ? await testkit.startMongoStandIn({ heap: process.env.BENCH_HEAP ?? '4g' }) : undefined;
  const mongoUrl = process.env.MONGO_URL ?? server.url;
  const logger = platform.createLogger({ service: 'bench-flood-hour', level: 'error' });
  // a finished hour, a day back: ready to build at once (grace 0), well inside raw retention
  const hour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 30 * HOUR_MS;
  say(`load average before: ${load()}; caps ${CAPS.join(', ')}; heap ${HEAP_MB} MiB`);
  const docs = theHour(hour);
  const results = [];
  try {
    for (const cap of CAPS) results.push(await measureCap(cap, mongoUrl, logger, hour, docs, results.length === 0));
  } finally {
    await server?.stop();
  }
  say(`load average after: ${load()}`);
  print(results);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
