#!/usr/bin/env node
// `BENCH_LOAD_CHECKOUT=<checkout> BENCH_COMPARE_DIST=<dist> pnpm bench:report-apart`: bench:report's
// scenarios over HTTP, answered by this build and by BENCH_COMPARE_DIST alternating (each going
// first in half the runs), in a process that did not load the data. A child process writes
// bench:report's events and builds their rollups with BENCH_LOAD_CHECKOUT's own loader and builder
// (its report-load.mjs: its page format and levels; this checkout when unset) into a fresh
// stand-in; then this process serves both builds. Why apart: in bench:report the build that loads
// the data runs its code in the timing process for minutes first, and there a second copy of the
// same build (8302502 beside itself) answered the heaviest uniques reports up to 1.47 times slower;
// here neither build has run before the warm-up. With BENCH_COMPARE_LOAD_CHECKOUT=<checkout> the
// events are loaded twice, into two databases of the same stand-in: the compared build then reads
// the pages its own checkout built (its page format and levels), this build the pages
// BENCH_LOAD_CHECKOUT built: before and after an upgrade whose pages were rebuilt. With
// BENCH_SERVE_APART=1 each build is served by a process of its own (the timing process only sends
// the requests): neither build's garbage is collected while the other answers; then
// BENCH_THIS_NODE_FLAGS and BENCH_COMPARE_NODE_FLAGS (space-separated) are each serving process's
// Node flags (BENCH_COMPARE_DIST=services/events/dist with different flags: one build under two
// settings of the runtime), and each process's peak resident memory is printed. BENCH_THIS_ENV and
// BENCH_COMPARE_ENV (space-separated KEY=VALUE) are more settings of each build's reporting feature
// (BENCH_COMPARE_DIST=services/events/dist BENCH_COMPARE_ENV=REPORT_MARKS_MAX_AGE_MS=0: this build
// with and without its marks view). BENCH_IDLE_MS: the client waits this long before each timed
// report (as between a dashboard's reports: every process on the way has gone idle). BENCH_SIZES (its
// first size; 1000000), BENCH_RUNS (15, rounded up to even), BENCH_HEAP (18g), BENCH_SCENARIOS (a
// comma list of scenario keys from report-scenarios.mjs to ask alone; all by default).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { OWNERS } from './report-data.mjs';
import { BENCH_ZONES, startBenchStandIn } from './report-load.mjs';
import { benchCampaign, fmt, quantile, reportBenchSettings, reportScenarios } from './report-scenarios.mjs';
import {
  campaignLookup,
  ownerReports,
  reportingBuild,
  serveReportingApart,
  startReportingApp,
} from './reporting-app.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const platform = require(path.join(root, 'packages/platform/dist'));
const SETTINGS = reportBenchSettings();
const SIZE = SETTINGS.sizes[0];
const RUNS = 2 * Math.ceil(SETTINGS.runs / 2);
const LOAD_CHECKOUT = path.resolve(process.env.BENCH_LOAD_CHECKOUT ?? root);
const COMPARE = process.env.BENCH_COMPARE_DIST;
const COMPARE_LOAD_CHECKOUT = process.env.BENCH_COMPARE_LOAD_CHECKOUT
  ? path.resolve(process.env.BENCH_COMPARE_LOAD_CHECKOUT)
  : undefined;
const say = (msg) => console.error(`[report-apart] ${msg}`);

/** The child's work: load and catch up with the load checkout's own scripts, then exit. */
const loader = (checkout) => `
const load = await import(${JSON.stringify(pathToFileURL(path.join(checkout, 'scripts/bench/report-load.mjs')).href)});
const { default: platform } = await import(${JSON.stringify(pathToFileURL(path.join(checkout, 'packages/platform/dist/index.js')).href)});
const { reportBenchSettings } = await import(${JSON.stringify(pathToFileURL(path.join(checkout, 'scripts/bench/report-scenarios.mjs')).href)});
const say = (msg) => console.error('[report-apart loader] ' + msg);
const logger = platform.createLogger({ service: 'bench-report-apart', level: 'error' });
const handle = await platform.connectMongo(process.env.MONGO_URL, process.env.BENCH_DB);
const { marks } = await load.loadEvents(handle.db, ${SIZE}, reportBenchSettings(), { logger, say });
const { seconds } = await load.catchUp(handle.db, marks, { say, mongoUrl: process.env.MONGO_URL });
say('caught up in ' + seconds.toFixed(0) + ' s');
await handle.close();
`;

/**
 * Both builds read the zone days the load marked (BENCH_ROLLUP_ZONES), so a New York series is
 * compared on the same units; a build older than zone days ignores the setting (unknown settings
 * are allowed) and reads UTC units.
 */
const envOf = (name) => ({
  ROLLUP_ZONES: BENCH_ZONES.join(','),
  ...Object.fromEntries(
    (process.env[name] ?? '')
      .split(' ')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  ),
});
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 0);

const nodeFlags = (name) => (process.env[name] ?? '').split(' ').filter(Boolean);

function loadApart(mongoUrl, dbName, checkout) {
  say(`loading with ${checkout} into ${dbName}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', loader(checkout)], {
      cwd: checkout,
      env: { ...process.env, MONGO_URL: mongoUrl, BENCH_DB: dbName },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the loader exited with ${code}`))));
  });
}

async function main() {
  if (!COMPARE) throw new Error('BENCH_COMPARE_DIST names the other build');
  const server = process.env.MONGO_URL
    ? undefined
    : await startBenchStandIn(path.join(os.tmpdir(), 'bench-apart-gc.log'));
  const mongoUrl = process.env.MONGO_URL ?? server.url;
  const dbName = `bench_apart_${randomBytes(4).toString('hex')}`;
  const handle = await platform.connectMongo(mongoUrl, dbName);
  const compareHandle = COMPARE_LOAD_CHECKOUT ? await platform.connectMongo(mongoUrl, `${dbName}_compared`) : handle;
  const apps = [];
  try {
    await loadApart(mongoUrl, dbName, LOAD_CHECKOUT);
    if (COMPARE_LOAD_CHECKOUT) await loadApart(mongoUrl, `${dbName}_compared`, COMPARE_LOAD_CHECKOUT);
    const logger = platform.createLogger({ service: 'bench-report-apart', level: 'error' });
    const campaigns = campaignLookup([benchCampaign(SETTINGS, OWNERS[0])]);
    const adminToken = `bench-${randomBytes(32).toString('hex')}`;
    for (const [name, dist, h, flags, env] of [
      [
        'this',
        path.join(root, 'services/events/dist'),
        handle,
        nodeFlags('BENCH_THIS_NODE_FLAGS'),
        envOf('BENCH_THIS_ENV'),
      ],
      [
        'compared',
        path.resolve(COMPARE),
        compareHandle,
        nodeFlags('BENCH_COMPARE_NODE_FLAGS'),
        envOf('BENCH_COMPARE_ENV'),
      ],
    ])
      apps.push(
        process.env.BENCH_SERVE_APART === '1'
          ? await serveReportingApart({
              mongoUrl,
              adminToken,
              dist,
              dbName: h.db.databaseName,
              name,
              flags,
              env,
              campaigns: [benchCampaign(SETTINGS, OWNERS[0])],
            })
          : await startReportingApp({
              db: h.db,
              mongoUrl,
              adminToken,
              logger,
              name,
              build: reportingBuild(dist),
              campaigns,
              env,
            }),
      );
    // API keys live in the database: one key per database
    const first = await ownerReports(apps[0], adminToken, OWNERS[0]);
    const reports = [first, COMPARE_LOAD_CHECKOUT ? await ownerReports(apps[1], adminToken, OWNERS[0]) : first];
    const report = (body, k, route) => reports[k](body, apps[k].base, route);
    // BENCH_SCENARIOS=<key,...>: only these scenarios (report-scenarios.mjs keys), to ask again
    const keys = process.env.BENCH_SCENARIOS?.split(',').filter(Boolean);
    const list = reportScenarios(SETTINGS).filter((s) => !keys || keys.includes(s.key));
    if (list.length === 0) throw new Error(`BENCH_SCENARIOS names no scenario: ${process.env.BENCH_SCENARIOS}`);
    // the same answers first (a scorecard says when it was asked); this warms both up alike
    const same = (answer) => JSON.stringify({ ...answer, as_of: undefined });
    for (const s of list) {
      const [a, b] = [await report(s.body, 0, s.route), await report(s.body, 1, s.route)];
      if (same(a) !== same(b)) throw new Error(`${s.name}: the builds answer differently`);
    }
    const load = os.loadavg()[0];
    const times = list.map(() => [[], []]);
    for (let run = 0; run < RUNS; run++)
      for (const [i, s] of list.entries())
        for (const k of run % 2 === 0 ? [0, 1] : [1, 0]) {
          if (IDLE_MS > 0) await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
          const t0 = process.hrtime.bigint();
          await report(s.body, k, s.route);
          times[i][k].push(Number(process.hrtime.bigint() - t0) / 1e6);
        }
    console.log(
      `\n${SIZE.toLocaleString('en')} events loaded apart by ${LOAD_CHECKOUT}${COMPARE_LOAD_CHECKOUT ? ` (the compared build's by ${COMPARE_LOAD_CHECKOUT})` : ''}; this build${process.env.BENCH_THIS_ENV ? ` (${process.env.BENCH_THIS_ENV})` : ''} vs ${COMPARE}${process.env.BENCH_COMPARE_ENV ? ` (${process.env.BENCH_COMPARE_ENV})` : ''}; ${RUNS} alternating runs${IDLE_MS > 0 ? `, the client idle ${IDLE_MS} ms before each` : ''}; load average ${load.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end\n`,
    );
    console.log('| scenario (p50 ms) | this build | compared build | this / compared |');
    console.log('|---|---|---|---|');
    for (const [i, s] of list.entries()) {
      const [a, b] = times[i].map((xs) => quantile(xs, 0.5));
      console.log(`| ${s.name} | ${fmt(a)} | ${fmt(b)} | ${(a / b).toFixed(2)} |`);
    }
    const peaks = apps.map((app) => app.peakMiB?.());
    if (peaks.every((p) => p !== undefined))
      console.log(
        `\npeak resident memory of the serving processes: this build ${peaks[0].toFixed(0)} MiB (${process.env.BENCH_THIS_NODE_FLAGS || 'no flags'}), compared ${peaks[1].toFixed(0)} MiB (${process.env.BENCH_COMPARE_NODE_FLAGS || 'no flags'})`,
      );
  } finally {
    for (const app of apps) await (app.stop ? app.stop() : platform.closeServer(app.server, 2000));
    for (const h of new Set([handle, compareHandle])) {
      await h.db.dropDatabase().catch(() => undefined);
      await h.close();
    }
    if (server) await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    say(err.stack ?? String(err));
    process.exit(1);
  },
);
