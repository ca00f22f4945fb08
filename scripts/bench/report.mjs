#!/usr/bin/env node
// `pnpm bench:report`: report latency after rollups caught up, at BENCH_SIZES events (default
// 1,000,000 and 5,000,000) over BENCH_DAYS (30) UTC days, in one run so the ratios are same-run.
// For each size, in a fresh database: the events (report-data.mjs: Zipf URLs, 5 owners, ...; page
// URLs with campaign tags and click ids, referrers and countries as on the web, report-web.mjs,
// unless BENCH_URL_NOISE=0) are
// written through the consumer's BucketWriter with rollup write marks, in time order, in batches of
// BENCH_BATCH (500, the consumer's batch), as production writes them; the rollup builder then runs
// until nothing is dirty (timed: "catch-up"; BENCH_ROLLUP_THREADS=<n>: with n rollup threads, as
// ROLLUP_THREADS=<n> runs it, bytes then not tallied); the built reporting feature (services/events/dist) is
// served on loopback and POST /api/v1/events/ is timed over HTTP: BENCH_RUNS (20) runs per
// scenario after a warm-up, scenarios alternating run by run. Data store: MONGO_URL when set, else
// a fresh MongoDB stand-in with a BENCH_HEAP (18g) heap, stopped at the end. The database is
// dropped after each size. Progress goes to stderr, the ready-to-paste tables to stdout.
// Per scenario it prints the rollup pages a timed report took from the decoded-page cache and
// read from the store (BENCH_PAGE_CACHE_MB sets the cache's REPORT_PAGE_CACHE_MB; default 64).
// BENCH_COMPARE_DIST=<another checkout's services/events/dist> serves that build's reporting
// feature on the same data too, run by run alternating with this one, and prints both side by side
// (the before/after of a change to the read side, in one run; an odd BENCH_RUNS is rounded up so
// each build goes first equally often). The settings, the scenarios, the
// loading and the catch-up are shared with bench:peer (report-scenarios.mjs, report-load.mjs).
// The writes mark, and the reporting process reads, the days of BENCH_ROLLUP_ZONES (ROLLUP_ZONES;
// default America/New_York). BENCH_ZONES_BESIDE=1 (without BENCH_COMPARE_DIST) serves this build
// a second time with ROLLUP_ZONES empty, on the same cells, alternating as above: the reports with
// zone days beside the same reports planned over UTC units only.
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OWNERS } from './report-data.mjs';
import { BENCH_ZONES, catchUp, gcPauses, loadEvents, startBenchStandIn } from './report-load.mjs';
import { benchCampaign, fmt, quantile, reportBenchSettings, reportScenarios } from './report-scenarios.mjs';
import { ScenarioTallies } from './report-tallies.mjs';
import { campaignLookup, ownerReports, reportingBuild, startReportingApp } from './reporting-app.mjs';
import { profiled } from './cpu-profile.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const platform = require(path.join(root, 'packages/platform/dist'));

const SETTINGS = reportBenchSettings();
const { sizes: SIZES, days: DAYS, urls: URLS, runs: RUNS } = SETTINGS;
const COMPARE = process.env.BENCH_COMPARE_DIST ? reportingBuild(process.env.BENCH_COMPARE_DIST) : undefined;
const ZONES_BESIDE = !COMPARE && process.env.BENCH_ZONES_BESIDE === '1';
const COMPARED_LABEL = COMPARE ? process.env.BENCH_COMPARE_DIST : 'this build without zone days (ROLLUP_ZONES empty)';
const ADMIN_TOKEN = `bench-${randomBytes(32).toString('hex')}`;
const say = (msg) => console.error(`[bench] ${msg}`);
const logger = platform.createLogger({ service: 'bench-report', level: 'error' });

async function measure(size, mongoUrl) {
  const handle = await platform.connectMongo(mongoUrl, `bench_reports_${randomBytes(4).toString('hex')}`);
  let app;
  let other;
  try {
    const list = reportScenarios(SETTINGS);
    const tallies = new ScenarioTallies(list);
    const {
      expected,
      visitors,
      engaged,
      seconds: loadSeconds,
      marks,
    } = await loadEvents(handle.db, size, SETTINGS, { logger, say, tallies });
    const {
      seconds: catchUpSeconds,
      cellDocs,
      bytes,
      byFamily,
      threads,
    } = await catchUp(handle.db, marks, { say, mongoUrl });
    const campaign = benchCampaign(SETTINGS, OWNERS[0]);
    const campaigns = campaignLookup([campaign]);
    app = await startReportingApp({
      db: handle.db,
      mongoUrl,
      adminToken: ADMIN_TOKEN,
      logger,
      name: 'bench-report',
      campaigns,
      // BENCH_PAGE_CACHE_MB: the reporting process's REPORT_PAGE_CACHE_MB (its default otherwise)
      env: {
        ROLLUP_ZONES: BENCH_ZONES.join(','),
        ...(process.env.BENCH_PAGE_CACHE_MB ? { REPORT_PAGE_CACHE_MB: process.env.BENCH_PAGE_CACHE_MB } : {}),
      },
    });
    const report = await ownerReports(app, ADMIN_TOKEN, OWNERS[0]);
    // the other build reads the same cells and the same api key collection
    if (COMPARE || ZONES_BESIDE)
      other = await startReportingApp({
        db: handle.db,
        mongoUrl,
        adminToken: ADMIN_TOKEN,
        logger,
        name: 'bench-report-compared',
        ...(COMPARE ? { build: COMPARE } : {}),
        campaigns,
        env: {
          // an older build may not know the setting: it is given to this build only
          ...(ZONES_BESIDE ? { ROLLUP_ZONES: '' } : {}),
          ...(process.env.BENCH_PAGE_CACHE_MB ? { REPORT_PAGE_CACHE_MB: process.env.BENCH_PAGE_CACHE_MB } : {}),
        },
      });
    const month = list.find((s) => s.key === 'name').body;

    // correctness first: the month report of OWNERS[0] counts exactly its non-bot events
    const totals = await report(month);
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
    const [attention] = await report({ ...month, name: 'view', metrics: 'engaged_ms_sum,engaged_ms_p90' });
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

    // the scenarios of countries and attribution, row by row against the generator's tallies
    const tallied = [];
    for (const s of list.filter((x) => x.tallied)) {
      const result = tallies.check(s, await report(s.body));
      say(
        `${s.name}: ${result.rows} rows of ${result.groups} groups, ${result.problems.length === 0 ? 'every row matches the loaded events' : `${result.problems.length} PROBLEMS: ${result.problems.slice(0, 5).join('; ')}`}${result.maxError > 0 ? `; sketched uniques within ${(result.maxError * 100).toFixed(2)} %` : ''}`,
      );
      if (result.problems.length > 0) throw new Error(`${s.name}: the answer differs from the loaded events`);
      tallied.push({ name: s.name, ...result });
    }

    // the scorecard's impressions and reach against a report of the campaign's urls over its flight
    const card = await report({ campaign: campaign.token }, undefined, 'scorecard');
    const [pages] = await report({ ...month, name: 'impression', url: campaign.urls, metrics: 'count,uniques' });
    say(
      `campaign scorecard: ${card.impressions} impressions, reach ${card.reach.value}; a report of its ${campaign.urls.length} urls: ${pages?.value} and ${pages?.uniques}`,
    );
    // reach: the same number while both are exact; past that two sketches (a visitor sample, HLL) within their errors
    const reachGap = Math.abs(card.reach.value - (pages?.uniques ?? 0)) / Math.max(1, pages?.uniques ?? 0);
    const reachOk = card.reach.exact && pages?.uniques_exact ? reachGap === 0 : reachGap <= 0.1;
    if (card.impressions !== (pages?.value ?? 0) || !reachOk)
      throw new Error('the campaign scorecard differs from a report of its urls');

    for (const s of list) {
      const answer = await report(s.body, undefined, s.route);
      s.rows = Array.isArray(answer) ? answer.length : 1;
    }
    if (other) {
      // a build from before a metric existed answers 400: such scenarios run on this build only
      for (const s of list) {
        const theirs = await report(s.body, other.base, s.route).catch(() => undefined);
        s.compared = theirs !== undefined;
        // a scorecard says when it was asked (as_of): the rest must be the same
        const same = (answer) => JSON.stringify({ ...answer, as_of: undefined });
        if (s.compared && same(theirs) !== same(await report(s.body, undefined, s.route)))
          throw new Error(`${s.name}: the compared build answers differently`);
      }
    }
    const times = list.map(() => []);
    const compared = list.map(() => []);
    // pages each scenario's timed reports took from the decoded-page cache and read from the store (this build)
    const pageReads = list.map(() => ({ cache: 0, store: 0 }));
    const timed = async (into, s, base) => {
      const before = base ? undefined : await app.pageCounts();
      const t0 = process.hrtime.bigint();
      await report(s.body, base, s.route);
      into.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (!before) return;
      const after = await app.pageCounts();
      const tally = pageReads[list.indexOf(s)];
      tally.cache += after.cache - before.cache;
      tally.store += after.store - before.store;
    };
    // beside another build, an even number of runs: each build goes first in half of them (a
    // report after the other build's differs from one after its own by up to 10 % here, and with
    // an odd number one build's median would lean to one side)
    const runs = other ? 2 * Math.ceil(RUNS / 2) : RUNS;
    for (let run = 0; run < runs; run++) {
      for (const [i, s] of list.entries()) {
        // A B, then B A on the next run, so neither build always goes first
        const both = other && s.compared;
        if (both && run % 2 === 1) await timed(compared[i], s, other.base);
        await timed(times[i], s);
        if (both && run % 2 === 0) await timed(compared[i], s, other.base);
      }
    }
    say(
      `rollup pages per timed report, from the decoded-page cache / read from the store (REPORT_PAGE_CACHE_MB ${process.env.BENCH_PAGE_CACHE_MB ?? 'default'}): ${list
        .map(
          (s, i) =>
            `${s.key} ${fmt(pageReads[i].cache / times[i].length)} / ${fmt(pageReads[i].store / times[i].length)}`,
        )
        .join('; ')}`,
    );
    // BENCH_PROFILE=<scenario key>[,<key>...]: each of those scenarios' runs once more under the CPU profiler
    for (const profileKey of (process.env.BENCH_PROFILE ?? '').split(',').filter(Boolean)) {
      const profiledScenario = list.find((s) => s.key === profileKey);
      if (!profiledScenario) throw new Error(`BENCH_PROFILE: no scenario "${profileKey}"`);
      const file = path.join(os.tmpdir(), `bench-report-${size}-${profileKey}.cpuprofile`);
      const summary = await profiled(async () => {
        for (let run = 0; run < RUNS; run++) await report(profiledScenario.body, undefined, profiledScenario.route);
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
      threads,
      errors,
      tallied,
      load: os.loadavg()[0],
      runs,
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
      `\n${r.size.toLocaleString('en')} events over ${DAYS} days (${OWNERS.length} owners, ${URLS.toLocaleString('en')} Zipf URLs${SETTINGS.urlNoise ? ', sent with campaign tags, click ids, fragments; referrers, countries' : ', clean (BENCH_URL_NOISE=0); countries'}; the reported owner has ${r.owned.toLocaleString('en')} non-bot events): written in ${r.loadSeconds.toFixed(0)} s, rollups caught up in ${r.catchUpSeconds.toFixed(0)} s (${r.cellDocs.toLocaleString('en')} cell documents); load average ${r.load.toFixed(1)}; ${r.runs} sequential runs per scenario over HTTP\n`,
    );
    const perEvent = (b) => (b / r.size).toFixed(1);
    // rollup threads write their pages themselves: nothing was tallied
    const cellBytes =
      r.threads > 1
        ? `not tallied (built by ${r.threads} rollup threads; a run with one builder tallies them)`
        : `${perEvent(Object.values(r.bytes).reduce((a, b) => a + b, 0))} B/event in all; by column ${Object.entries(
            r.bytes,
          )
            .map(([c, b]) => `${c} ${perEvent(b)}`)
            .join(', ')}; by family ${Object.entries(r.byFamily)
            .map(([f, b]) => `${f} ${perEvent(b)}`)
            .join(', ')} (B/event)`;
    console.log(
      `Cell bytes: ${cellBytes}. Uniques by name against the true distinct visitors: ${r.errors.map((e) => `${e.name} ${e.uniques} vs ${e.truth} (${(e.error * 100).toFixed(2)} %${e.exact ? ', exact' : ''})`).join('; ')}. Checked row by row against the loaded events (counts exact, sketched uniques within 3 %): ${r.tallied.map((t) => `${t.name} (${t.rows} rows${t.maxError > 0 ? `, uniques within ${(t.maxError * 100).toFixed(2)} %` : ''})`).join('; ')}\n`,
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
  if (COMPARE || ZONES_BESIDE) {
    for (const r of results) {
      console.log(
        `\n${r.size.toLocaleString('en')} events, this build vs ${COMPARED_LABEL} (same data, alternating)\n`,
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
  // the stand-in's garbage collector pauses logged (report-load.mjs)
  const gcLog = path.join(os.tmpdir(), `bench-report-gc-${process.pid}.log`);
  const mongoServer = ownStore ? await startBenchStandIn(gcLog) : undefined;
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

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
