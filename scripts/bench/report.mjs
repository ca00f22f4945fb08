#!/usr/bin/env node
// `pnpm bench:report`: report latency after rollups caught up, at BENCH_SIZES events (default
// 1,000,000 and 5,000,000) over BENCH_DAYS (30) UTC days, in one run so the ratios are same-run.
// For each size, in a fresh database: the events (report-data.mjs: Zipf URLs, 5 owners, ...) are
// written through the consumer's BucketWriter with rollup write marks, in time order, in batches of
// BENCH_BATCH (500, the consumer's batch), as production writes them; the rollup builder then runs
// until nothing is dirty (timed: "catch-up"); the built reporting feature (services/events/dist) is
// served on loopback and POST /api/v1/events/ is timed over HTTP: BENCH_RUNS (20) runs per
// scenario after a warm-up, scenarios alternating run by run. Data store: MONGO_URL when set, else
// a fresh MongoDB stand-in with a BENCH_HEAP (16g) heap, stopped at the end. The database is
// dropped after each size. Progress goes to stderr, the ready-to-paste tables to stdout.
// BENCH_COMPARE_DIST=<another checkout's services/events/dist> serves that build's reporting
// feature on the same data too, run by run alternating with this one, and prints both side by side
// (the before/after of a change to the read side, in one run).
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OWNERS, eventBatches } from './report-data.mjs';
import { postJson as post, reportingBuild, startReportingApp } from './reporting-app.mjs';
import { profiled } from './cpu-profile.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const dist = (p) => require(path.join(root, 'services/events/dist', p));
const testkit = require(path.join(root, 'packages/testkit/dist'));
const platform = require(path.join(root, 'packages/platform/dist'));
const { BucketWriter } = dist('consumer/bucket-writer');
const { RollupMarks } = dist('rollups/rollup-marks');
const { HeldMarks } = dist('rollups/held-marks');
const { bucketName } = dist('storage/bucket-naming');
const { CellStore } = dist('rollups/cell-store');
const { RollupBuilder } = dist('rollups/rollup-builder');

const SIZES = (process.env.BENCH_SIZES ?? process.env.BENCH_EVENTS ?? '1000000,5000000').split(',').map(Number);
const DAYS = Number(process.env.BENCH_DAYS ?? 30);
const URLS = Number(process.env.BENCH_URLS ?? 2000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const BATCH = Number(process.env.BENCH_BATCH ?? 500);
const WRITERS = Number(process.env.BENCH_WRITERS ?? 2);
const COMPARE = process.env.BENCH_COMPARE_DIST ? reportingBuild(process.env.BENCH_COMPARE_DIST) : undefined;
const DAY_MS = 86_400_000;
// recent days (the builder never rebuilds days past raw retention): the 30 days ending 3 days ago
const FIRST_DAY = Math.floor(Date.now() / DAY_MS) * DAY_MS - (DAYS + 3) * DAY_MS;
const ADMIN_TOKEN = `bench-${randomBytes(32).toString('hex')}`;
const say = (msg) => console.error(`[bench] ${msg}`);
const day = (n) => new Date(FIRST_DAY + n * DAY_MS).toISOString().slice(0, 10);
const logger = platform.createLogger({ service: 'bench-report', level: 'error' });

async function load(db, size) {
  const marks = new RollupMarks(db);
  await marks.init();
  // the consumer's marks: held open per unit while writes keep coming (services/events/src/rollups/held-marks.ts)
  const held = new HeldMarks(marks, { holdMs: 10_000, lingerMs: 1000 });
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
  for (const docs of eventBatches(
    { total: size, days: DAYS, firstDay: FIRST_DAY, urls: URLS, batch: BATCH },
    expected,
  )) {
    const bucket = bucketName('events', docs[0].created);
    const p = writer.write(bucket, docs).then((results) => {
      if (results.some((r) => r.status !== 'written'))
        throw new Error(`write to ${bucket}: ${JSON.stringify(results.find((r) => r.status !== 'written'))}`);
      inFlight.delete(p);
    });
    inFlight.add(p);
    for (const d of docs) {
      if (d.owner_id !== OWNERS[0] || d.bot) continue;
      let set = visitors.get(d.name);
      if (!set) visitors.set(d.name, (set = new Set()));
      set.add(d.visitor);
      if (d.measures?.engaged_ms !== undefined) engaged.push(d.measures.engaged_ms);
    }
    if (inFlight.size >= WRITERS) await Promise.race(inFlight);
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

/** Runs builder passes until one builds nothing (units still open at the newest end stay dirty); returns the seconds it took. */
async function catchUp(db, marks) {
  const cells = new CellStore(db);
  // what the cells hold, tallied as the builder writes them (each unit is built once here; reading
  // every page back would make the stand-in hold them all at once): bytes by column (k keys, n
  // counts, l latest events, u/ud visitor sketches folded/per device, s sums, q/qd quantile
  // sketches), by family (t totals, p pages, g countries, a attribution) and by unit level
  const bytes = {};
  const byFamily = {};
  const byLevel = Array.from({ length: 10 }, () => ({ docs: 0, bytes: 0 }));
  const writePages = cells.writePages.bind(cells);
  cells.writePages = (g, parts, docs) => {
    const level = byLevel[Number(g.slice(0, g.indexOf(':')))];
    for (const doc of docs) {
      level.docs++;
      for (const [field, value] of Object.entries(doc)) {
        if (!value || typeof value !== 'object' || !('position' in value)) continue;
        const n = value.position;
        bytes[field] = (bytes[field] ?? 0) + n;
        byFamily[doc.f] = (byFamily[doc.f] ?? 0) + n;
        level.bytes += n;
      }
    }
    return writePages(g, parts, docs);
  };
  const builder = new RollupBuilder(db, marks, cells, {
    prefix: 'events',
    graceMs: 0,
    abandonMs: 600_000,
    batchUnits: 100_000,
    rawRetentionDays: 400,
  });
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
  const cellDocs = await cells.collection.countDocuments({});
  say(
    `cells by level (pages / MB): ${byLevel.map((l, i) => `${['1h', '2h', '4h', '8h', '1d', '2d', '4d', '8d', '16d', '32d'][i]} ${l.docs}/${(l.bytes / 1e6).toFixed(1)}`).join(', ')}`,
  );
  return { seconds, cellDocs, bytes, byFamily, byLevel };
}

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];

function scenarios() {
  const oneDay = { created__gte: `${day(14)} 00:00:00`, created__lte: `${day(14)} 23:59:59` };
  const month = { created__gte: `${day(0)} 00:00:00`, created__lte: `${day(DAYS - 1)} 23:59:59` };
  const nySeries = { created__gte: day(1), created__lte: day(DAYS - 1), interval: 'day', timezone: 'America/New_York' };
  return [
    { name: '1 day, by name', body: oneDay },
    { name: '1 day, group_by content_id,url', body: { ...oneDay, group_by: 'content_id,url' } },
    { name: `${DAYS} days, by name`, body: month, target: '<= 50 ms at 5M', key: 'name' },
    {
      name: `${DAYS} days, group_by content_id,url`,
      body: { ...month, group_by: 'content_id,url' },
      target: '<= 200 ms at 5M',
      key: 'grouped',
    },
    { name: `${DAYS} days, metadata campaign,variant`, body: { ...month, metadata: 'campaign,variant' } },
    {
      name: `${DAYS} days, group_by url + metadata`,
      body: { ...month, group_by: 'url', metadata: 'campaign,variant' },
    },
    { name: `${DAYS} days, group_by url, top 10 by value`, body: { ...month, group_by: 'url', limit: 10 } },
    {
      name: `${DAYS} days, interval day, America/New_York`,
      body: nySeries,
      target: '<= 100 ms at 5M',
      key: 'series',
    },
    {
      name: `${DAYS} days, uniques by name`,
      body: { ...month, metrics: 'count,uniques' },
      target: '<= 50 ms at 5M',
      key: 'uniques-name',
    },
    {
      name: `${DAYS} days, uniques, group_by url`,
      body: { ...month, metrics: 'count,uniques', group_by: 'url' },
      target: '<= 300 ms at 5M',
      key: 'uniques-url',
    },
    {
      name: `${DAYS} days, uniques, interval day, America/New_York`,
      body: { ...nySeries, metrics: 'count,uniques' },
      target: '<= 100 ms at 5M',
      key: 'uniques-series',
    },
    {
      name: `${DAYS} days, p90 engaged time, group_by content_id`,
      body: { ...month, name: 'view', group_by: 'content_id', metrics: 'count,engaged_ms_p90' },
      target: '<= 100 ms at 5M',
      key: 'p90-content',
    },
    {
      name: `${DAYS} days, engaged time avg, p50, share >= 10 s, by name`,
      body: { ...month, name: 'view', metrics: 'count,engaged_ms_avg,engaged_ms_p50,engaged_ms_gte_10000' },
      key: 'attention-name',
    },
    {
      name: `${DAYS} days, click-through rate, interval day, America/New_York`,
      body: {
        ...nySeries,
        name: ['impression', 'click'],
        metrics: 'count,conversion_rate',
        conversion: { from: 'impression', to: 'click' },
      },
      key: 'ctr-series',
    },
  ];
}

async function measure(size, mongoUrl) {
  const handle = await platform.connectMongo(mongoUrl, `bench_reports_${randomBytes(4).toString('hex')}`);
  let app;
  let other;
  try {
    const { expected, visitors, engaged, seconds: loadSeconds, marks } = await load(handle.db, size);
    const { seconds: catchUpSeconds, cellDocs, bytes, byFamily } = await catchUp(handle.db, marks);
    app = await startReportingApp({ db: handle.db, mongoUrl, adminToken: ADMIN_TOKEN, logger, name: 'bench-report' });
    const key = await post(
      `${app.base}/admin/v1/api-keys`,
      { owner_ids: [OWNERS[0]] },
      { authorization: `Bearer ${ADMIN_TOKEN}` },
    );
    const report = (body, base = app.base) =>
      post(`${base}/api/v1/events/?api_key=${key.api_key}`, { owner_id: OWNERS[0], ...body });
    // the other build reads the same cells and the same api key collection
    if (COMPARE)
      other = await startReportingApp({
        db: handle.db,
        mongoUrl,
        adminToken: ADMIN_TOKEN,
        logger,
        name: 'bench-report-compared',
        build: COMPARE,
      });
    const list = scenarios();

    // correctness first: the month report of OWNERS[0] counts exactly its non-bot events
    const totals = await report(list[2].body);
    const got = new Map(totals.map((row) => [row.name, row.value]));
    const exact = [...expected].every(([name, n]) => got.get(name) === n) && got.size === expected.size;
    say(`${DAYS}-day totals ${exact ? 'match' : 'DO NOT match'} the loaded events: ${JSON.stringify(totals)}`);
    if (!exact) throw new Error(`expected ${JSON.stringify([...expected])}`);

    // the uniques answer against the true distinct visitors: exact, or within the sketch's error
    const uniques = await report(list.find((s) => s.key === 'uniques-name').body);
    const errors = uniques.map((row) => {
      const truth = visitors.get(row.name)?.size ?? 0;
      return {
        name: row.name,
        uniques: row.uniques,
        truth,
        exact: row.uniques_exact,
        error: (row.uniques - truth) / truth,
      };
    });
    say(`${DAYS}-day uniques by name against the true distinct visitors: ${JSON.stringify(errors)}`);
    if (errors.some((e) => (e.exact ? e.error !== 0 : Math.abs(e.error) > 0.03)))
      throw new Error('uniques outside the stated error');

    // engaged time: the sum exact, p90 within the quantile sketch's 1 % of the exact rank value
    const [attention] = await report({ ...list[2].body, name: 'view', metrics: 'engaged_ms_sum,engaged_ms_p90' });
    const sorted = engaged.sort((a, b) => a - b);
    const p90 = [sorted[Math.floor(0.9 * (sorted.length - 1))], sorted[Math.ceil(0.9 * (sorted.length - 1))]];
    const sum = sorted.reduce((a, b) => a + b, 0);
    say(
      `${DAYS}-day engaged time of views: sum ${attention.engaged_ms_sum} (true ${sum}), p90 ${attention.engaged_ms_p90} (exact ${p90.join('..')})`,
    );
    if (
      attention.engaged_ms_sum !== sum ||
      attention.engaged_ms_p90 < p90[0] * 0.99 ||
      attention.engaged_ms_p90 > p90[1] * 1.01
    )
      throw new Error('engaged time outside the stated error');

    for (const s of list) s.rows = (await report(s.body)).length;
    if (other) {
      // a build from before a metric existed answers 400: such scenarios run on this build only
      for (const s of list) {
        const theirs = await report(s.body, other.base).catch(() => undefined);
        s.compared = theirs !== undefined;
        if (s.compared && JSON.stringify(theirs) !== JSON.stringify(await report(s.body)))
          throw new Error(`${s.name}: the compared build answers differently`);
      }
    }
    const times = list.map(() => []);
    const compared = list.map(() => []);
    const timed = async (into, body, base) => {
      const t0 = process.hrtime.bigint();
      await report(body, base);
      into.push(Number(process.hrtime.bigint() - t0) / 1e6);
    };
    for (let run = 0; run < RUNS; run++) {
      for (const [i, s] of list.entries()) {
        // A B, then B A on the next run, so neither build always goes first
        const both = other && s.compared;
        if (both && run % 2 === 1) await timed(compared[i], s.body, other.base);
        await timed(times[i], s.body);
        if (both && run % 2 === 0) await timed(compared[i], s.body, other.base);
      }
    }
    // BENCH_PROFILE=<scenario key>: that scenario's runs once more under the CPU profiler
    const profileKey = process.env.BENCH_PROFILE;
    const profiledScenario = profileKey && list.find((s) => s.key === profileKey);
    if (profiledScenario) {
      const file = path.join(os.tmpdir(), `bench-report-${size}-${profileKey}.cpuprofile`);
      const summary = await profiled(async () => {
        for (let run = 0; run < RUNS; run++) await report(profiledScenario.body);
      }, file);
      say(`CPU profile of "${profiledScenario.name}" (${file}), self time:\n${summary}`);
    }
    const owned = [...expected.values()].reduce((a, b) => a + b, 0);
    return {
      size,
      owned,
      loadSeconds,
      catchUpSeconds,
      cellDocs,
      bytes,
      byFamily,
      errors,
      load: os.loadavg()[0],
      list,
      times,
      compared,
    };
  } finally {
    if (other) await platform.closeServer(other.server, 2000);
    if (app) await platform.closeServer(app.server, 2000);
    await handle.db.dropDatabase().catch(() => undefined);
    await handle.close();
  }
}

function print(results) {
  for (const r of results) {
    console.log(
      `\n${r.size.toLocaleString('en')} events over ${DAYS} days (${OWNERS.length} owners, ${URLS.toLocaleString('en')} Zipf URLs; the reported owner has ${r.owned.toLocaleString('en')} non-bot events): written in ${r.loadSeconds.toFixed(0)} s, rollups caught up in ${r.catchUpSeconds.toFixed(0)} s (${r.cellDocs.toLocaleString('en')} cell documents); load average ${r.load.toFixed(1)}; ${RUNS} sequential runs per scenario over HTTP\n`,
    );
    const perEvent = (b) => (b / r.size).toFixed(1);
    const total = Object.values(r.bytes).reduce((a, b) => a + b, 0);
    console.log(
      `Cell bytes: ${perEvent(total)} B/event in all; by column ${Object.entries(r.bytes)
        .map(([c, b]) => `${c} ${perEvent(b)}`)
        .join(', ')}; by family ${Object.entries(r.byFamily)
        .map(([f, b]) => `${f} ${perEvent(b)}`)
        .join(
          ', ',
        )} (B/event). Uniques by name against the true distinct visitors: ${r.errors.map((e) => `${e.name} ${e.uniques} vs ${e.truth} (${(e.error * 100).toFixed(2)} %${e.exact ? ', exact' : ''})`).join('; ')}\n`,
    );
    console.log('| scenario | rows | p50 ms | p99 ms | mean ms |');
    console.log('|---|---|---|---|---|');
    for (const [i, s] of r.list.entries()) {
      const xs = r.times[i];
      console.log(
        `| ${s.name} | ${s.rows} | ${fmt(quantile(xs, 0.5))} | ${fmt(quantile(xs, 0.99))} | ${fmt(xs.reduce((a, b) => a + b, 0) / xs.length)} |`,
      );
    }
  }
  if (COMPARE) {
    for (const r of results) {
      console.log(
        `\n${r.size.toLocaleString('en')} events, this build vs ${process.env.BENCH_COMPARE_DIST} (same data, alternating)\n`,
      );
      console.log('| scenario (p50 ms) | this build | compared build | this / compared |');
      console.log('|---|---|---|---|');
      for (const [i, s] of r.list.entries()) {
        if (r.compared[i].length === 0) continue; // a metric the compared build does not have
        const a = quantile(r.times[i], 0.5);
        const b = quantile(r.compared[i], 0.5);
        console.log(`| ${s.name} | ${fmt(a)} | ${fmt(b)} | ${(a / b).toFixed(2)} |`);
      }
    }
  }
}

function printRatios(results) {
  const [small, large] = [results[0], results[results.length - 1]];
  const label = (n) => `${n / 1e6}M`;
  console.log(`\n| scenario (p50 ms) | ${label(small.size)} | ${label(large.size)} | ratio | target |`);
  console.log('|---|---|---|---|---|');
  for (const [i, s] of small.list.entries()) {
    const a = quantile(small.times[i], 0.5);
    const b = quantile(large.times[i], 0.5);
    console.log(
      `| ${s.name} | ${fmt(a)} | ${fmt(b)} | ${(b / a).toFixed(2)} | ${s.target ? `${s.target}; ratio <= 1.3` : 'report'} |`,
    );
  }
  console.log(
    `| rollup catch-up after loading, s | ${small.catchUpSeconds.toFixed(0)} | ${large.catchUpSeconds.toFixed(0)} | ${(large.catchUpSeconds / small.catchUpSeconds).toFixed(2)} | report |`,
  );
}

async function main() {
  const ownStore = !process.env.MONGO_URL;
  // the stand-in's garbage collector pauses logged: a pause past the driver's heartbeat timeout
  // (5 s) fails every operation in flight, so the bench reports the longest ones
  const gcLog = path.join(os.tmpdir(), `bench-report-gc-${process.pid}.log`);
  const mongoServer = ownStore
    ? await testkit.startMongoStandIn({
        heap: process.env.BENCH_HEAP ?? '16g',
        jvmOptions: [...(process.env.BENCH_STAND_IN_GC ?? '').split(' ').filter(Boolean), `-Xlog:gc:file=${gcLog}`],
      })
    : undefined;
  const mongoUrl = process.env.MONGO_URL ?? mongoServer.url;
  say(
    `data store: ${ownStore ? `MongoDB stand-in at ${mongoUrl}` : 'MONGO_URL'}; sizes ${SIZES.join(', ')}; load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  try {
    const results = [];
    for (const size of SIZES) {
      results.push(await measure(size, mongoUrl));
      // each size's table as soon as it is measured: a failure at a larger size keeps the smaller
      print(results.slice(-1));
    }
    if (results.length > 1) printRatios(results);
  } finally {
    if (mongoServer) {
      await mongoServer.stop();
      say(gcPauses(gcLog));
    }
  }
}

/** The stand-in's GC pauses from its log: how many, the longest, and how many passed 1 s. */
function gcPauses(file) {
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

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
