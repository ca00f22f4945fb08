#!/usr/bin/env node
// `BENCH_BESIDE=<another checkout> pnpm bench:sketch-reads-beside`: the 30-day reports whose time is
// the merge of many cell entries (p90 engaged time by content_id, uniques by url, grouped by
// content_id,url, url + metadata, top 10 urls, uniques by utm_campaign; BENCH_REPORTS picks some by
// their first words) answered by this checkout's build and by another checkout's build side by
// side in one process: the same generated events (page URLs as browsers send them unless
// BENCH_URL_NOISE=0, as bench:report),
// each build making its own pages of the units its own planner reads (cell-pages.mjs of each
// checkout, so each build's page writer, levels and report read), then every variant timed run by
// run, alternating which goes first. Prints p50 ms with every page decoded again (cold) and from a
// decoded-page cache (cached), and this / other. BENCH_SIZES (1000000,5000000), BENCH_RUNS (21).
import { p50Alternating } from './alternating-runs.mjs';
import os from 'node:os';
import path from 'node:path';
import { eventBatches, OWNERS } from './report-data.mjs';
import * as here from './cell-pages.mjs';
import { urlNoiseSetting } from './report-web.mjs';

const OTHER = process.env.BENCH_BESIDE;
const SIZES = (process.env.BENCH_SIZES ?? '1000000,5000000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const DAYS = 30;
const FIRST_DAY = Date.UTC(2026, 0, 1);
const say = (s) => process.stderr.write(`[sketch-reads-beside] ${s}\n`);
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const day = (n) => new Date(FIRST_DAY + n * 86_400_000).toISOString().slice(0, 10);
const MONTH = { owner_id: OWNERS[0], created__gte: `${day(0)} 00:00:00`, created__lte: `${day(DAYS - 1)} 23:59:59` };
/** The 30-day reports whose time is the merge of many cell entries (the family each reads, its body). */
const ALL_REPORTS = {
  'p90 engaged time, group_by content_id': [
    'p',
    { ...MONTH, name: 'view', group_by: 'content_id', metrics: 'count,engaged_ms_p90' },
  ],
  'uniques, group_by url': ['p', { ...MONTH, group_by: 'url', metrics: 'count,uniques' }],
  'group_by content_id,url': ['p', { ...MONTH, group_by: 'content_id,url' }],
  'group_by url + metadata': ['p', { ...MONTH, group_by: 'url', metadata: 'campaign,variant' }],
  'group_by url, top 10 by value': ['p', { ...MONTH, group_by: 'url', limit: 10 }],
  'uniques, group_by utm_campaign': ['c', { ...MONTH, group_by: 'utm_campaign', metrics: 'count,uniques' }],
};
/** BENCH_REPORTS: a comma list of the titles' first words to keep (all by default). */
const REPORTS = Object.fromEntries(
  Object.entries(ALL_REPORTS).filter(
    ([title]) => !process.env.BENCH_REPORTS || process.env.BENCH_REPORTS.split(',').some((w) => title.startsWith(w)),
  ),
);
const NOISE = urlNoiseSetting();

/** Each build's pages of the owner's events in every family the reports read, from one pass over the generated events. */
function buildPages(builds, total) {
  const families = [...new Set(Object.values(REPORTS).map(([family]) => family))];
  const makers = builds.map((b) => {
    const units = b.rangeUnits(FIRST_DAY, FIRST_DAY + DAYS * 86_400_000);
    return { units, families: new Map(families.map((f) => [f, b.ownerPages(OWNERS[0], f, units)])) };
  });
  const settings = { total, days: DAYS, firstDay: FIRST_DAY, urls: 2000, batch: 500, noise: NOISE };
  for (const batch of eventBatches(settings, new Map()))
    for (const e of batch)
      if (e.owner_id === OWNERS[0] && !e.bot) for (const m of makers) for (const p of m.families.values()) p.add(e);
  return makers.map((m) => ({
    units: m.units,
    pages: new Map([...m.families].map(([f, p]) => [f, p.pages()])),
  }));
}

async function main() {
  if (!OTHER) throw new Error('BENCH_BESIDE=<another checkout, built> is required');
  const other = await import(path.resolve(OTHER, 'scripts/bench/cell-pages.mjs'));
  const builds = [here, other];
  say(`load average before: ${load()}; beside ${OTHER}`);
  const rows = [];
  for (const size of SIZES) {
    const made = buildPages(builds, size);
    say(
      `${size.toLocaleString('en')}: units of ${made.map((m) => m.units.map((u) => (u.end - u.unit.start) / 86_400_000).join('+')).join(' / ')} days`,
    );
    for (const [title, [family, body]] of Object.entries(REPORTS)) {
      const reports = builds.map((b, i) => b.cellReport(body, made[i].pages.get(family), made[i].units));
      const answers = await Promise.all(reports.map((r) => r.run()));
      if (answers[0].rows.length !== answers[1].rows.length)
        throw new Error(`${title}: ${answers[0].rows.length} rows here, ${answers[1].rows.length} in the other build`);
      // cold and cached timed apart: a cached run right after a cold one pays for its garbage, and
      // in one rotation of four that falls on one build more often than on the other
      const [hereCold, otherCold] = await p50Alternating([() => reports[0].run(), () => reports[1].run()], RUNS);
      const [hereCached, otherCached] = await p50Alternating(
        [() => reports[0].run({ cached: true }), () => reports[1].run({ cached: true })],
        RUNS,
      );
      rows.push({ size, title, hereCold, hereCached, otherCold, otherCached });
    }
  }
  say(`load average after: ${load()}`);
  const ms = (x) => x.toFixed(1);
  console.log('\n| events | 30-day report | cold: this / other (ms) | ratio | cached: this / other (ms) | ratio |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.size / 1e6}M | ${r.title} | ${ms(r.hereCold)} / ${ms(r.otherCold)} | ${(r.hereCold / r.otherCold).toFixed(2)} | ${ms(r.hereCached)} / ${ms(r.otherCached)} | ${(r.hereCached / r.otherCached).toFixed(2)} |`,
    );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
