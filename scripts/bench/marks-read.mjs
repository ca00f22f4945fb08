#!/usr/bin/env node
// `pnpm bench:marks-read`: what a report's marks cost. Loads bench:report's events (BENCH_SIZE,
// 200,000: a 30-day span has as many rollup marks at any size) into a fresh MongoDB stand-in
// and builds their rollups, then loads a 30-day report's coverage of them (RollupCoverage.load:
// the marks of the range read by id and made into the plan's built units) several ways,
// alternating: with only the fields a plan reads (RollupMarks, PLANNING_PROJECTION), with the
// whole marks but their pending generations (how reports read them before), and through the
// reporting process's marks view (MarksView at the default REPORT_MARKS_MAX_AGE_MS, refreshing in
// the background as deployed); beside them a bare `ping`, the floor of any round trip. All must
// find the same built units. Each is timed back to back, then with the process idle
// BENCH_IDLE_MS (20) before each call, as between a dashboard's reports. Prints p50 ms of each.
// BENCH_RUNS (301), BENCH_HEAP (4g).
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { p50Alternating } from './alternating-runs.mjs';
import { OWNERS } from './report-data.mjs';
import { catchUp, loadEvents, startBenchStandIn } from './report-load.mjs';
import { reportBenchSettings } from './report-scenarios.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const dist = (p) => require(path.join(root, 'services/events/dist', p));
const platform = require(path.join(root, 'packages/platform/dist'));
const { RollupMarks } = dist('rollups/rollup-marks');
const { markFromDocument } = dist('rollups/mark-document');
const { RollupCoverage } = dist('reporting/plan/rollup-coverage');
const { MarksView } = dist('reporting/plan/marks-view');
const { loadEventsConfig } = dist('config');
const { ReportBudget } = dist('reporting/read/report-budget');
const SIZE = Number(process.env.BENCH_SIZE ?? 200_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 301);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 20);
const say = (msg) => console.error(`[marks-read] ${msg}`);

process.env.BENCH_HEAP ??= '4g';
const server = await startBenchStandIn(`/tmp/bench-marks-read-gc-${process.pid}.log`);
const handle = await platform.connectMongo(server.url, `bench_marks_${randomBytes(3).toString('hex')}`);
try {
  const settings = reportBenchSettings({ ...process.env, BENCH_SIZES: String(SIZE) });
  const logger = platform.createLogger({ service: 'bench-marks-read', level: 'error' });
  const { marks } = await loadEvents(handle.db, SIZE, settings, { logger, say });
  await catchUp(handle.db, marks, { say, mongoUrl: server.url });
  const planning = new RollupMarks(handle.db);
  // the marks as reports read them before: every field but the pending generations
  const whole = {
    byIds: async (ids, opts) =>
      (
        await planning.collection
          .find({ _id: { $in: [...ids] } }, { projection: { pending: 0 }, maxTimeMS: opts.maxTimeMS })
          .toArray()
      ).map(markFromDocument),
    builtGenerations: (ids, ms) => planning.builtGenerations(ids, ms),
  };
  const start = Date.parse(`${settings.day(0)}T00:00:00Z`);
  const spans = [{ start, end: start + settings.days * 86_400_000 }];
  const scope = { owner: OWNERS[0], unusable: new Set(), family: 'p' };
  const load = async (coverage) => {
    const budget = new ReportBudget({ deadline: Date.now() + 10_000 }, { deadlineMs: 10_000, perQueryMs: 5_000 });
    try {
      return await coverage.load(spans, budget, scope);
    } finally {
      budget.dispose();
    }
  };
  const maxAgeMs = loadEventsConfig({ NODE_ENV: 'test', MONGO_URL: server.url }).REPORT_MARKS_MAX_AGE_MS;
  const view = new MarksView(planning, { maxAgeMs });
  const variants = [new RollupCoverage(planning), new RollupCoverage(whole), new RollupCoverage(view)];
  const found = await Promise.all(variants.map(load));
  const units = (c) => JSON.stringify([...c.built.entries()].sort());
  if (found.some((c) => units(c) !== units(found[0]))) throw new Error('the reads found different built units');
  const timed = [...variants.map((v) => () => load(v)), () => handle.db.command({ ping: 1 })];
  const backToBack = await p50Alternating(timed, RUNS);
  const idle = await p50Alternating(timed, RUNS, { before: () => new Promise((r) => setTimeout(r, IDLE_MS)) });
  await view.stop();
  console.log(
    `\n${SIZE.toLocaleString('en')} events, a 30-day report's coverage (${found[0].built.size} built units found), p50 ms of ${RUNS} alternating runs:\n`,
  );
  console.log(`| marks read | back to back | after ${IDLE_MS} ms idle |`);
  console.log('| --- | --- | --- |');
  const names = [
    'the fields a plan reads, from the store',
    'whole, but pending (before)',
    `the marks view (${maxAgeMs} ms)`,
    'a bare ping (any round trip)',
  ];
  for (const [i, name] of names.entries())
    console.log(`| ${name} | ${backToBack[i].toFixed(3)} | ${idle[i].toFixed(3)} |`);
  console.log(
    `\nplanning fields / whole: ${(backToBack[0] / backToBack[1]).toFixed(2)}; the view / the store: ${(backToBack[2] / backToBack[0]).toFixed(2)} back to back, ${(idle[2] / idle[0]).toFixed(2)} after idle`,
  );
} finally {
  await handle.db.dropDatabase().catch(() => undefined);
  await handle.close();
  await server.stop();
}
