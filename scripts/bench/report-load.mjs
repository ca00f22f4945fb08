// Loading `bench:report`'s events the way production writes them, and building their rollups
// until caught up: shared by bench:report and bench:peer so both measure the same stored data.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OWNERS, eventBatches } from './report-data.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const dist = (p) => require(path.join(root, 'services/events/dist', p));
const testkit = require(path.join(root, 'packages/testkit/dist'));
const { BSON } = require(require.resolve('mongodb', { paths: [path.join(root, 'services/events')] }));
const { BucketWriter } = dist('consumer/bucket-writer');
const { RollupMarks } = dist('rollups/rollup-marks');
const { HeldMarks } = dist('rollups/held-marks');
const { bucketName } = dist('storage/bucket-naming');
const { CellStore } = dist('rollups/cell-store');
const { parseUnitId, unitEnd, unitId } = dist('rollups/rollup-units');
/**
 * BENCH_ROLLUP_ZONES: the ROLLUP_ZONES the bench's writes mark and its reporting process reads
 * (comma list; default America/New_York, whose day series the scenarios ask; empty: none).
 */
export const BENCH_ZONES = (process.env.BENCH_ROLLUP_ZONES ?? 'America/New_York').split(',').filter(Boolean);

/**
 * Writes `size` events (report-data.mjs, `settings` from reportBenchSettings) into `db` through
 * the consumer's BucketWriter with held rollup write marks, in time order, `settings.writers`
 * batches in flight. `onBatch(docs)`, when given, sees every batch first (and may return a
 * promise to slow the load down to its pace); `tallies` (report-tallies.mjs), when given, sees
 * every event of OWNERS[0] that is not a bot; `stats` counts what the URL noise did
 * (report-web.mjs). Returns what the checks need: the expected counts per name of OWNERS[0]
 * (non-bot), its distinct visitors per name and its views' engaged times, the seconds the writes
 * took, and the marks for catchUp.
 */
export async function loadEvents(db, size, settings, { logger, say, onBatch, tallies, stats }) {
  const marks = new RollupMarks(db, undefined, BENCH_ZONES);
  await marks.init();
  // the consumer's marks: held open per unit while writes keep coming (services/events/src/rollups/held-marks.ts)
  const held = new HeldMarks(marks, { holdMs: 10_000, lingerMs: 1000, zones: BENCH_ZONES });
  const writer = new BucketWriter(db, logger, { w: 'majority', journal: true }, held);
  const expected = new Map();
  // the true distinct visitors per name of the reported owner (non-bot), to check the uniques answer
  const visitors = new Map();
  // the engaged times of its views, to check sums and percentiles
  const engaged = [];
  const started = Date.now();
  let loaded = 0;
  let next = 500_000;
  const inFlight = new Set();
  const { days, firstDay, urls, batch, urlNoise: noise } = settings;
  for (const docs of eventBatches({ total: size, days, firstDay, urls, batch, noise, stats }, expected)) {
    if (onBatch) await onBatch(docs);
    const bucket = bucketName('events', docs[0].created);
    const p = writer.write(bucket, docs).then((results) => {
      if (results.some((r) => r.status !== 'written'))
        throw new Error(`write to ${bucket}: ${JSON.stringify(results.find((r) => r.status !== 'written'))}`);
      inFlight.delete(p);
    });
    inFlight.add(p);
    for (const d of docs) {
      if (d.owner_id !== OWNERS[0] || d.bot) continue;
      tallies?.add(d);
      let set = visitors.get(d.name);
      if (!set) visitors.set(d.name, (set = new Set()));
      set.add(d.visitor);
      if (d.measures?.engaged_ms !== undefined) engaged.push(d.measures.engaged_ms);
    }
    if (inFlight.size >= settings.writers) await Promise.race(inFlight);
    loaded += docs.length;
    if (loaded >= next) {
      next += 500_000;
      say(
        `${size.toLocaleString('en')}: written ${loaded.toLocaleString('en')} (${((Date.now() - started) / 1000).toFixed(0)} s)`,
      );
    }
  }
  await Promise.all(inFlight);
  await held.drain();
  const seconds = (Date.now() - started) / 1000;
  say(`${size.toLocaleString('en')}: written in ${seconds.toFixed(0)} s (${(size / seconds).toFixed(0)} events/s)`);
  return { expected, visitors, engaged, seconds, marks };
}

/** The rollup unit levels by their number in a page's generation id (catchUp's `byLevel`). */
export const UNIT_LEVELS = ['1h', '2h', '4h', '8h', '1d', '2d', '4d', '8d', '16d', '32d', 'zone-day'];

/**
 * Runs builder passes until one builds nothing (units still open at the newest end stay dirty).
 * Returns the seconds it took, the cell pages, the bytes of their binary columns by column, by
 * family, by family and column (`"a u"`), by unit level, by level, family and column
 * (`"1d p u"`), and of the whole pages as BSON (`cellBytes`). BENCH_ROLLUP_THREADS=<n> (with
 * `mongoUrl`): the builder of ROLLUP_THREADS=<n>, n threads each building its share of the units;
 * their pages are written in the threads, so no bytes are tallied (`threads` says so).
 */
export async function catchUp(db, marks, { say, mongoUrl }) {
  const threads = Number(process.env.BENCH_ROLLUP_THREADS ?? 1);
  const cells = new CellStore(db);
  // what the pages hold, tallied as the builder writes them (each unit is built once here; reading
  // every page back would make the stand-in hold them all at once): bytes by column (k keys, n
  // counts, l latest events, u/ud visitor sketches folded/per device, s sums, q/qd quantile
  // sketches), by family (t totals, p pages, g countries, a attribution) and by unit level
  const bytes = {};
  const byFamily = {};
  // `${family} ${column}`: which column of which family grows
  const byFamilyColumn = {};
  const byLevel = Array.from({ length: UNIT_LEVELS.length }, () => ({ docs: 0, bytes: 0 }));
  // `${level} ${family} ${column}` (level by name): what each level keeps of each family
  const byLevelFamilyColumn = {};
  let cellBytes = 0;
  const writePages = cells.writePages.bind(cells);
  cells.writePages = (g, parts, docs) => {
    const levelNumber = parseUnitId(g.slice(0, g.indexOf('@'))).level;
    const level = byLevel[levelNumber];
    for (const doc of docs) {
      level.docs++;
      for (const [field, value] of Object.entries(doc)) {
        if (!value || typeof value !== 'object' || !('position' in value)) continue;
        bytes[field] = (bytes[field] ?? 0) + value.position;
        byFamily[doc.f] = (byFamily[doc.f] ?? 0) + value.position;
        byFamilyColumn[`${doc.f} ${field}`] = (byFamilyColumn[`${doc.f} ${field}`] ?? 0) + value.position;
        const cell = `${UNIT_LEVELS[levelNumber]} ${doc.f} ${field}`;
        byLevelFamilyColumn[cell] = (byLevelFamilyColumn[cell] ?? 0) + value.position;
        level.bytes += value.position;
      }
      cellBytes += BSON.calculateObjectSize(doc);
    }
    return writePages(g, parts, docs);
  };
  if (threads > 1 && !mongoUrl) throw new Error('BENCH_ROLLUP_THREADS needs the caller to pass mongoUrl');
  const builder = catchUpBuilder(dist, db, marks, cells, { threads, mongoUrl });
  // the rollup process is deployed with --max-semi-space-size=64 (its threads take the flag too):
  // the bench scripts pass it, and the output says when a run was made without it
  const youngFlag = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(' ')].find((a) =>
    a.startsWith('--max-semi-space-size'),
  );
  say(`catch-up: ${threads} builder thread(s), young generation ${youngFlag ?? 'V8 default (NOT as deployed)'}`);
  const started = Date.now();
  for (let pass = 1; pass <= 20; pass++) {
    const result = await builder.runOnce();
    const dirty = await marks.collection.countDocuments({ dirty: true });
    say(
      `builder pass ${pass}: built ${JSON.stringify(result.built)} (by level), ${dirty} dirty left (${((Date.now() - started) / 1000).toFixed(0)} s)`,
    );
    // a unit that failed is answered from smaller units or raw events: say which and why, never silently
    for (const f of result.failed) say(`builder pass ${pass}: unit ${f.unit} failed: ${f.error}`);
    if (result.built.every((n) => n === 0)) break;
  }
  const seconds = (Date.now() - started) / 1000;
  await builder.close?.();
  if (threads > 1) say(`caught up with ${threads} rollup threads: no bytes tallied (the threads wrote the pages)`);
  // every unit left dirty, and why: the builder builds a unit once it has ended (a block reaching
  // past now waits, and reports read its span from smaller units); anything else is a defect
  for (const m of await marks.dirtyUnits()) {
    const unit = parseUnitId(m.id);
    const ended = unitEnd(unit) <= Date.now();
    say(
      `unit ${unitId(unit)} not built: ${ended ? 'UNEXPLAINED (it has ended)' : `it ends ${new Date(unitEnd(unit)).toISOString()}, after now (built once it has ended; reports read its span from smaller units)`}`,
    );
  }
  const cellDocs = await cells.collection.countDocuments({});
  say(
    `cells by level (pages / MB): ${byLevel
      .map((l, i) => [l, UNIT_LEVELS[i]])
      .filter(([l]) => l.docs > 0)
      .map(([l, name]) => `${name} ${l.docs}/${(l.bytes / 1e6).toFixed(1)}`)
      .join(', ')}`,
  );
  return { seconds, cellDocs, bytes, byFamily, byFamilyColumn, byLevel, byLevelFamilyColumn, cellBytes, threads };
}

/** The options of every bench catch-up's builder (no grace: every ended unit is built at once). */
const CATCH_UP_OPTIONS = {
  prefix: 'events',
  graceMs: 0,
  abandonMs: 600_000,
  batchUnits: 100_000,
  rawRetentionDays: 400,
};

/**
 * The builder of a bench catch-up from a build's modules (`load(path)` requires from its dist):
 * one RollupBuilder, or `threads` rollup threads as ROLLUP_THREADS runs them (on their own
 * connections to `mongoUrl`).
 */
export function catchUpBuilder(load, db, marks, cells, { threads = 1, mongoUrl } = {}) {
  if (threads <= 1) return new (load('rollups/rollup-builder').RollupBuilder)(db, marks, cells, CATCH_UP_OPTIONS);
  const data = {
    mongoUrl,
    mongoDb: db.databaseName,
    logLevel: 'error',
    builder: CATCH_UP_OPTIONS,
    brokenRawRetentionDays: 400,
  };
  return new (load('rollups/rollup-threads').RollupThreads)({ count: threads, data });
}

/** The BSON size of a raw event document as the bucket stores it (before any storage engine compression). */
export const rawEventBytes = (doc) => BSON.calculateObjectSize(doc);

/**
 * A MongoDB stand-in for a bench (BENCH_HEAP, 18g: at 5M events its live data reaches 13.4 GB, and
 * past 90 % of the heap its store-full guard forces full collections; BENCH_STAND_IN_GC: further JVM options) with its
 * garbage collector's pauses logged to `gcLog`: a pause past the driver's heartbeat timeout (5 s)
 * fails every operation in flight, so the benches report the longest ones (gcPauses).
 */
export function startBenchStandIn(gcLog) {
  return testkit.startMongoStandIn({
    heap: process.env.BENCH_HEAP ?? '18g',
    jvmOptions: [...(process.env.BENCH_STAND_IN_GC ?? '').split(' ').filter(Boolean), `-Xlog:gc:file=${gcLog}`],
  });
}

/** The stand-in's GC pauses from its log: how many, the longest, and how many passed 1 s. */
export function gcPauses(file) {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return 'stand-in GC log not found';
  }
  const pauses = [...text.matchAll(/Pause[^\n]*?([\d.]+)ms$/gm)].map((m) => Number(m[1]));
  const longest = pauses.reduce((a, b) => Math.max(a, b), 0);
  return `stand-in GC (${process.env.BENCH_STAND_IN_GC || 'default collector'}): ${pauses.length} pauses, longest ${longest.toFixed(0)} ms, ${pauses.filter((p) => p > 1000).length} over 1 s (${file})`;
}
