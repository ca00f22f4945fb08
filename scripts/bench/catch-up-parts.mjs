#!/usr/bin/env node
// `pnpm bench:catch-up-parts`: where the rollup builder's catch-up time goes. Loads bench:report's
// events (report-data.mjs, BENCH_SIZE, 1,000,000, over BENCH_DAYS 30 days) into a fresh MongoDB
// stand-in (BENCH_HEAP, 8g) the way production writes them, keeps the rollup marks as loaded, then:
// 1. one day bucket alone (the middle day): the stand-in's scan ($match + $count), its hour
//    `$group` (+ $count: no rows sent), the hour pipeline's rows fetched and parsed, the Node
//    merge of those rows (readHourRow / addHourRow into one owner's family tables) and the page
//    encode; beside it, the same events fetched raw with find, and, for a build that reads hours
//    that way (hourEventRead), its projected, sorted find and its rows made in Node.
// 2. the whole catch-up, builder passes until one builds nothing (as bench:report times it), with
//    the builder's steps timed by wrapping the built modules' exports: hours and merged units by
//    level, the hour read, the merge loop, encode, page writes, child reads and merges,
//    marks/commit round trips; plus the stand-in's CPU seconds.
// BENCH_DISSECT=0 skips part 1, BENCH_PARTS=0 parts 1 and 2. BENCH_COMPARE_DIST=<another
// checkout's services/events/dist>: that build too, on the same data (the marks restored and the
// cells dropped before each catch-up): part 2 for each build, and BENCH_ROUNDS (1) plain
// catch-ups of each, alternating A B B A. BENCH_CPU_PROF=<dir>: a Node CPU profile of each.
// BENCH_PAGES_DIGEST=1: after each build's first plain catch-up, a digest of every current unit's
// pages (generation ids left out), so two builds of the same data are shown to store the same bytes.
// BENCH_THREADS=<n>: plain catch-ups of this build alternating, one builder against n rollup
// threads (ROLLUP_THREADS=<n>), BENCH_ROUNDS rounds, with the pages' digest of each when asked.
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { catchUpBuilder, loadEvents, startBenchStandIn } from './report-load.mjs';
import { reportBenchSettings } from './report-scenarios.mjs';
import { cpuOf } from './proc-cpu.mjs';
import { profiled } from './cpu-profile.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const platform = require(path.join(root, 'packages/platform/dist'));
const SIZE = Number(process.env.BENCH_SIZE ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const SETTINGS = reportBenchSettings({ ...process.env, BENCH_SIZES: String(SIZE) });
const THIS = path.join(root, 'services/events/dist');
const BUILDS = [THIS, ...(process.env.BENCH_COMPARE_DIST ? [path.resolve(process.env.BENCH_COMPARE_DIST)] : [])];
const say = (msg) => console.error(`[bench] ${msg}`);
const logger = platform.createLogger({ service: 'bench-catch-up', level: 'error' });
const s = (ms) => (ms / 1000).toFixed(1);

/** Wall milliseconds and calls per named step, filled by wrapped functions. */
class Steps {
  times = new Map();
  /** The builder's unit being built (hours or merged): nested steps are told apart by it. */
  within = '';
  add(name, ms) {
    if (!name.startsWith('level')) name = `${this.within}${name}`;
    const t = this.times.get(name) ?? { ms: 0, calls: 0 };
    t.ms += ms;
    t.calls++;
    this.times.set(name, t);
  }
  /** `obj[key]` timed under `name` (sync, promise or async iterable results). */
  wrap(obj, key, name) {
    const fn = obj?.[key];
    if (typeof fn !== 'function') return;
    const add = (ms) => this.add(name, ms);
    obj[key] = function (...args) {
      const t0 = performance.now();
      const out = fn.apply(this, args);
      if (out && typeof out.then === 'function') return out.finally(() => add(performance.now() - t0));
      if (out && typeof out[Symbol.asyncIterator] === 'function' && typeof out.next === 'function') {
        const next = out.next.bind(out);
        out.next = (...a) => {
          const t1 = performance.now();
          return next(...a).finally(() => add(performance.now() - t1));
        };
        return out;
      }
      add(performance.now() - t0);
      return out;
    };
    return () => (obj[key] = fn);
  }
}

/** The modules of a build, and the steps of its builder wrapped (undone by the returned function). */
function instrument(dist, steps) {
  const mod = (p) => require(path.join(dist, p));
  const undo = [];
  const w = (obj, key, name) => {
    const u = steps.wrap(obj, key, name);
    if (u) undo.push(u);
  };
  const hour = mod('rollups/hour-pipeline');
  w(hour, 'readHourRow', 'hours: readHourRow');
  w(hour, 'addHourRow', 'hours: addHourRow');
  w(mod('rollups/page-writer'), 'writePages', 'encode pages (writePages)');
  const store = mod('rollups/cell-store').CellStore.prototype;
  w(store, 'writePages', 'write pages + manifest parts');
  w(store, 'finishGeneration', 'write manifest head');
  w(store, 'pagesByOwner', 'read child pages (per owner)');
  const child = mod('rollups/child-pages');
  w(child, 'mergeChildPages', 'merge child pages');
  w(child, 'currentChildren', 'children marks read');
  // builds whose 4-hour units and days absorb the hours' tables (their encode counts under 1h:)
  const table = mod('rollups/cell-table').FamilyTable.prototype;
  if (typeof table.absorb === 'function') w(table, 'absorb', "4h and days: the hours' tables absorbed");
  const commit = mod('rollups/unit-commit').UnitCommit.prototype;
  for (const k of ['reserve', 'publish', 'abandon', 'sweep', 'sweepOrphans']) w(commit, k, `commit: ${k}`);
  const builders = mod('rollups/unit-builders').UnitBuilders.prototype;
  w(builders, 'buildHours', 'level 1h: buildHours (all of it)');
  w(builders, 'buildMerged', 'levels >= 4h: buildMerged (all of it)');
  for (const [key, label] of [
    ['buildHours', '1h: '],
    ['buildMerged', '>= 4h: '],
  ]) {
    const fn = builders[key];
    builders[key] = function (...args) {
      steps.within = label;
      return fn.apply(this, args).finally(() => (steps.within = ''));
    };
    undo.push(() => (builders[key] = fn));
  }
  if (typeof hour.hourEventRead === 'function') {
    const read = hour.hourEventRead;
    hour.hourEventRead = (...args) => {
      const r = read(...args);
      w(r, 'rowOf', 'rowOf (the $group in Node)');
      return r;
    };
    undo.push(() => (hour.hourEventRead = read));
  }
  return () => undo.reverse().forEach((u) => u());
}

async function dissectDay(db, dist) {
  const mod = (p) => require(path.join(dist, p));
  const { buildHourPipeline, readHourRow, addHourRow } = mod('rollups/hour-pipeline');
  const { bucketName } = mod('storage/bucket-naming');
  const { FAMILIES } = mod('rollups/families');
  const { FamilyTable } = mod('rollups/cell-table');
  const { writePages } = mod('rollups/page-writer');
  const { unitId } = mod('rollups/rollup-units');
  const dayStart = SETTINGS.firstDay + Math.floor(SETTINGS.days / 2) * 86_400_000;
  const from = new Date(dayStart);
  const to = new Date(dayStart + 86_400_000);
  const bucket = db.collection(bucketName('events', from));
  const [match, group, sort] = buildHourPipeline(from, to);
  const timed = async (label, work) => {
    const t0 = performance.now();
    const out = await work();
    const ms = performance.now() - t0;
    say(`day ${from.toISOString().slice(0, 10)}: ${label}: ${ms.toFixed(0)} ms`);
    return { ms, out };
  };
  const events = await bucket.estimatedDocumentCount();
  await timed(`scan ($match + $count) of ${events} events`, () => bucket.aggregate([match, { $count: 'n' }]).toArray());
  await timed('$match + $group + $count (no rows sent)', () =>
    bucket.aggregate([match, group, { $count: 'n' }], { allowDiskUse: true }).toArray(),
  );
  const { out: rows } = await timed('hour pipeline, rows fetched and parsed', () =>
    bucket.aggregate([match, group, sort], { allowDiskUse: true }).toArray(),
  );
  say(`  ${rows.length} rows (${(rows.length / events).toFixed(2)} per event)`);
  const tables = new Map();
  const { out: parsed } = await timed('readHourRow of every row', async () => rows.map(readHourRow));
  await timed('addHourRow into family tables (per owner and hour)', async () => {
    for (const row of parsed) {
      const key = `${row.owner} ${row.hour}`;
      let t = tables.get(key);
      if (!t) tables.set(key, (t = new Map(FAMILIES.map((f) => [f.id, new FamilyTable(f, 100_000)]))));
      addHourRow(t, row);
    }
  });
  await timed(`encode the pages of ${tables.size} owner-hours`, async () => {
    let pages = 0;
    for (const [key, byFamily] of tables) {
      const [owner, hour] = key.split(' ');
      const g = `${unitId({ level: 0, start: dayStart + Number(hour) * 3_600_000 })}@bench`;
      for (const table of byFamily.values())
        if (table.size > 0) pages += writePages(g, owner, table.family, table.sorted()).length;
    }
    return pages;
  });
  await timed('raw events fetched with find (no projection)', () => bucket.find(match.$match).toArray());
  const { hourEventRead } = mod('rollups/hour-pipeline');
  if (hourEventRead) {
    const read = hourEventRead(from, to);
    const { out: events } = await timed("this build's read: find, projected, sorted by owner", () =>
      bucket.find(read.filter, read.options).toArray(),
    );
    await timed(`rowOf + readHourRow of ${events.length} events`, async () =>
      events.map((e) => readHourRow(read.rowOf(e))),
    );
  }
}

/** The marks as loaded: each catch-up starts from them, with no cells. */
async function resetRollups(db, marksSnapshot) {
  for (const name of ['rollup_cells', 'rollup_cells_manifests', 'rollup_marks'])
    await db
      .collection(name)
      .drop()
      .catch(() => undefined);
  await db.collection('rollup_marks').insertMany(marksSnapshot.map((m) => ({ ...m })));
}

/**
 * A digest of the pages of every current unit, each by unit, owner, family and page number
 * without its generation id (random per build): two builds of the same data agree byte for byte.
 * One scan of the cells (the stand-in has no index on the generation).
 */
async function pagesDigest(db) {
  const { BSON } = require(path.join(root, 'services/events/node_modules/mongodb'));
  const current = new Set(
    (
      await db
        .collection('rollup_marks')
        .find({ b: { $exists: true } }, { projection: { b: 1 } })
        .toArray()
    ).map((m) => m.b.g),
  );
  const lines = [];
  for await (const { _id, g, ...page } of db.collection('rollup_cells').find({})) {
    if (!current.has(g)) continue;
    const bytes = createHash('sha256').update(BSON.serialize(page)).digest('hex');
    lines.push(`${g.split('@')[0]} ${page.o} ${page.f} ${page.p} ${bytes}`);
  }
  lines.sort();
  return { pages: lines.length, digest: createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16) };
}

async function catchUpWith(db, dist, standInPid, { steps, threads = 1, mongoUrl }) {
  const mod = (p) => require(path.join(dist, p));
  const { RollupMarks } = mod('rollups/rollup-marks');
  const { CellStore } = mod('rollups/cell-store');
  const marks = new RollupMarks(db);
  await marks.init();
  const undo = steps ? instrument(dist, steps) : () => undefined;
  const builder = catchUpBuilder(mod, db, marks, new CellStore(db), { threads, mongoUrl });
  const cpu0 = cpuOf(standInPid);
  const node0 = process.cpuUsage();
  const started = performance.now();
  let passes = 0;
  let failed = 0;
  const work = async () => {
    for (let pass = 1; pass <= 20; pass++) {
      passes = pass;
      const result = await builder.runOnce();
      failed += result.failed.length;
      for (const f of result.failed) say(`  unit ${f.unit} failed: ${f.error}`);
      if (result.built.every((n) => n === 0)) break;
    }
  };
  try {
    if (process.env.BENCH_CPU_PROF)
      await profiled(work, path.join(process.env.BENCH_CPU_PROF, `catch-up-${Date.now()}.cpuprofile`));
    else await work();
  } finally {
    undo();
  }
  const ms = performance.now() - started;
  // the process's CPU: every thread's
  const nodeCpu = process.cpuUsage(node0);
  await builder.close?.();
  return {
    ms,
    passes,
    failed,
    dirty: await marks.collection.countDocuments({ dirty: true }),
    standInCpu: cpuOf(standInPid) - cpu0,
    nodeCpu: (nodeCpu.user + nodeCpu.system) / 1e6,
  };
}

function printSteps(label, r, steps) {
  console.log(
    `\n${label}: catch-up ${s(r.ms)} s in ${r.passes} passes (${r.failed} failed, ${r.dirty} dirty left); CPU s: Node ${r.nodeCpu.toFixed(1)}, stand-in ${r.standInCpu.toFixed(1)}\n`,
  );
  console.log('| step (nested steps are inside their parent) | wall s | calls | share of catch-up |');
  console.log('| --- | --- | --- | --- |');
  for (const [name, t] of [...steps.times].sort((a, b) => b[1].ms - a[1].ms))
    console.log(`| ${name} | ${s(t.ms)} | ${t.calls} | ${((100 * t.ms) / r.ms).toFixed(0)} % |`);
}

async function main() {
  process.env.BENCH_HEAP ??= '8g';
  const gcLog = `/tmp/bench-catch-up-gc-${process.pid}.log`;
  const server = process.env.MONGO_URL ? undefined : await startBenchStandIn(gcLog);
  const url = process.env.MONGO_URL ?? server.url;
  const handle = await platform.connectMongo(url, `bench_catch_up_${randomBytes(4).toString('hex')}`);
  const pid = server?.process.pid;
  try {
    const { marks } = await loadEvents(handle.db, SIZE, SETTINGS, { logger, say });
    const snapshot = await marks.collection.find({}).toArray();
    say(
      `${snapshot.length} marks, ${snapshot.filter((m) => m.dirty).length} dirty; load average ${(
        await import('node:os')
      )
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    if (process.env.BENCH_PARTS !== '0' && process.env.BENCH_DISSECT !== '0')
      for (const dist of BUILDS) await dissectDay(handle.db, dist);
    const plain = BUILDS.map(() => []);
    const digests = [];
    if (BUILDS.length > 1 || process.env.BENCH_PLAIN === '1')
      for (let round = 0; round < ROUNDS; round++)
        for (const [i, dist] of (round % 2 ? [...BUILDS].reverse() : BUILDS).map((d) => [BUILDS.indexOf(d), d])) {
          await resetRollups(handle.db, snapshot);
          const r = await catchUpWith(handle.db, dist, pid, {});
          if (process.env.BENCH_PAGES_DIGEST === '1' && round === 0) {
            const { pages, digest } = await pagesDigest(handle.db);
            say(`${dist}: ${pages} pages of current units, digest ${digest}`);
            digests.push(digest);
          }
          say(
            `${dist}: catch-up ${s(r.ms)} s (${r.passes} passes, ${r.failed} failed, ${r.dirty} dirty left; Node ${r.nodeCpu.toFixed(0)} CPU s, stand-in ${r.standInCpu.toFixed(0)})`,
          );
          plain[i].push(r);
        }
    const threads = Number(process.env.BENCH_THREADS ?? 1);
    if (threads > 1) {
      const rows = { 1: [], [threads]: [] };
      for (let round = 0; round < ROUNDS; round++)
        for (const k of round % 2 ? [threads, 1] : [1, threads]) {
          await resetRollups(handle.db, snapshot);
          const r = await catchUpWith(handle.db, THIS, pid, { threads: k, mongoUrl: url });
          const digest = process.env.BENCH_PAGES_DIGEST === '1' ? await pagesDigest(handle.db) : undefined;
          say(
            `${k} thread(s): catch-up ${s(r.ms)} s (${r.passes} passes, ${r.failed} failed, ${r.dirty} dirty left; Node ${r.nodeCpu.toFixed(0)} CPU s, stand-in ${r.standInCpu.toFixed(0)})${digest ? `; ${digest.pages} pages, digest ${digest.digest}` : ''}`,
          );
          rows[k].push({ ...r, digest: digest?.digest });
        }
      console.log(
        `\n${SIZE.toLocaleString('en')} events: catch-up, one builder against ${threads} rollup threads, same data, alternating (s; Node / stand-in CPU s)\n`,
      );
      console.log(`| builder | ${rows[1].map((_, i) => `round ${i + 1}`).join(' | ')} |`);
      console.log(`| --- | ${rows[1].map(() => '---').join(' | ')} |`);
      for (const k of [1, threads])
        console.log(
          `| ${k === 1 ? 'one builder' : `${k} threads`} | ${rows[k].map((r) => `${s(r.ms)} (${r.nodeCpu.toFixed(0)} / ${r.standInCpu.toFixed(0)})`).join(' | ')} |`,
        );
      const all = [...rows[1], ...rows[threads]].map((r) => r.digest).filter(Boolean);
      if (all.length > 0)
        console.log(
          `\npages the same byte for byte in every catch-up: ${all.every((d) => d === all[0]) ? 'yes' : 'NO'}`,
        );
    }
    if (process.env.BENCH_PARTS !== '0')
      for (const dist of BUILDS) {
        await resetRollups(handle.db, snapshot);
        const steps = new Steps();
        const r = await catchUpWith(handle.db, dist, pid, { steps });
        printSteps(`${SIZE.toLocaleString('en')} events, ${dist} (steps timed)`, r, steps);
      }
    if (digests.length > 1)
      console.log(
        `\npages of every build the same, byte for byte: ${digests.every((d) => d === digests[0]) ? 'yes' : 'NO'}`,
      );
    if (plain[0].length > 0) {
      console.log(
        `\n${SIZE.toLocaleString('en')} events: catch-up, same data, alternating (s; Node / stand-in CPU s)\n`,
      );
      console.log(`| build | ${plain[0].map((_, i) => `round ${i + 1}`).join(' | ')} |`);
      console.log(`| --- | ${plain[0].map(() => '---').join(' | ')} |`);
      BUILDS.forEach((dist, i) =>
        console.log(
          `| ${dist} | ${plain[i].map((r) => `${s(r.ms)} (${r.nodeCpu.toFixed(0)} / ${r.standInCpu.toFixed(0)})`).join(' | ')} |`,
        ),
      );
    }
  } finally {
    await handle.db.dropDatabase().catch(() => undefined);
    await handle.close?.();
    await server?.stop();
  }
}

await main();
